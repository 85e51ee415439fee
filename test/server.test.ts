// Zero-setup start (issue "Must show" 1), end to end: the real server entry with no
// DATABASE_URL boots an embedded PostgreSQL in DATA_DIR, answers /api/health, shuts down
// cleanly on SIGTERM (exit 0, PostgreSQL stopped), and keeps its data across a restart.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from './global-setup.js';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'pcs-server-test-'));
// Run as root, PostgreSQL runs as the `postgres` user, which must be able to enter DATA_DIR.
chmodSync(dataDir, 0o755);
let running: ChildProcess | undefined;

afterAll(async () => {
  if (running && running.exitCode === null) await stop(running);
  rmSync(dataDir, { recursive: true, force: true });
});

interface Server {
  process: ChildProcess;
  base: string;
  output: () => string;
}

async function start(port: number, postgresPort: number): Promise<Server> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    EMBEDDED_POSTGRES_PORT: String(postgresPort),
    LOG_LEVEL: 'warn',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running = child;
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const base = `http://127.0.0.1:${port}/api`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    const healthy = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (healthy) return { process: child, base, output: () => output };
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no answer from /api/health within 60 s:\n${output}`);
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

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

it('starts with no DATABASE_URL, stops cleanly on SIGTERM and keeps its data across a restart', async () => {
  const [port, postgresPort] = [await freePort(), await freePort()];
  const account = { email: 'restart@example.com', password: 'survives restarts', name: 'Restart' };

  const first = await start(port, postgresPort);
  expect(first.output()).toContain(`/api/docs`);
  const registered = await post(`${first.base}/auth/register`, account);
  expect(registered.status).toBe(201);
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const game = await fetch(`${first.base}/games`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: 'Kept' }),
  });
  expect(game.status).toBe(201);

  expect(await stop(first.process)).toBe(0);
  expect(await isListening(postgresPort)).toBe(false);

  const second = await start(port, postgresPort);
  const login = await post(`${second.base}/auth/login`, { email: account.email, password: account.password });
  expect(login.status).toBe(200);
  // The session from before the restart is still valid (its key is kept in DATA_DIR too).
  const games = (await (await fetch(`${second.base}/games`, { headers: { cookie } })).json()) as { data: Array<{ name: string }> };
  expect(games.data.map((g) => g.name)).toEqual(['Kept']);
  expect(await stop(second.process)).toBe(0);
  expect(await isListening(postgresPort)).toBe(false);
}, 150_000);
