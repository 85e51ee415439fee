// List endpoints share one query shape and one response envelope (SPEC §2, CONTRACT §1).
// A list may also offer keyset pagination (`cursor` → `meta.nextCursor`) beside page/limit:
// OFFSET reads and discards every row before the page, so deep pages get slower the deeper
// they are; a cursor seeks straight to its row through the (sort, id) index.
import { z } from 'zod';
import { ValidationError } from '../errors.js';

export const MAX_LIMIT = 100;

/** A query-string integer written in plain decimal digits: `0x10`, `1e1` or ` 5` are refused. */
const decimalInteger = (min: number, max: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value),
    z
      .number({ error: 'must be a whole number written in decimal digits' })
      .int()
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  );

/** page/limit/sort/order for a resource that can be sorted by `sortFields`. */
export function listQuery<const S extends readonly [string, ...string[]]>(sortFields: S) {
  return z.object({
    page: decimalInteger(1, Number.MAX_SAFE_INTEGER).default(1).describe('Page number, starting at 1'),
    limit: decimalInteger(1, MAX_LIMIT).default(20).describe(`Items per page, 1..${MAX_LIMIT}`),
    sort: z.enum(sortFields).default(sortFields[0]).describe('Field to sort by'),
    order: z.enum(['asc', 'desc']).default('desc').describe('Sort direction; ties are broken by id'),
  });
}

export interface PageRequest<S extends string = string> {
  page: number;
  limit: number;
  sort: S;
  order: 'asc' | 'desc';
}

/** Prisma's skip/take/orderBy for a page; `id` breaks ties so the order is stable. */
export function pageArgs<S extends string>(query: PageRequest<S>) {
  return {
    skip: (query.page - 1) * query.limit,
    take: query.limit,
    orderBy: [{ [query.sort]: query.order }, { id: query.order }] as Array<Record<string, 'asc' | 'desc'>>,
  };
}

export function envelope<T>(data: T[], total: number, query: PageRequest) {
  return {
    data,
    meta: { page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) },
  };
}

/**
 * The envelope of a list that offers cursors. SPEC's meta stays exactly as it is unless the
 * client asked for cursors (`cursor` in the query); then `nextCursor` is added, null on the last page.
 */
export function cursorEnvelope<T>(data: T[], total: number, query: PageRequest & { cursor?: string }, nextCursor: string | null) {
  const plain = envelope(data, total, query);
  return query.cursor === undefined ? plain : { data, meta: { ...plain.meta, nextCursor } };
}

const meta = {
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
};

export function envelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), meta: z.object(meta) });
}

/** The envelope of a list that offers cursors: `meta.nextCursor` only when a cursor was asked for. */
export function cursorEnvelopeSchema<T extends z.ZodType>(item: T) {
  const nextCursor = z
    .string()
    .nullable()
    .optional()
    .describe('Only when the request had `cursor`: pass it as `cursor` (same sort and order) for the next page; null on the last page');
  return z.object({ data: z.array(item), meta: z.object({ ...meta, nextCursor }) });
}

export const cursorParam = z
  .string()
  .max(512)
  .optional()
  .describe(
    'Keyset pagination, fast at any depth: send `cursor=` (empty) to get meta.nextCursor, then meta.nextCursor of the previous page for the next one, with the same sort and order (page is then ignored)',
  );

/** Where a cursor points: after the row with this sort value and id, on this page. */
interface Cursor {
  page: number;
  sort: string;
  order: 'asc' | 'desc';
  value: Date | string;
  id: string;
}

function encodeCursor(cursor: Cursor): string {
  const value = cursor.value instanceof Date ? { d: cursor.value.toISOString() } : { s: cursor.value };
  return Buffer.from(JSON.stringify([cursor.page, cursor.sort, cursor.order, value, cursor.id])).toString('base64url');
}

/** What a sort field holds, so that a cursor's value can be checked against it before it reaches a query. */
export type SortValueKind = 'date' | 'string';

/**
 * What encodeCursor writes; built once, as building a zod schema costs more than using it.
 * A string holds no NUL, which PostgreSQL text cannot.
 */
const cursorParts = z.tuple([
  z.number().int().min(2),
  z.string(),
  z.enum(['asc', 'desc']),
  z.union([z.strictObject({ d: z.iso.datetime() }), z.strictObject({ s: z.string().refine((s) => !s.includes('\u0000')) })]),
  z.uuid(),
]);

function decodeCursor(raw: string, query: PageRequest, sortKinds: Record<string, SortValueKind>): Cursor {
  const invalid = (message: string) => ValidationError.of([{ in: 'query', path: 'cursor', message }]);
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid('is not a cursor from meta.nextCursor');
  }
  const parsed = cursorParts.safeParse(parts);
  if (!parsed.success) throw invalid('is not a cursor from meta.nextCursor');
  const [page, sort, order, value, id] = parsed.data;
  if (sort !== query.sort || order !== query.order) throw invalid(`was made for sort=${sort}&order=${order}; send those with it`);
  // The value must be of the sort field's kind: a string where a date is compared is a query error.
  if (('d' in value ? 'date' : 'string') !== sortKinds[sort]) throw invalid('is not a cursor from meta.nextCursor');
  return { page, sort, order, value: 'd' in value ? new Date(value.d) : value.s, id };
}

/**
 * The rows a list reads for one page, in `sort`/`order` then id order: those after the
 * cursor's (sort value, id) when there is one, skipping `offset` of them, at most `limit`.
 */
export interface PageSlice<S extends string = string> {
  sort: S;
  order: 'asc' | 'desc';
  after?: { value: Date | string; id: string };
  offset: number;
  limit: number;
}

/**
 * One page of a list that takes `page` or `cursor`. Reads one row more than the page to know
 * whether a next page exists, and returns the cursor pointing after the page's last row.
 * `sortKinds` says what each sort field holds; a cursor whose value is of another kind is a 400.
 */
export async function cursorPage<S extends string, Row extends { id: string }>(
  query: PageRequest<S> & { cursor?: string },
  sortKinds: Record<S, SortValueKind>,
  readSlice: (slice: PageSlice<S>) => Promise<Row[]>,
): Promise<{ rows: Row[]; page: number; nextCursor: string | null }> {
  // An empty cursor starts keyset pagination at `page`.
  const cursor = query.cursor ? decodeCursor(query.cursor, query, sortKinds) : undefined;
  const page = cursor ? cursor.page : query.page;
  const found = await readSlice({
    sort: query.sort,
    order: query.order,
    after: cursor && { value: cursor.value, id: cursor.id },
    offset: cursor ? 0 : (page - 1) * query.limit,
    limit: query.limit + 1,
  });
  const rows = found.slice(0, query.limit);
  const last = rows.at(-1);
  // Encoded only for a client that asked for cursors: the plain envelope drops it anyway.
  const nextCursor =
    query.cursor !== undefined && found.length > query.limit && last
      ? encodeCursor({ page: page + 1, sort: query.sort, order: query.order, value: (last as Record<string, unknown>)[query.sort] as Date | string, id: last.id })
      : null;
  return { rows, page, nextCursor };
}
