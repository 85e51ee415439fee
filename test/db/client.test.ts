// The shared pg.Pool of src/db/client.ts: an idle connection that fails is logged, not fatal,
// and the line holds the error alone (pg attaches its whole client object to it; the logger's
// err serializer drops it).
import { inject, afterAll, expect, it } from 'vitest';
import pg from 'pg';
import { createDatabase } from '../../src/db/client.js';
import { createLogger } from '../../src/plugins/logging.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
afterAll(async () => database?.drop());

it("logs an idle connection's failure with its code and message, without pg's client", async () => {
  database = await createTestDatabase({ empty: true });
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('warn', { write: (line: string) => void lines.push(JSON.parse(line)) });
  const db = createDatabase(database.url, 2, logger);
  await db.pool.query('SELECT 1');
  const admin = new pg.Client({ connectionString: inject('databaseServerUrl') });
  await admin.connect();
  const name = new URL(database.url).pathname.slice(1);
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
  await admin.end();
  await expect.poll(() => lines.length).toBeGreaterThan(0);
  const err = lines[0]!.err as Record<string, unknown>;
  expect(err).toMatchObject({ code: '57P01', message: expect.stringMatching(/terminating connection/) });
  expect(err).not.toHaveProperty('client');
  expect(JSON.stringify(lines[0])).not.toContain('connectionParameters');
  await db.$disconnect();
});
