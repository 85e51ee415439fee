// SIGTERM against the real server process (src/server.ts): under load, requests already in
// flight complete, no new ones are accepted, and the process exits 0; a shutdown that cannot
// finish is cut short after SHUTDOWN_TIMEOUT_SECONDS with exit code 1.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENV } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type ServerProcess, startServer, TSX_SERVER } from '../helpers/server-process.js';

const SLOW_LOGINS = 8;

let database: TestDatabase;
let dataDir: string;
let server: ServerProcess;
let base: string;

/** The server with the test's database; `env` adds to or overrides the settings. */
const start = (env: Record<string, string> = {}) =>
  startServer(TSX_SERVER, {
    ...TEST_ENV,
    // Request logs tell the test which requests the server has received.
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    ...env,
  });

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = mkdtempSync(path.join(tmpdir(), 'pcs-shutdown-'));
  // A costly hash keeps each login in flight for a while.
  server = await start({ ARGON2_MEMORY_KIB: String(64 * 1024), ARGON2_TIME_COST: '3' });
  base = server.base;
});

afterAll(async () => {
  await server.stop('SIGKILL');
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const received = (url: string) =>
  server
    .output()
    .split('\n')
    .filter((line) => line.includes('"incoming request"') && line.includes(`"url":"${url}"`)).length;

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
      if (Date.now() - started > 10_000) throw new Error(`logins never reached the server:\n${server.output()}`);
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
    const exited = server.stop('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));

    // New connections (fetch could reuse a kept-alive one) stop being served within moments: a
    // busy machine may take a while to deliver the signal.
    const connectAttempt = () =>
      new Promise<string>((resolve) => {
        const socket = connect(server.port, '127.0.0.1');
        socket.once('connect', () => resolve(socket.end() && 'connected'));
        socket.once('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message));
      });
    let late = await connectAttempt();
    for (const started = Date.now(); late === 'connected' && Date.now() - started < 5_000; ) {
      await new Promise((r) => setTimeout(r, 50));
      late = await connectAttempt();
    }
    const results = await Promise.all(logins);
    const code = await exited;
    loading = false;
    await Promise.all(loops);

    expect(results.map((r) => r.status)).toEqual(Array(SLOW_LOGINS).fill(200));
    for (const { body } of results) expect(body).toMatchObject({ user: { email: credentials.email } });
    // Refused, or reset when it reached the backlog just as the listener closed.
    expect(['ECONNREFUSED', 'ECONNRESET']).toContain(late);
    expect(background).toEqual([]);
    expect(code).toBe(0);
  });
});

describe('a shutdown that cannot finish', () => {
  it('exits 1 after SHUTDOWN_TIMEOUT_SECONDS, saying so', async () => {
    const stuck = await start({ SHUTDOWN_TIMEOUT_SECONDS: '1' });
    try {
      // A request whose body never finishes keeps app.close() waiting (Node's own request
      // timeout is 5 minutes).
      const socket = connect(stuck.port, '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('POST /api/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email"');
      for (const started = Date.now(); !stuck.output().includes('"url":"/api/auth/login"'); ) {
        if (Date.now() - started > 10_000) throw new Error(`the request never reached the server:\n${stuck.output()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const started = Date.now();
      const code = await stuck.stop('SIGTERM');
      expect(code).toBe(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      const lines = stuck
        .output()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'shutdown timed out; exiting with work unfinished', timeoutSeconds: 1 }));
      socket.destroy();
    } finally {
      await stuck.stop('SIGKILL');
    }
  });
});
