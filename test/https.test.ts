// CONTRACT §6: HTTPS enforcement (301/403), HSTS, trusted proxies, and native TLS.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createTestApp, expectError, type RegisteredUser, TEST_ENV, type TestApp } from './helpers/app.js';

let t: TestApp;
let alice: RegisteredUser;

beforeAll(async () => {
  // A proxy at 10.0.0.1 is trusted; app.inject's default client address (127.0.0.1) is not.
  t = await createTestApp({ HTTPS_ENFORCE: 'true', TRUST_PROXY: '10.0.0.1' });
  // Signing up over HTTPS, as through the proxy.
  const res = await t.inject({
    method: 'POST',
    url: '/api/auth/register',
    remoteAddress: '10.0.0.1',
    headers: { 'x-forwarded-proto': 'https' },
    payload: { email: 'alice@example.com', password: 'correct horse battery', name: 'Alice' },
  });
  expect(res.statusCode).toBe(201);
  const cookie = res.cookies.find((c) => c.name === 'session')!.value;
  alice = { ...res.json(), cookie, password: '', headers: { cookie: `session=${cookie}` } };
});
afterAll(() => t.close());

const viaProxy = { remoteAddress: '10.0.0.1', headers: { 'x-forwarded-proto': 'https' } };

describe('with HTTPS enforcement on', () => {
  it('redirects a plain-HTTP GET or HEAD to the https URL with 301', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await t.inject({ method, url: '/api/games?page=2', headers: { host: 'api.example.com:8080', ...alice.headers } });
      expect(res.statusCode).toBe(301);
      expect(res.headers.location).toBe('https://api.example.com/api/games?page=2');
      expect(res.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('refuses any other plain-HTTP method with 403 and changes nothing', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/games', headers: alice.headers, payload: { name: 'Sent in clear' } });
    expectError(res, 403, 'INSUFFICIENT_PERMISSIONS');
    expect(res.json().message).toMatch(/HTTPS is required/);
    expect(await t.sql('SELECT 1 FROM games')).toHaveLength(0);
    expectError(await t.inject({ method: 'DELETE', url: '/api/tokens/x' }), 403, 'INSUFFICIENT_PERMISSIONS');
  });

  it('serves requests a trusted proxy received over HTTPS, with Strict-Transport-Security', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/games', ...viaProxy, headers: { ...viaProxy.headers, ...alice.headers }, payload: { name: 'Secure' } });
    expect(res.statusCode).toBe(201);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    const error = await t.inject({ method: 'GET', url: '/api/games/nope', ...viaProxy, headers: { ...viaProxy.headers, ...alice.headers } });
    expect(error.statusCode).toBe(404);
    expect(error.headers['strict-transport-security']).toBeDefined();
    // A scheme is case-insensitive (RFC 3986): a proxy's `HTTPS` is HTTPS.
    const upper = await t.inject({ method: 'GET', url: '/api/health', remoteAddress: viaProxy.remoteAddress, headers: { 'x-forwarded-proto': 'HTTPS' } });
    expect(upper.statusCode).toBe(200);
    expect(upper.headers['strict-transport-security']).toBeDefined();
  });

  it('ignores X-Forwarded-Proto from a client that is not a trusted proxy', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/health', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-proto': 'https' } });
    expect(res.statusCode).toBe(301);
  });

  it('redirects to PUBLIC_URL when that is an https address', async () => {
    const other = await t.anotherInstance({ PUBLIC_URL: 'https://api.example.com' });
    const res = await other.app.inject({ method: 'GET', url: '/api/health', headers: { host: 'attacker.example' } });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('https://api.example.com/api/health');
  });
});

describe('configuration', () => {
  it('enforces HTTPS by default in production only', () => {
    const base = { ...TEST_ENV, DATABASE_URL: 'postgresql://unused', STORAGE_SIGNING_SECRET: 'k7f3a9c2e1b8d4f6a0c9e8d7b6a5f4e3d2c1' };
    expect(loadConfig({ ...base, NODE_ENV: 'production' }).http.httpsEnforced).toBe(true);
    expect(loadConfig({ ...base, NODE_ENV: 'production', HTTPS_ENFORCE: 'false' }).http.httpsEnforced).toBe(false);
    expect(loadConfig({ ...base, NODE_ENV: 'development' }).http.httpsEnforced).toBe(false);
    expect(() => loadConfig({ ...base, TLS_CERT_FILE: '/tmp/cert.pem' })).toThrow(/TLS_KEY_FILE/);
  });

  it('without enforcement serves plain HTTP, without HSTS', async () => {
    const relaxed = await t.anotherInstance({ HTTPS_ENFORCE: 'false' });
    const res = await relaxed.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('native TLS from TLS_CERT_FILE and TLS_KEY_FILE', () => {
  it('serves a request over HTTPS with a self-signed certificate', async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'pcs-tls-'));
    writeFileSync(path.join(dir, 'cert.pem'), pems.cert);
    writeFileSync(path.join(dir, 'key.pem'), pems.private);
    const server = await t.anotherInstance({
      TLS_CERT_FILE: path.join(dir, 'cert.pem'),
      TLS_KEY_FILE: path.join(dir, 'key.pem'),
    });
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = server.app.server.address() as { port: number };

    const response = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/api/games', ca: pems.cert, headers: alice.headers }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).data.map((g: { name: string }) => g.name)).toEqual(['Secure']);
    expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });
});
