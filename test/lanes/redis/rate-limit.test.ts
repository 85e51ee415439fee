// CONTRACT §7 with REDIS_URL: instances share one budget; a Redis that goes away is survived,
// and readiness reports it without taking the instance out of service.
import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../global-setup.js';
import { createTestApp, type RegisteredUser, type TestApp } from '../../helpers/app.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONTRACT_LIMITS = { RATE_LIMIT_STANDARD_MAX: '100', RATE_LIMIT_SENSITIVE_MAX: '20', RATE_LIMIT_EXPORT_MAX: '10' };

let t: TestApp;
let alice: RegisteredUser;

beforeAll(async () => {
  t = await createTestApp({ ...CONTRACT_LIMITS, REDIS_URL });
  alice = await t.register();
});
afterAll(() => t.close());

describe('two instances against one Redis', () => {
  it('share one standard budget: 60 + 41 requests get exactly one 429, the last', async () => {
    const other = await t.anotherInstance();
    const token = await t.createToken(alice, ['games:read']);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await t.as(token).get('/games')).statusCode);
    for (let i = 0; i < 41; i++) statuses.push((await other.as(token).get('/games')).statusCode);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(statuses.at(-1)).toBe(429);
  });

  it('share one sliding sensitive budget, also under concurrent requests', async () => {
    const other = await t.anotherInstance();
    const bob = await t.register();
    const create = (app: TestApp | typeof other, i: number) => app.as(bob).post('/tokens', { name: `t${i}`, scopes: ['games:read'] });
    const responses = await Promise.all(Array.from({ length: 25 }, (_, i) => create(i % 2 ? t : other, i)));
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });
});

describe('a Redis that goes away', () => {
  let server: ChildProcess | undefined;
  const startRedis = async (port: number) => {
    server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const probe = new Redis(port, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined); // refused while the server starts; connect() reports it
    for (let attempt = 0; ; attempt++) {
      try {
        await probe.connect();
        await probe.quit();
        return;
      } catch (error) {
        if (attempt > 50) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const stopRedis = async () => {
    const exited = new Promise((r) => server!.once('exit', r));
    server!.kill('SIGKILL');
    await exited;
    server = undefined;
  };
  afterAll(async () => {
    if (server) await stopRedis();
  });

  it('fails open: requests are served while it is down, and counted again once it is back', async () => {
    const port = await freePort();
    await startRedis(port);
    const instance = await t.anotherInstance({ REDIS_URL: `redis://127.0.0.1:${port}` });
    const caller = { headers: { authorization: `Bearer ${(await t.createToken(alice, ['games:read'])).token}` } };
    const remaining = async () => Number((await instance.as(caller).get('/games')).headers['x-ratelimit-remaining']);
    const readiness = async () => {
      const res = await instance.as(null).get('/health/ready');
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    expect(await remaining()).toBe(99);
    expect(await remaining()).toBe(98);
    expect(await readiness()).toEqual({ status: 'ok', checks: { database: 'ok', objectStore: 'ok', queue: 'ok', redis: 'ok' } });

    await stopRedis();
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      const res = await instance.as(caller).get('/games');
      expect(res.statusCode).toBe(200);
    }
    expect(Date.now() - started).toBeLessThan(5 * 1_000);
    // Reported, but still ready: the rate limits fail open, the instance serves.
    expect(await readiness()).toMatchObject({ status: 'ok', checks: { database: 'ok', redis: 'unavailable' } });

    // While Redis is down nothing is counted (the headers show the full budget); once the
    // client has reconnected to the restarted, empty Redis, counting starts afresh.
    await startRedis(port);
    let seen = 100;
    for (let attempt = 0; attempt < 60 && seen === 100; attempt++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await remaining();
    }
    expect(seen).toBe(99);
    expect((await readiness()).checks.redis).toBe('ok');
  });
});
