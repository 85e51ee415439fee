// One PostgreSQL for the whole run: the server at DATABASE_URL, or an embedded one started here.
// Migrations are applied once to a template database; each test file then gets its own
// database copied from it (test/helpers/database.ts), so files never see each other's rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureDatabase, startEmbeddedPostgres } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { installQueueSchema } from '../src/jobs/queue.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseServerUrl: string;
    templateDatabase: string;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export default async function setup(project: TestProject) {
  let serverUrl = process.env.DATABASE_URL;
  let stop = async () => {};
  if (!serverUrl) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'pcs-test-pg-'));
    const embedded = await startEmbeddedPostgres({ directory: dataDir, port: await freePort() });
    serverUrl = embedded.serverUrl;
    stop = async () => {
      await embedded.stop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  }
  const templateDatabase = `pcs_template_${process.pid}`;
  await ensureDatabase(serverUrl, templateDatabase);
  await applyMigrations(withDatabase(serverUrl, templateDatabase));
  // The export queue's own schema (pg-boss), so that each test database has it from the start.
  await installQueueSchema(withDatabase(serverUrl, templateDatabase));

  project.provide('databaseServerUrl', serverUrl);
  project.provide('templateDatabase', templateDatabase);

  return async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`, [
      `pcs_test_${process.pid}_%`,
      templateDatabase,
    ]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
    await client.end();
    await stop();
  };
}
