// Security headers, CORS for the web app, and the refusal of cookie-authenticated writes from
// a foreign Origin (CONTRACT §3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';

const WEB_APP = 'https://app.example.com';
const FOREIGN = 'https://evil.example';

let t: TestApp;
let alice: RegisteredUser;

beforeAll(async () => {
  t = await createTestApp({ WEB_APP_ORIGINS: `${WEB_APP}, https://admin.example.com` });
  alice = await t.register();
});
afterAll(() => t.close());

describe('security headers', () => {
  it('lets nothing run, load or frame from an API response', async () => {
    const res = await t.as(alice).get('/games');
    expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['cross-origin-resource-policy']).toBe('same-site');
  });

  it('sends them on errors too: a refusal, an unknown route, a URL the router cannot decode', async () => {
    const responses = [await t.as(null).get('/games'), await t.as(alice).get('/no-such-route'), await t.as(alice).get('/games/%E0%A4%A')];
    expect(responses.map((res) => res.statusCode)).toEqual([401, 404, 400]);
    for (const res of responses) {
      expect(res.headers['content-security-policy'], res.body).toBe("default-src 'none';frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['api-version']).toBe('1');
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });

  it("sends OWASP's headers for API responses, not those meant for HTML pages or old browsers", async () => {
    const res = await t.as(alice).get('/games');
    for (const header of [
      'cross-origin-opener-policy',
      'origin-agent-cluster',
      'x-dns-prefetch-control',
      'x-download-options',
      'x-permitted-cross-domain-policies',
      'x-xss-protection',
    ]) {
      expect(res.headers[header], header).toBeUndefined();
    }
  });

  it('gives the docs page a policy that allows its own scripts and styles', async () => {
    const page = await t.inject({ method: 'GET', url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).toMatch(/style-src 'self'/);
    expect(csp).not.toMatch(/upgrade-insecure-requests/);
    const script = await t.inject({ method: 'GET', url: '/api/docs/static/swagger-initializer.js' });
    expect(script.statusCode).toBe(200);
  });
});

describe('CORS', () => {
  it('answers a preflight from the web app with credentials allowed', async () => {
    const res = await t.inject({
      method: 'OPTIONS',
      url: '/api/games',
      headers: { origin: WEB_APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(WEB_APP);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(String(res.headers['access-control-allow-methods'])).toContain('PATCH');
    expect(String(res.headers['access-control-allow-headers'])).toMatch(/Authorization/);
  });

  it('lets the web app read responses and the rate-limit headers', async () => {
    const res = await t.as(alice).get('/games', { origin: 'https://admin.example.com' });
    expect(res.headers['access-control-allow-origin']).toBe('https://admin.example.com');
    expect(String(res.headers['access-control-expose-headers'])).toContain('X-RateLimit-Remaining');
  });

  it('refuses an OPTIONS that is no preflight with 400 and the error body', async () => {
    for (const headers of [{}, { origin: WEB_APP }, { 'access-control-request-method': 'POST' }]) {
      const res = await t.inject({ method: 'OPTIONS', url: '/api/games', headers });
      expect(expectError(res, 400, 'VALIDATION_ERROR').message).toMatch(/Access-Control-Request-Method/);
    }
  });

  it('is off without WEB_APP_ORIGINS: no CORS header, and a preflight finds no route', async () => {
    const plain = await createTestApp();
    try {
      const user = await plain.register();
      const res = await plain.as(user).get('/games', { origin: WEB_APP });
      expect(res.statusCode).toBe(200);
      expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-') || name === 'vary')).toEqual([]);
      const preflight = await plain.inject({
        method: 'OPTIONS',
        url: '/api/games',
        headers: { origin: WEB_APP, 'access-control-request-method': 'POST' },
      });
      expectError(preflight, 404, 'RESOURCE_NOT_FOUND');
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it('grants nothing to another origin', async () => {
    const preflight = await t.inject({
      method: 'OPTIONS',
      url: '/api/games',
      headers: { origin: FOREIGN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const res = await t.as(alice).get('/games', { origin: FOREIGN });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('cookie-authenticated writes from a foreign Origin', () => {
  it('are refused with 403 and change nothing', async () => {
    const res = await t.as(alice).post('/games', { name: 'Forged' }, { origin: FOREIGN });
    expectError(res, 403, 'INSUFFICIENT_PERMISSIONS');
    expect(res.json().message).toMatch(/Cross-origin/);
    const del = await t.as(alice).post('/auth/logout', undefined, { origin: FOREIGN });
    expectError(del, 403, 'INSUFFICIENT_PERMISSIONS');
    expect(await t.sql('SELECT 1 FROM games WHERE name = $1', ['Forged'])).toHaveLength(0);
    expect((await t.as(alice).get('/auth/me')).statusCode).toBe(200);
  });

  it('are accepted from the web app, the service itself, or without Origin; reads are never refused', async () => {
    expect((await t.as(alice).post('/games', { name: 'From the app' }, { origin: WEB_APP })).statusCode).toBe(201);
    expect((await t.as(alice).post('/games', { name: 'From the docs' }, { origin: 'http://localhost:3000' })).statusCode).toBe(201);
    expect((await t.as(alice).post('/games', { name: 'From curl' })).statusCode).toBe(201);
    expect((await t.as(alice).get('/games', { origin: FOREIGN })).statusCode).toBe(200);
  });

  it('do not concern bearer credentials, which a foreign page cannot send on its own', async () => {
    const token = await t.createToken(alice, ['games:write']);
    expect((await t.as(token).post('/games', { name: 'Script' }, { origin: FOREIGN })).statusCode).toBe(201);
  });
});
