// Our ids are UUIDs in Postgres; anything else cannot name a row, and querying a uuid column
// with it would be a database error. Callers treat a non-UUID as "not found" (CONTRACT §1).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);
