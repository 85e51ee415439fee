// CONTRACT §7: the three tiers, who is counted, the headers, and the 429.
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './global-setup.js';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';
import { createSampleVariant } from './helpers/exports.js';

/** The contract's limits (the shared test settings raise them for every other test file). */
const CONTRACT_LIMITS = {
  RATE_LIMIT_STANDARD_MAX: '100',
  RATE_LIMIT_SENSITIVE_MAX: '20',
  RATE_LIMIT_EXPORT_MAX: '10',
};

function limitHeaders(res: LightMyRequestResponse) {
  const number = (name: string) => (res.headers[name] === undefined ? undefined : Number(res.headers[name]));
  return {
    limit: number('x-ratelimit-limit'),
    remaining: number('x-ratelimit-remaining'),
    reset: number('x-ratelimit-reset'),
    retryAfter: number('retry-after'),
  };
}

function expectRateLimited(res: LightMyRequestResponse, limit: number) {
  expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
  const headers = limitHeaders(res);
  expect(headers).toMatchObject({ limit, remaining: 0 });
  expect(headers.reset).toBeGreaterThan(0);
  expect(headers.retryAfter).toBe(headers.reset);
  return headers;
}

/** A clock the test moves by hand; starts 40 s into a minute so that windows cross a minute boundary. */
const clock = { now: Date.parse('2030-01-01T12:00:40.000Z') };

let t: TestApp;
let alice: RegisteredUser;

beforeAll(async () => {
  t = await createTestApp(CONTRACT_LIMITS, { now: () => clock.now });
  alice = await t.register();
});
afterAll(() => t.close());

describe('standard tier (100 per minute, fixed window)', () => {
  it('lets 100 requests of a token through and refuses the 101st with the four headers; another token still passes', async () => {
    const first = await t.createToken(alice, ['games:read']);
    const second = await t.createToken(alice, ['games:read']);

    for (let i = 1; i <= 100; i++) {
      const res = await t.as(first).get('/games');
      expect(res.statusCode).toBe(200);
      const headers = limitHeaders(res);
      expect(headers).toMatchObject({ limit: 100, remaining: 100 - i, retryAfter: undefined });
      expect(headers.reset).toBeGreaterThanOrEqual(1);
      expect(headers.reset).toBeLessThanOrEqual(60);
    }
    const refused = await t.as(first).get('/games');
    expectRateLimited(refused, 100);
    expect(refused.json().message).toMatch(/Rate limit exceeded/);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);

    const other = await t.as(second).get('/games');
    expect(other.statusCode).toBe(200);
    expect(limitHeaders(other)).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('counts a session user across cookie and bearer use, apart from their tokens', async () => {
    const bob = await t.register();
    await t.as(bob).get('/games');
    const viaBearer = await t.inject({ method: 'GET', url: '/api/games', headers: { authorization: `Bearer ${bob.cookie}` } });
    expect(limitHeaders(viaBearer)).toMatchObject({ limit: 100, remaining: 98 });
  });

  it('counts unauthenticated and refused requests per client IP, with the headers on the 401', async () => {
    const fromIp = (remoteAddress: string, authorization = 'Bearer pcs_not-a-real-token') =>
      t.inject({ method: 'GET', url: '/api/games', remoteAddress, headers: { authorization } });
    for (let i = 1; i <= 100; i++) {
      const res = await fromIp('203.0.113.7');
      expectError(res, 401, 'AUTHENTICATION_REQUIRED');
      expect(limitHeaders(res)).toMatchObject({ limit: 100, remaining: 100 - i });
    }
    expectRateLimited(await fromIp('203.0.113.7'), 100);
    // Public endpoints share the IP's standard budget…
    expectRateLimited(await t.inject({ method: 'GET', url: '/api/openapi.json', remoteAddress: '203.0.113.7' }), 100);
    // …and another address has its own.
    expect(limitHeaders(await fromIp('203.0.113.8'))).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('counts unknown /api routes and the docs page like any other request: against the token, else per client IP', async () => {
    const token = await t.createToken(alice, ['games:read']);
    await t.as(token).get('/games');
    const typo = await t.as(token).get('/gmaes');
    expectError(typo, 404, 'RESOURCE_NOT_FOUND');
    expect(limitHeaders(typo)).toMatchObject({ limit: 100, remaining: 98 });

    const anonymous = (url: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url, remoteAddress: '203.0.113.9', headers });
    for (let i = 1; i <= 100; i++) {
      // A refused credential on an unknown route is still a 404, counted against the address.
      const res = i % 2 ? await anonymous('/api/nowhere', { authorization: 'Bearer pcs_not-a-real-token' }) : await anonymous('/api/docs');
      expect(res.statusCode).toBe(i % 2 ? 404 : 200);
      expect(limitHeaders(res)).toMatchObject({ limit: 100, remaining: 100 - i });
    }
    expectRateLimited(await anonymous('/api/nowhere'), 100);
    expectRateLimited(await anonymous('/api/docs'), 100);
    // The token's budget is its own.
    expect(limitHeaders(await t.as(token).get('/games'))).toMatchObject({ limit: 100, remaining: 97 });
  });

  it('does not limit the health endpoints', async () => {
    for (const url of ['/api/health', '/api/health/ready']) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(limitHeaders(res)).toEqual({ limit: undefined, remaining: undefined, reset: undefined, retryAfter: undefined });
    }
  });
});

describe('sensitive tier (20 per minute, sliding window)', () => {
  const login = (user: RegisteredUser, remoteAddress: string) =>
    t.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { email: user.user.email, password: user.password } });

  it('refuses the 21st login within a minute, also across a minute boundary, until a slot frees', async () => {
    const carol = await t.register();
    const ip = '198.51.100.20';
    const start = clock.now; // 12:00:40

    for (let i = 1; i <= 10; i++) {
      const res = await login(carol, ip);
      expect(res.statusCode).toBe(200);
      expect(limitHeaders(res)).toMatchObject({ limit: 20, remaining: 20 - i, reset: 60 });
    }
    clock.now = start + 15_000; // 12:00:55
    for (let i = 11; i <= 20; i++) {
      const res = await login(carol, ip);
      expect(res.statusCode).toBe(200);
      // The oldest request leaves the window at 12:01:40: a slot frees in 45 s.
      expect(limitHeaders(res)).toMatchObject({ limit: 20, remaining: 20 - i, reset: 45 });
    }
    expect(expectRateLimited(await login(carol, ip), 20).retryAfter).toBe(45);

    // A fixed one-minute window would have started afresh at 12:01:00; the sliding one has not.
    clock.now = start + 21_000; // 12:01:01
    expect(expectRateLimited(await login(carol, ip), 20).retryAfter).toBe(39);

    // 12:01:40 and a millisecond: the first ten have left the window, the other ten have not.
    clock.now = start + 60_001;
    for (let i = 1; i <= 10; i++) expect((await login(carol, ip)).statusCode).toBe(200);
    expect(expectRateLimited(await login(carol, ip), 20).retryAfter).toBe(15);
  });

  it('counts every sensitive endpoint in one budget per caller, apart from the standard tier', async () => {
    const dave = await t.register();
    const created = await t.as(dave).post('/tokens', { name: 'ci', scopes: ['games:read'] });
    expect(created.statusCode).toBe(201);
    expect(limitHeaders(created)).toMatchObject({ limit: 20, remaining: 19 });
    const revoked = await t.as(dave).delete(`/tokens/${created.json().id}`);
    expect(revoked.statusCode).toBe(204);
    expect(limitHeaders(revoked)).toMatchObject({ limit: 20, remaining: 18 });
    const refreshed = await t.as(dave).post('/auth/refresh');
    expect(limitHeaders(refreshed)).toMatchObject({ limit: 20, remaining: 17 });

    const standard = await t.as(dave).get('/games');
    expect(limitHeaders(standard)).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('counts a password change in the standard tier, which CONTRACT §7 does not list as sensitive (its guesses count towards the account lockout)', async () => {
    const frank = await t.register();
    const changed = await t.as(frank).post('/auth/password', { currentPassword: frank.password, newPassword: 'a brand new password' });
    expect(changed.statusCode).toBe(204);
    expect(limitHeaders(changed)).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('puts register, login, refresh, tokens and member invitations in the sensitive tier', async () => {
    const erin = await t.register();
    const member = await t.register();
    const invited = await t.as(erin).post(`/organizations/${erin.organization.id}/members`, { email: member.user.email, role: 'member' });
    expect(invited.statusCode).toBe(201);
    expect(limitHeaders(invited).limit).toBe(20);
    const registered = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      remoteAddress: '198.51.100.99',
      payload: { email: 'fresh@example.com', password: 'long enough password', name: 'Fresh' },
    });
    expect(registered.statusCode).toBe(201);
    expect(limitHeaders(registered)).toMatchObject({ limit: 20, remaining: 19 });
  });

  it('counts /auth/oidc/* there even where OpenID Connect is not configured (its 404)', async () => {
    for (const [i, url] of ['/api/auth/oidc/login', '/api/auth/oidc/callback?code=x&state=y'].entries()) {
      const res = await t.inject({ method: 'GET', url, remoteAddress: '198.51.100.77' });
      expectError(res, 404, 'RESOURCE_NOT_FOUND');
      expect(limitHeaders(res)).toMatchObject({ limit: 20, remaining: 19 - i });
    }
  });
});

describe('export tier (10 per 5 minutes, fixed window)', () => {
  it('refuses the 11th POST /export in 5 minutes, without touching the standard budget', async () => {
    const { variant } = await createSampleVariant(t, alice, { name: 'Exported often' });
    const exporter = await t.createToken(alice, ['exports:write', 'games:read']);
    const exportIt = () => t.as(exporter).post('/export', { variantId: variant.id, network: 'applovin' });
    for (let i = 1; i <= 10; i++) {
      const res = await exportIt();
      expect(res.statusCode).toBe(202);
      expect(limitHeaders(res)).toMatchObject({ limit: 10, remaining: 10 - i });
      expect(limitHeaders(res).reset).toBeGreaterThan(290);
      expect(limitHeaders(res).reset).toBeLessThanOrEqual(300);
    }
    const refused = expectRateLimited(await exportIt(), 10);
    expect(refused.retryAfter).toBeGreaterThan(290);
    expect(limitHeaders(await t.as(exporter).get('/games'))).toMatchObject({ limit: 100, remaining: 99 });
  });
});

describe('REDIS_URL pointing at no Redis', () => {
  it('fails open: requests are served, without waiting for Redis', async () => {
    const instance = await t.anotherInstance({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect((await instance.as(alice).get('/games')).statusCode).toBe(200);
    const login = await instance.as(null).post('/auth/login', { email: alice.user.email, password: alice.password });
    expect(login.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('a client that hangs up while its credential is looked up', () => {
  it('leaves the server up: no unhandled rejection, and the next request is served', async () => {
    const served = await createTestApp(CONTRACT_LIMITS, { listen: true });
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const { port } = served.app.server.address() as AddressInfo;
      // An unknown token is looked up in the database; the connection is reset meanwhile, so the
      // refusal is counted for a client whose address is gone.
      for (let i = 0; i < 5; i++) {
        const socket = net.connect({ host: '127.0.0.1', port });
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write(`GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer pcs_${'x'.repeat(43)}\r\n\r\n`);
        socket.resetAndDestroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(rejections).toEqual([]);
      const user = await served.register();
      expect((await served.as(user).get('/games')).statusCode).toBe(200);
    } finally {
      process.off('unhandledRejection', onRejection);
      await served.close();
    }
  });
});
