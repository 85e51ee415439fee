// The start-up migration runner (src/db/migrate.ts): records migrations in `_prisma_migrations`
// as Prisma does, is idempotent, refuses an edited migration, applies each migration in one
// transaction, and lets two instances start together on one empty database.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMigrations, MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/database.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function emptyDatabase(): Promise<string> {
  const database = await createTestDatabase({ empty: true });
  cleanups.push(database.drop);
  return database.url;
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** A copy of prisma/migrations to change freely. */
function migrationsCopy(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pcs-migrations-'));
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

const committedMigrations = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

interface MigrationRow {
  id: string;
  checksum: string;
  migration_name: string;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
}
const migrationRows = (url: string) => query<MigrationRow>(url, 'SELECT * FROM _prisma_migrations ORDER BY migration_name');

describe('migration runner', () => {
  it('applies every migration and records it as Prisma does', async () => {
    const url = await emptyDatabase();
    expect(await applyMigrations(url)).toEqual(committedMigrations);
    const rows = await migrationRows(url);
    expect(rows.map((r) => r.migration_name)).toEqual(committedMigrations);
    for (const row of rows) {
      const sql = readFileSync(path.join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        checksum: createHash('sha256').update(sql).digest('hex'),
        migration_name: row.migration_name,
        started_at: expect.any(Date),
        finished_at: expect.any(Date),
        rolled_back_at: null,
        logs: null,
        applied_steps_count: 1,
      });
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
    }
    const tables = await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`);
    expect(tables[0]!.n).toBeGreaterThan(5);
  });

  it('is idempotent: a second run applies nothing and records nothing', async () => {
    const url = await emptyDatabase();
    await applyMigrations(url);
    const before = await migrationRows(url);
    expect(await applyMigrations(url)).toEqual([]);
    expect(await migrationRows(url)).toEqual(before);
  });

  it('applies only a new migration on the next run', async () => {
    const url = await emptyDatabase();
    const dir = migrationsCopy();
    await applyMigrations(url, dir);
    mkdirSync(path.join(dir, '99990101000000_add_note'));
    writeFileSync(path.join(dir, '99990101000000_add_note', 'migration.sql'), 'ALTER TABLE "games" ADD COLUMN "note" TEXT;\n');
    expect(await applyMigrations(url, dir)).toEqual(['99990101000000_add_note']);
    expect((await migrationRows(url)).length).toBe(committedMigrations.length + 1);
  });

  it('refuses to start when an applied migration was edited', async () => {
    const url = await emptyDatabase();
    const dir = migrationsCopy();
    await applyMigrations(url, dir);
    appendFileSync(path.join(dir, committedMigrations[0]!, 'migration.sql'), '\n-- edited afterwards\n');
    await expect(applyMigrations(url, dir)).rejects.toThrow(/was edited after it was applied/);
  });

  it('rolls a failing migration back entirely and records nothing for it', async () => {
    const url = await emptyDatabase();
    const dir = migrationsCopy();
    mkdirSync(path.join(dir, '99990101000000_broken'));
    writeFileSync(
      path.join(dir, '99990101000000_broken', 'migration.sql'),
      'CREATE TABLE "half_done" ("id" INTEGER);\nALTER TABLE "no_such_table" ADD COLUMN "x" TEXT;\n',
    );
    await expect(applyMigrations(url, dir)).rejects.toThrow(/99990101000000_broken failed/);
    expect((await migrationRows(url)).map((r) => r.migration_name)).toEqual(committedMigrations);
    expect(await query(url, `SELECT 1 FROM pg_tables WHERE tablename = 'half_done'`)).toEqual([]);
  });

  it('lets two runners start together on one empty database: both succeed, each migration is applied once', async () => {
    const url = await emptyDatabase();
    const [first, second] = await Promise.all([applyMigrations(url), applyMigrations(url)]);
    expect([...first, ...second].sort()).toEqual(committedMigrations);
    const rows = await migrationRows(url);
    expect(rows.map((r) => r.migration_name)).toEqual(committedMigrations);
  });
});
