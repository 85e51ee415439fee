// Zero-setup start (issue "Must show" 1), end to end: the real server entry with no
// DATABASE_URL boots an embedded PostgreSQL in DATA_DIR, answers /api/health, shuts down
// cleanly on SIGTERM and on a terminal's Ctrl-C (exit 0, PostgreSQL stopped, no error logged),
// and keeps its data across a restart; and
// the refusals of a production start without a database or with placeholder secrets.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from './global-setup.js';
import { ROOT, type ServerProcess, startServer, TSX_SERVER } from './helpers/server-process.js';

// DATA_DIR is a new folder in a shared one (as in /var/lib, or a clone's .data): run as root,
// PostgreSQL runs as the `postgres` user, which must be able to pass through the shared one.
const shared = mkdtempSync(path.join(tmpdir(), 'pcs-server-test-'));
chmodSync(shared, 0o755);
const dataDir = path.join(shared, 'data');
let running: ServerProcess | undefined;

afterAll(async () => {
  await running?.stop();
  rmSync(shared, { recursive: true, force: true });
});

const start = (postgresPort: number) =>
  startServer(TSX_SERVER, {
    DATA_DIR: dataDir,
    EMBEDDED_POSTGRES_PORT: String(postgresPort),
    LOG_LEVEL: 'info',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
  });

/** Everything a child writes, stdout and stderr; resolves once `text` is in it (or the child exited). */
async function outputUntil(child: ChildProcess, text: string): Promise<() => string> {
  let output = '';
  await new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes(text)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', () => resolve());
  });
  return () => output;
}

/** `npm run worker` beside the server; resolves once it has started (or exited). */
async function startWorker(postgresPort: number, workerDataDir: string): Promise<{ process: ChildProcess; output: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), DATA_DIR: workerDataDir, EMBEDDED_POSTGRES_PORT: String(postgresPort) };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/jobs/worker.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return { process: child, output: (await outputUntil(child, 'export worker started'))() };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

const isListening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket.end() && true));
    socket.once('error', () => resolve(false));
  });

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

it('starts with no DATABASE_URL, stops cleanly on SIGTERM and keeps its data across a restart', async () => {
  const postgresPort = await freePort();
  const account = { email: 'restart@example.com', password: 'survives restarts', name: 'Restart' };

  const first = (running = await start(postgresPort));
  expect(first.output()).toContain(`/api/docs`);
  // DATA_DIR is private (as root, the postgres group may pass through it: 0710); so is the
  // embedded PostgreSQL's random password.
  expect(statSync(dataDir).mode & 0o067).toBe(0);
  expect(statSync(path.join(dataDir, 'postgres-password')).mode & 0o777).toBe(0o600);
  const registered = await post(`${first.base}/auth/register`, account);
  expect(registered.status).toBe(201);
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const game = await fetch(`${first.base}/games`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: 'Kept' }),
  });
  expect(game.status).toBe(201);

  // `npm run worker` joins this embedded PostgreSQL with the password kept in DATA_DIR.
  const worker = await startWorker(postgresPort, dataDir);
  expect(worker.output).toContain('export worker started');
  expect(await stop(worker.process)).toBe(0);

  expect(await first.stop()).toBe(0);
  expect(await isListening(postgresPort)).toBe(false);

  const second = (running = await start(postgresPort));
  const login = await post(`${second.base}/auth/login`, { email: account.email, password: account.password });
  expect(login.status).toBe(200);
  // The session from before the restart is still valid (its key is kept in DATA_DIR too).
  const games = (await (await fetch(`${second.base}/games`, { headers: { cookie } })).json()) as { data: Array<{ name: string }> };
  expect(games.data.map((g) => g.name)).toEqual(['Kept']);
  // Ctrl-C in a terminal signals the whole process group: PostgreSQL is still stopped after the
  // app (not by the signal under the export queue's connections), so nothing is logged as an error.
  expect(await second.stop('SIGINT', { group: true })).toBe(0);
  expect(await isListening(postgresPort)).toBe(false);
  expect(second.output()).toContain('"msg":"shut down"');
  expect(second.output()).not.toMatch(/"level":(50|60)/);
  expect(second.output()).not.toContain('57P01'); // "terminating connection due to administrator command"
}, 150_000);

it('stops its embedded PostgreSQL when a Ctrl-C comes while it is still starting', async () => {
  const postgresPort = await freePort();
  // A process group of its own, as a terminal's foreground job.
  const child = await spawnServerEntry({ EMBEDDED_POSTGRES_PORT: String(postgresPort) }, { detached: true });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // Right after PostgreSQL is up, before migrations and the app: the terminal's Ctrl-C reaches the
  // whole foreground group, which PostgreSQL is not part of.
  const output = await outputUntil(child, 'embedded PostgreSQL started');
  process.kill(-child.pid!, 'SIGINT');
  expect(await exited).toBe(1);
  expect(output()).toContain('SIGINT received while starting');
  await expect.poll(() => isListening(postgresPort), { timeout: 10_000 }).toBe(false);
}, 60_000);

/** The server entry on free ports with DATA_DIR and `env`, its output piped. */
async function spawnServerEntry(env: Record<string, string>, options: { detached?: boolean } = {}): Promise<ChildProcess> {
  return spawn(process.execPath, TSX_SERVER, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  });
}

/** Runs the server entry with `env` and returns how it ended, without waiting for a port. */
async function refusedStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = await spawnServerEntry(env);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // A server that starts after all is stopped, and the test fails on its exit code.
  const started = setTimeout(() => child.kill('SIGTERM'), 20_000);
  const code = await exited;
  clearTimeout(started);
  return { code, output };
}

it('refuses to start in production without DATABASE_URL, or with placeholder secrets, saying what to set', async () => {
  const withoutDatabase = await refusedStart({ NODE_ENV: 'production', JWT_SECRET: 'k'.repeat(20) + 'q'.repeat(20), STORAGE_SIGNING_SECRET: 'a1b2'.repeat(10) });
  expect(withoutDatabase.code).toBe(1);
  expect(withoutDatabase.output).toMatch(/^Could not start: Invalid configuration:\n\s+DATABASE_URL: required when NODE_ENV=production/);
  expect(withoutDatabase.output).not.toMatch(/\n\s+at /); // a message, not a stack trace

  const placeholders = await refusedStart({
    NODE_ENV: 'production',
    DATABASE_URL: 'postgresql://pcs:pcs@127.0.0.1:1/pcs',
    JWT_SECRET: 'change-me-change-me-change-me-change-me',
    S3_BUCKET: 'playables',
    S3_ACCESS_KEY_ID: 'minioadmin',
    S3_SECRET_ACCESS_KEY: 'minioadmin',
  });
  expect(placeholders.code).toBe(1);
  for (const variable of ['JWT_SECRET', 'S3_SECRET_ACCESS_KEY', 'DATABASE_URL']) expect(placeholders.output).toContain(`  ${variable}: `);

  // A worker started before any API has no embedded PostgreSQL to join, and says so.
  const lonelyWorker = await startWorker(await freePort(), path.join(shared, 'no-api-here'));
  const code = await new Promise((resolve) =>
    lonelyWorker.process.exitCode !== null ? resolve(lonelyWorker.process.exitCode) : lonelyWorker.process.once('exit', resolve),
  );
  expect(code).toBe(1);
  expect(lonelyWorker.output).toMatch(/^Could not start the export worker: No embedded PostgreSQL in .*start the API \(npm start\) first, or set DATABASE_URL\n$/);
}, 60_000);
