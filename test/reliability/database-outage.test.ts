// PostgreSQL stopped under load: every request that needs it gets 503 SERVICE_UNAVAILABLE
// with the contract's body (never a 500, never a crash), and the service recovers by itself
// within seconds once PostgreSQL is back. Runs its own embedded PostgreSQL so it can stop it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedDatabase, ensureDatabase, startEmbeddedPostgres } from '../../src/db/embedded.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { freePort } from '../global-setup.js';
import { type Caller, createTestApp, type TestApp } from '../helpers/app.js';

const RECOVERY_LIMIT_MS = 10_000;

let dataDir: string;
let port: number;
let postgres: EmbeddedDatabase | undefined;
let t: TestApp;
let callers: Caller[];

const startPostgres = async () => {
  postgres = await startEmbeddedPostgres({ directory: dataDir, port });
  return postgres;
};

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'pcs-outage-pg-'));
  port = await freePort();
  const server = await startPostgres();
  await ensureDatabase(server.serverUrl, 'outage');
  const url = server.databaseUrl('outage');
  await applyMigrations(url);
  t = await createTestApp({}, { database: { url, drop: async () => {} } });
  const alice = await t.register();
  const token = await t.createToken(alice, ['games:read', 'games:write']);
  await t.as(token).post('/games', { name: 'Survivor' });
  callers = [alice, token];
});

afterAll(async () => {
  await t?.close();
  await postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Sends GET /games from every caller, `concurrency` at a time, until `stop()` says so. */
function load(concurrency: number) {
  const statuses: number[] = [];
  const bad: string[] = [];
  let running = true;
  const worker = async (i: number) => {
    while (running) {
      const res = await t.as(callers[i % callers.length]!).get('/games');
      statuses.push(res.statusCode);
      const body = res.json();
      const ok =
        res.statusCode === 200 || (res.statusCode === 503 && body.statusCode === 503 && body.error === 'SERVICE_UNAVAILABLE' && typeof body.message === 'string');
      if (!ok) bad.push(`${res.statusCode} ${res.body}`);
    }
  };
  const workers = Array.from({ length: concurrency }, (_, i) => worker(i));
  return {
    statuses,
    bad,
    stop: async () => {
      running = false;
      await Promise.all(workers);
    },
  };
}

describe('PostgreSQL outage under load', () => {
  it('answers 503 with the error body while the database is down, then recovers', async () => {
    const traffic = load(8);
    await new Promise((r) => setTimeout(r, 300));
    await postgres!.stop();
    const stoppedAt = traffic.statuses.length;
    await new Promise((r) => setTimeout(r, 1500));
    const duringOutage = traffic.statuses.slice(stoppedAt + 20); // requests in flight at the stop may still succeed
    expect(duringOutage.length).toBeGreaterThan(0);
    expect(duringOutage.every((s) => s === 503)).toBe(true);

    const ready = await t.as(null).get('/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ statusCode: 503, error: 'SERVICE_UNAVAILABLE' });

    await startPostgres();
    const backAt = Date.now();
    let recoveredAfter: number | undefined;
    while (Date.now() - backAt < RECOVERY_LIMIT_MS) {
      const res = await t.as(callers[0]!).get('/games');
      if (res.statusCode === 200) {
        recoveredAfter = Date.now() - backAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await traffic.stop();
    expect(recoveredAfter, 'recovered within the limit').toBeLessThan(RECOVERY_LIMIT_MS);
    expect(traffic.bad).toEqual([]);
    // Every caller works again: sessions (looked up per request) and API tokens alike.
    for (const caller of callers) expect((await t.as(caller).get('/games')).json().data[0].name).toBe('Survivor');
  });
});
