// The migrated database matches prisma/schema.prisma: tables, columns (type, nullability,
// presence of a default), primary keys, unique and plain indexes, foreign keys and enums.
// The SQL migrations are written by hand-run tooling (DEVELOPERS.md); this test is what makes
// sure schema.prisma and the SQL can never drift apart silently. The datamodel is read with
// Prisma's own parser (getDMMF, WASM, offline), the database from pg_catalog.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getDMMF } from '@prisma/get-dmmf';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';

type Document = Exclude<ReturnType<typeof getDMMF>, { type: string }>;
type Datamodel = Document['datamodel'];
type Model = Datamodel['models'][number];
type Field = Model['fields'][number];

let datamodel: Datamodel;
let client: pg.Client;
let drop: () => Promise<void>;

beforeAll(async () => {
  const schema = readFileSync(path.resolve(import.meta.dirname, '../../prisma/schema.prisma'), 'utf8');
  const parsed = getDMMF({ datamodel: schema });
  if ('reason' in parsed) throw new Error(`prisma/schema.prisma does not parse: ${parsed.reason}`, { cause: parsed.error });
  datamodel = parsed.datamodel;
  const database = await createTestDatabase();
  drop = database.drop;
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await drop();
});

// ---- what schema.prisma says, in the database's terms -------------------------------------

const tableOf = (model: Model) => model.dbName ?? model.name;
const columnOf = (model: Model, fieldName: string) => {
  const field = model.fields.find((f) => f.name === fieldName);
  if (!field) throw new Error(`${model.name}.${fieldName} is not a field`);
  return field.dbName ?? field.name;
};
const modelByName = (name: string) => datamodel.models.find((m) => m.name === name)!;
const enumType = (name: string) => {
  const dbName = datamodel.enums.find((e) => e.name === name)?.dbName ?? name;
  return /^[a-z_][a-z0-9_]*$/.test(dbName) ? dbName : `"${dbName}"`;
};

/** PostgreSQL's format_type() of a Prisma native type (the ones this schema may use). */
function nativeTypeName([name, args]: [string, string[]]): string {
  const precision = args.length ? `(${args.join(',')})` : '';
  const types: Record<string, string> = {
    Uuid: 'uuid',
    Text: 'text',
    VarChar: `character varying${precision}`,
    Char: `character${precision}`,
    Integer: 'integer',
    SmallInt: 'smallint',
    BigInt: 'bigint',
    Boolean: 'boolean',
    JsonB: 'jsonb',
    Json: 'json',
    Date: 'date',
    Timestamptz: `timestamp${precision} with time zone`,
    Timestamp: `timestamp${precision} without time zone`,
  };
  const type = types[name];
  if (!type) throw new Error(`native type @db.${name} is not mapped in this test yet; add it`);
  return type;
}

/** PostgreSQL's format_type() of a Prisma scalar without a native type (Prisma's defaults). */
const DEFAULT_TYPES: Record<string, string> = {
  String: 'text',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  Boolean: 'boolean',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
};

function expectedType(field: Field): string {
  const base = field.kind === 'enum' ? enumType(field.type) : field.nativeType ? nativeTypeName(field.nativeType as [string, string[]]) : DEFAULT_TYPES[field.type];
  if (!base) throw new Error(`type ${field.type} is not mapped in this test yet; add it`);
  return field.isList ? `${base}[]` : base;
}

/** Defaults Prisma computes in the client rather than in the database. */
const CLIENT_SIDE_DEFAULTS = new Set(['uuid', 'cuid', 'nanoid', 'ulid']);
function hasDatabaseDefault(field: Field): boolean {
  if (field.default === undefined) return false;
  const fn = field.default as { name?: string };
  return !(typeof fn === 'object' && fn !== null && 'name' in fn && CLIENT_SIDE_DEFAULTS.has(fn.name!));
}

interface Column {
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

function expectedColumns(model: Model): Record<string, Column> {
  return Object.fromEntries(
    model.fields
      .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
      .map((f) => [
        f.dbName ?? f.name,
        // Prisma creates scalar-list columns without NOT NULL.
        { type: expectedType(f), nullable: f.isList || !f.isRequired, hasDefault: hasDatabaseDefault(f) },
      ]),
  );
}

const ON_DELETE: Record<string, string> = { Cascade: 'CASCADE', Restrict: 'RESTRICT', NoAction: 'NO ACTION', SetNull: 'SET NULL', SetDefault: 'SET DEFAULT' };

// ---- what the database has -----------------------------------------------------------------

async function actualColumns(table: string): Promise<Record<string, Column>> {
  const { rows } = await client.query<{ name: string; type: string; not_null: boolean; has_default: boolean }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null, a.atthasdef AS has_default
     FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`,
    [`"${table}"`],
  );
  return Object.fromEntries(rows.map((r) => [r.name, { type: r.type, nullable: !r.not_null, hasDefault: r.has_default }]));
}

/** Indexes of a table as "name: [unique ]col,col", primary key included. */
async function actualIndexes(table: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string; is_unique: boolean; is_primary: boolean; columns: string[] }>(
    `SELECT c.relname AS name, i.indisunique AS is_unique, i.indisprimary AS is_primary,
            array_agg(a.attname::text ORDER BY k.ord) AS columns
     FROM pg_index i
     JOIN pg_class c ON c.oid = i.indexrelid
     CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
     JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
     WHERE i.indrelid = $1::regclass
     GROUP BY c.relname, i.indisunique, i.indisprimary`,
    [`"${table}"`],
  );
  return rows.map((r) => `${r.name}: ${r.is_primary ? 'primary ' : r.is_unique ? 'unique ' : ''}${r.columns.join(',')}`).sort();
}

async function actualForeignKeys(table: string): Promise<string[]> {
  const { rows } = await client.query<{ definition: string; name: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f'`,
    [`"${table}"`],
  );
  return rows.map((r) => `${r.name}: ${r.definition}`).sort();
}

// ---- the comparison ------------------------------------------------------------------------

function expectedIndexes(model: Model): string[] {
  const table = tableOf(model);
  return datamodel.indexes
    .filter((index) => index.model === model.name && index.type !== 'fulltext')
    .map((index) => {
      const columns = index.fields.map((f) => columnOf(model, f.name));
      const kind = index.type === 'id' ? 'primary ' : index.type === 'unique' ? 'unique ' : '';
      const suffix = index.type === 'id' ? 'pkey' : index.type === 'unique' ? 'key' : 'idx';
      const name = index.dbName ?? (index.type === 'id' ? `${table}_pkey` : `${table}_${columns.join('_')}_${suffix}`);
      return `${name}: ${kind}${columns.join(',')}`;
    })
    .sort();
}

function expectedForeignKeys(model: Model): string[] {
  const table = tableOf(model);
  return model.fields
    .filter((f) => f.kind === 'object' && f.relationFromFields?.length)
    .map((f) => {
      const target = modelByName(f.type);
      const from = f.relationFromFields!.map((name) => columnOf(model, name));
      const to = f.relationToFields!.map((name) => columnOf(target, name));
      const onDelete = ON_DELETE[f.relationOnDelete ?? (f.isRequired ? 'Restrict' : 'SetNull')];
      const quote = (names: string[]) => names.map((n) => (/^[a-z_][a-z0-9_]*$/.test(n) ? n : `"${n}"`)).join(', ');
      return `${table}_${from.join('_')}_fkey: FOREIGN KEY (${quote(from)}) REFERENCES ${tableOf(target)}(${quote(to)}) ON UPDATE CASCADE ON DELETE ${onDelete}`;
    })
    .sort();
}

describe('schema.prisma and the migrated database agree', () => {
  it('have the same tables', async () => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`,
    );
    expect(rows.map((r) => r.name).sort()).toEqual(datamodel.models.map(tableOf).sort());
  });

  it('have the same enums with the same values in the same order', async () => {
    const { rows } = await client.query<{ name: string; values: string[] }>(
      `SELECT t.typname::text AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS values
       FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
       JOIN pg_namespace n ON n.oid = t.typnamespace AND n.nspname = 'public'
       GROUP BY t.typname`,
    );
    const expected = datamodel.enums.map((e) => ({ name: e.dbName ?? e.name, values: e.values.map((v) => v.dbName ?? v.name) }));
    expect(rows.sort((a, b) => a.name.localeCompare(b.name))).toEqual(expected.sort((a, b) => a.name.localeCompare(b.name)));
  });

  it('checks every model (sanity: the parser saw the schema)', () => {
    expect(datamodel.models.map((m) => m.name)).toEqual(expect.arrayContaining(['User', 'Organization', 'Membership', 'Session', 'ApiToken', 'Game']));
  });

  it('have, table by table, the same columns: type, nullability and database default', async () => {
    for (const model of datamodel.models) {
      expect(await actualColumns(tableOf(model)), `table ${tableOf(model)}`).toEqual(expectedColumns(model));
    }
  });

  it('have the same primary keys, unique indexes and plain indexes, by name and columns', async () => {
    for (const model of datamodel.models) {
      expect(await actualIndexes(tableOf(model)), `table ${tableOf(model)}`).toEqual(expectedIndexes(model));
    }
  });

  it('have the same foreign keys, with their referential actions', async () => {
    for (const model of datamodel.models) {
      expect(await actualForeignKeys(tableOf(model)), `table ${tableOf(model)}`).toEqual(expectedForeignKeys(model));
    }
  });
});
