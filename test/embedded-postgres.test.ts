// The embedded PostgreSQL (CONTRACT §8, issue #9 finding 6 and "cloning into a private directory
// as root"): a random superuser password kept in DATA_DIR (0600) — never postgres:postgres —
// data directories made with the old fixed password switched over on their first start, DATA_DIR
// private, and PostgreSQL binaries that the `postgres` user cannot reach still run.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedDatabaseUrl, startEmbeddedPostgres } from '../src/db/embedded.js';
import { defaultInstallation } from '../src/db/postgres-process.js';
import { freePort } from './global-setup.js';

// A place anyone may pass through, like /var/lib (run as root, PostgreSQL runs as `postgres`).
const scratch = mkdtempSync(path.join(tmpdir(), 'pcs-embedded-test-'));
chmodSync(scratch, 0o755);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;

/** A DATA_DIR of its own for one test (not yet created: the server creates it). */
const newDataDir = (name: string) => path.join(scratch, name, 'data');

/** Whether `password` opens the server at `port` as postgres; the error code otherwise. */
async function tryPassword(port: number, password: string): Promise<true | string> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  try {
    await client.connect();
    return true;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const mode = (file: string) => statSync(file).mode & 0o777;

describe('embedded PostgreSQL', () => {
  it('keeps a random superuser password in DATA_DIR (0600) and refuses postgres:postgres', async () => {
    const dataDir = newDataDir('fresh');
    const port = await freePort();
    const server = await startEmbeddedPostgres({ directory: dataDir, port });
    try {
      const passwordFile = path.join(dataDir, 'postgres-password');
      const password = readFileSync(passwordFile, 'utf8').trim();
      expect(password).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      expect(mode(passwordFile)).toBe(0o600);
      // DATA_DIR: nothing for others; as root the postgres group may only pass through (0710).
      expect(mode(dataDir)).toBe(isRoot ? 0o710 : 0o700);
      expect(server.serverUrl).toBe(`postgresql://postgres:${password}@127.0.0.1:${port}/postgres`);
      expect(embeddedDatabaseUrl(dataDir, port, 'pcs')).toBe(`postgresql://postgres:${password}@127.0.0.1:${port}/pcs`);
      expect(await tryPassword(port, password)).toBe(true);
      expect(await tryPassword(port, 'postgres')).toBe('28P01'); // invalid_password
    } finally {
      await server.stop();
    }
    // Restarted, it keeps the same password.
    const again = await startEmbeddedPostgres({ directory: dataDir, port });
    try {
      expect(await tryPassword(port, readFileSync(path.join(dataDir, 'postgres-password'), 'utf8').trim())).toBe(true);
    } finally {
      await again.stop();
    }
  });

  it('switches a data directory made with the old fixed password to a random one on its first start', async () => {
    const dataDir = newDataDir('legacy');
    const port = await freePort();
    // What earlier versions left behind: a cluster whose superuser password is "postgres", no password file.
    const before = await startEmbeddedPostgres({ directory: dataDir, port });
    const admin = new pg.Client({ connectionString: before.serverUrl });
    await admin.connect();
    await admin.query(`ALTER ROLE postgres PASSWORD 'postgres'`);
    await admin.end();
    await before.stop();
    rmSync(path.join(dataDir, 'postgres-password'));

    const after = await startEmbeddedPostgres({ directory: dataDir, port });
    try {
      const password = readFileSync(path.join(dataDir, 'postgres-password'), 'utf8').trim();
      expect(password).not.toBe('postgres');
      expect(await tryPassword(port, password)).toBe(true);
      expect(await tryPassword(port, 'postgres')).toBe('28P01');
    } finally {
      await after.stop();
    }
  });

  it('says so, in one sentence, when the stored password is not the one of the data directory', async () => {
    const dataDir = newDataDir('mismatch');
    const port = await freePort();
    await (await startEmbeddedPostgres({ directory: dataDir, port })).stop();
    // Someone replaced the password file by hand.
    writeFileSync(path.join(dataDir, 'postgres-password'), 'not-the-password-of-this-cluster-0123456789', { mode: 0o600 });
    await expect(startEmbeddedPostgres({ directory: dataDir, port })).rejects.toThrow(/does not accept the password in .*postgres-password/);
    expect(await tryPassword(port, 'postgres')).not.toBe(true); // and it was stopped again
  });

  it('runs PostgreSQL binaries kept in a private (0700) directory, as in a clone made with mktemp -d by root', async () => {
    const privateClone = mkdtempSync(path.join(scratch, 'clone-'));
    expect(mode(privateClone)).toBe(0o700);
    const installation = path.join(privateClone, 'node_modules', 'postgres');
    mkdirSync(path.dirname(installation), { recursive: true });
    cpSync(await defaultInstallation(), installation, { recursive: true, verbatimSymlinks: true });

    const dataDir = newDataDir('private-binaries');
    const port = await freePort();
    const server = await startEmbeddedPostgres({ directory: dataDir, port, installation });
    try {
      // As root, a copy the postgres user can reach runs (and is kept for the next start).
      expect(existsSync(path.join(dataDir, 'postgres-installation', 'bin', 'postgres'))).toBe(isRoot);
      const client = new pg.Client({ connectionString: server.serverUrl });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
    } finally {
      await server.stop();
    }
  });

  it('as root, refuses a DATA_DIR the postgres user cannot reach with one sentence saying what to do (others: starts)', async () => {
    const privateParent = mkdtempSync(path.join(scratch, 'private-'));
    const dataDir = path.join(privateParent, 'data');
    const port = await freePort();
    const starting = startEmbeddedPostgres({ directory: dataDir, port });
    if (isRoot) {
      await expect(starting).rejects.toThrow(
        new RegExp(`cannot enter ${privateParent.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: set DATA_DIR to a directory it can reach`),
      );
      expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(false);
    } else {
      await (await starting).stop();
    }
  });
});
