// SIGTERM under load, against the real server process (src/server.ts): requests already in
// flight complete, no new ones are accepted, and the process exits 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../global-setup.js';
import { TEST_ENV } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SLOW_LOGINS = 8;

let database: TestDatabase;
let dataDir: string;
let server: ChildProcess;
let base: string;
let output = '';

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = mkdtempSync(path.join(tmpdir(), 'pcs-shutdown-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}/api`;
  server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      ...TEST_ENV,
      // Request logs tell the test which requests the server has received.
      LOG_LEVEL: 'info',
      // A costly hash keeps each login in flight for a while.
      ARGON2_MEMORY_KIB: String(64 * 1024),
      ARGON2_TIME_COST: '3',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (chunk) => (output += chunk));
  server.stderr!.on('data', (chunk) => (output += chunk));
  for (let started = Date.now(); ; ) {
    if ((await fetch(`${base}/health`).catch(() => null))?.ok) break;
    if (server.exitCode !== null || Date.now() - started > 60_000) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

afterAll(async () => {
  if (server.exitCode === null) server.kill('SIGKILL');
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const received = (url: string) => output.split('\n').filter((line) => line.includes('"incoming request"') && line.includes(`"url":"${url}"`)).length;

describe('SIGTERM under load', () => {
  it('finishes in-flight requests, refuses new ones and exits 0', async () => {
    const credentials = { email: 'drain@example.com', password: 'correct horse battery' };
    const json = { 'content-type': 'application/json' };
    const registered = await fetch(`${base}/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ ...credentials, name: 'Drain' }) });
    expect(registered.status).toBe(201);
    const loginsBefore = received('/api/auth/login');

    const logins = Array.from({ length: SLOW_LOGINS }, () =>
      fetch(`${base}/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(credentials) }).then(
        async (res) => ({ status: res.status, body: await res.json() }),
        (error: Error & { cause?: Error }) => ({ status: 0, body: error.cause?.message ?? error.message }),
      ),
    );
    // Wait until the server has every login in hand, then ask it to stop.
    for (let started = Date.now(); received('/api/auth/login') - loginsBefore < SLOW_LOGINS; ) {
      if (Date.now() - started > 10_000) throw new Error(`logins never reached the server:\n${output}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    // Meanwhile, steady traffic on keep-alive connections.
    let loading = true;
    const background: string[] = [];
    const loop = async () => {
      while (loading) {
        const res = await fetch(`${base}/health`).catch(() => null);
        if (!res) break; // refused or closed: the server has stopped accepting
        const body = (await res.json()) as { statusCode?: number; error?: string };
        const contract503 = res.status === 503 && body.error === 'SERVICE_UNAVAILABLE' && body.statusCode === 503;
        if (res.status !== 200 && !contract503) background.push(`${res.status} ${JSON.stringify(body)}`);
      }
    };
    const loops = Array.from({ length: 4 }, loop);
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));

    const late = await fetch(`${base}/health`).then(
      (res) => `status ${res.status}`,
      (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
    );
    const results = await Promise.all(logins);
    const code = await exited;
    loading = false;
    await Promise.all(loops);

    expect(results.map((r) => r.status)).toEqual(Array(SLOW_LOGINS).fill(200));
    for (const { body } of results) expect(body).toMatchObject({ user: { email: credentials.email } });
    expect(late).toBe('ECONNREFUSED');
    expect(background).toEqual([]);
    expect(code).toBe(0);
  });
});
