// No password, token secret, session JWT or cookie reaches the logs: a whole session of use,
// logged at the most verbose level, is searched for every secret it handled.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../src/plugins/logging.js';
import { createTestApp, type TestApp } from './helpers/app.js';

const lines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: 'trace' }, { logStream });
});
afterAll(() => t.close());

describe('logs', () => {
  it('never contain a password, a token secret, a session JWT or a cookie', async () => {
    const password = 'Pa55word-that-must-not-leak';
    const alice = await t.register({ password });
    const secrets = [password, alice.cookie];

    const login = await t.as(null).post('/auth/login', { email: alice.user.email, password });
    const loginCookie = login.cookies.find((c) => c.name === 'session')!.value;
    secrets.push(loginCookie);
    await t.as(null).post('/auth/login', { email: alice.user.email, password: `${password}-wrong` });
    secrets.push(`${password}-wrong`);

    const token = await t.createToken(alice, ['games:write', 'tokens:read']);
    secrets.push(token.token);
    await t.as(token).post('/games', { name: 'Logged game' });
    await t.as(token).get('/tokens');
    await t.as({ headers: { authorization: `Bearer ${loginCookie}` } }).get('/auth/me');
    await t.as({ headers: { authorization: `Bearer ${token.token}x` } }).get('/games');
    await t.as(alice).post('/auth/refresh');
    await t.as(alice).post('/auth/logout');
    await t.as(alice).get('/games'); // a revoked session
    await t.inject({ method: 'GET', url: '/api/auth/oidc/callback?code=auth-code-must-not-leak&state=state-must-not-leak' });
    secrets.push('auth-code-must-not-leak', 'state-must-not-leak');

    const log = lines.join('');
    expect(log).toContain('incoming request');
    expect(log).toContain('/api/auth/oidc/callback?code=%5Bredacted%5D&state=%5Bredacted%5D');
    for (const secret of secrets) expect(log).not.toContain(secret);
    // Nor any recognizable part of a JWT or a token secret.
    expect(log).not.toMatch(/eyJ[\w-]{10,}/);
    expect(log).not.toMatch(/pcs_[\w-]{10,}/);
  });

  it('redact credential-like query parameters and keep the rest', () => {
    expect(redactUrl('/api/games?page=2&sort=name')).toBe('/api/games?page=2&sort=name');
    expect(redactUrl('/uploads/x?expires=1&signature=abc&X-Amz-Signature=def')).toBe('/uploads/x?expires=1&signature=%5Bredacted%5D&X-Amz-Signature=%5Bredacted%5D');
  });

  it("redact a preview link's signature, its secret, in the path (CONTRACT §11)", () => {
    const id = '1f0c2a4e-1111-4222-8333-444455556666';
    expect(redactUrl(`/previews/${id}.1764432000.kq3Fz_9-x`)).toBe(`/previews/${id}.1764432000.[redacted]`);
    expect(redactUrl(`/previews/${id}.1764432000.kq3Fz_9-x/play/index.html?v=1`)).toBe(`/previews/${id}.1764432000.[redacted]/play/index.html?v=1`);
    expect(redactUrl('/api/exports/x/previews')).toBe('/api/exports/x/previews');
  });
});
