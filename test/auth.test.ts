// CONTRACT §3, sessions: register, login, logout, refresh, me, the cookie and its revocation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';
import { decodeJwt } from './helpers/jwt.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const DAY = 24 * 60 * 60;

function sessionCookie(res: { headers: Record<string, unknown> }): string {
  const header = res.headers['set-cookie'];
  const all = Array.isArray(header) ? header : [header];
  const cookie = all.find((c): c is string => typeof c === 'string' && c.startsWith('session='));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(header)}`);
  return cookie;
}

function cookieAttributes(cookie: string): string[] {
  return cookie
    .split(';')
    .slice(1)
    .map((a) => a.trim().toLowerCase());
}

describe('POST /auth/register', () => {
  it('creates the user and a first organization they own, and signs them in', async () => {
    const res = await t.as(null).post('/auth/register', { email: 'Ada@Example.com', password: 'long enough', name: 'Ada' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.user).toEqual({ id: expect.any(String), email: 'ada@example.com', name: 'Ada', createdAt: expect.any(String) });
    expect(body.organization).toMatchObject({ id: expect.any(String), role: 'owner' });
    const [membership] = await t.sql('SELECT role FROM memberships WHERE user_id = $1 AND organization_id = $2', [body.user.id, body.organization.id]);
    expect(membership).toEqual({ role: 'owner' });

    const me = await t.as({ headers: { cookie: sessionCookie(res).split(';')[0]! } }).get('/auth/me');
    expect(me.statusCode).toBe(200);
    expect(me.json().user.id).toBe(body.user.id);
  });

  it('stores the password hashed with argon2id, never in plain text', async () => {
    const user = await t.register({ password: 'plain text never stored' });
    const [row] = await t.sql<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [user.user.id]);
    expect(row!.password_hash).toMatch(/^\$argon2id\$/);
    expect(row!.password_hash).not.toContain('plain text never stored');
  });

  it('refuses a second account for the same e-mail in any letter case with 409, changing nothing', async () => {
    await t.register({ email: 'grace@example.com' });
    const before = await t.rowCounts();
    const res = await t.as(null).post('/auth/register', { email: 'GRACE@example.COM', password: 'long enough', name: 'G' });
    expectError(res, 409, 'DUPLICATE_RESOURCE');
    expect(await t.rowCounts()).toEqual(before);
  });

  it.each([
    ['a short password', { email: 'x@example.com', password: 'short', name: 'X' }, 'password'],
    ['a password over 256 characters', { email: 'x@example.com', password: 'p'.repeat(257), name: 'X' }, 'password'],
    ['an invalid e-mail', { email: 'not-an-email', password: 'long enough', name: 'X' }, 'email'],
    ['a missing name', { email: 'x@example.com', password: 'long enough' }, 'name'],
    ['an unknown field', { email: 'x@example.com', password: 'long enough', name: 'X', admin: true }, 'admin'],
    ['a number for a string', { email: 'x@example.com', password: 12345678, name: 'X' }, 'password'],
  ])('refuses %s with 400 and details, changing nothing', async (_case, body, path) => {
    const before = await t.rowCounts();
    const error = expectError(await t.as(null).post('/auth/register', body), 400, 'VALIDATION_ERROR');
    expect(error.details).toContainEqual({ in: 'body', path, message: expect.any(String) });
    expect(await t.rowCounts()).toEqual(before);
  });
});

describe('POST /auth/login', () => {
  let user: RegisteredUser;
  beforeAll(async () => {
    user = await t.register({ email: 'login@example.com', password: 'the right one' });
  });

  it('answers { user, expiresAt } and sets the session cookie with the contract attributes', async () => {
    const res = await t.as(null).post('/auth/login', { email: 'LOGIN@example.com', password: 'the right one' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user.id).toBe(user.user.id);
    const expiresIn = Date.parse(body.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(7 * DAY * 1000 - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(7 * DAY * 1000);

    const attributes = cookieAttributes(sessionCookie(res));
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/api', 'max-age=604800']));
    expect(attributes).not.toContain('secure');
  });

  it('issues a 7-day JWT that also works as a Bearer token', async () => {
    const res = await t.as(null).post('/auth/login', { email: 'login@example.com', password: 'the right one' });
    const jwt = sessionCookie(res).split(';')[0]!.slice('session='.length);
    const claims = decodeJwt(jwt);
    expect(claims.exp - claims.iat).toBe(7 * DAY);
    const me = await t.as({ headers: { authorization: `Bearer ${jwt}` } }).get('/auth/me');
    expect(me.statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown e-mail with the same 401', async () => {
    const wrongPassword = expectError(
      await t.as(null).post('/auth/login', { email: 'login@example.com', password: 'the wrong one' }),
      401,
      'AUTHENTICATION_REQUIRED',
    );
    const unknownEmail = expectError(
      await t.as(null).post('/auth/login', { email: 'nobody@example.com', password: 'the wrong one' }),
      401,
      'AUTHENTICATION_REQUIRED',
    );
    expect(unknownEmail).toEqual(wrongPassword);
  });

  it('creates no session for a failed login (only the attempt is counted, for the lockout)', async () => {
    const { login_attempts: _attempts, ...before } = await t.rowCounts();
    await t.as(null).post('/auth/login', { email: 'login@example.com', password: 'the wrong one' });
    const { login_attempts: attempts, ...after } = await t.rowCounts();
    expect(after).toEqual(before);
    expect(attempts).toBeGreaterThan(0);
  });

  it('refuses a malformed login body with 400', async () => {
    expectError(await t.as(null).post('/auth/login', { email: 'login@example.com' }), 400, 'VALIDATION_ERROR');
  });
});

describe('POST /auth/logout', () => {
  it('answers 204, clears the cookie and revokes the session server-side', async () => {
    const user = await t.register();
    const jwt = user.cookie;
    const res = await t.as(user).post('/auth/logout');
    expect(res.statusCode).toBe(204);
    const cleared = sessionCookie(res);
    expect(cleared).toMatch(/^session=;/);
    expect(cookieAttributes(cleared)).toEqual(expect.arrayContaining(['max-age=0', 'path=/api']));

    // The JWT has not expired, yet it is refused from now on, by cookie and as Bearer.
    expectError(await t.as(user).get('/auth/me'), 401, 'AUTHENTICATION_REQUIRED');
    expectError(await t.as({ headers: { authorization: `Bearer ${jwt}` } }).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    const [session] = await t.sql('SELECT revoked_at FROM sessions WHERE user_id = $1', [user.user.id]);
    expect(session!.revoked_at).toBeInstanceOf(Date);
  });

  it('ends only the session it is called with', async () => {
    const user = await t.register({ password: 'two sessions' });
    const other = await t.as(null).post('/auth/login', { email: user.user.email, password: 'two sessions' });
    const otherCaller = { headers: { cookie: sessionCookie(other).split(';')[0]! } };
    await t.as(user).post('/auth/logout');
    expect((await t.as(otherCaller).get('/auth/me')).statusCode).toBe(200);
  });

  it('needs a session', async () => {
    expectError(await t.as(null).post('/auth/logout'), 401, 'AUTHENTICATION_REQUIRED');
  });
});

describe('session refresh', () => {
  it('POST /auth/refresh issues a fresh 7-day JWT and moves the session end', async () => {
    const user = await t.register();
    const aged = t.agedSession(user, 3 * DAY);
    const res = await t.as(aged).post('/auth/refresh');
    expect(res.statusCode).toBe(200);
    const fresh = sessionCookie(res).split(';')[0]!.slice('session='.length);
    const claims = decodeJwt(fresh);
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(60);
    expect(claims.exp - claims.iat).toBe(7 * DAY);
    expect(Date.parse(res.json().expiresAt)).toBeGreaterThan(Date.now() + 7 * DAY * 1000 - 60_000);
    expect(cookieAttributes(sessionCookie(res))).toEqual(expect.arrayContaining(['httponly', 'max-age=604800']));
  });

  it('replaces a JWT older than a day on any request (rolling refresh)', async () => {
    const user = await t.register();
    const aged = t.agedSession(user, DAY + 60);
    const [before] = await t.sql<{ expires_at: Date }>('SELECT expires_at FROM sessions WHERE user_id = $1', [user.user.id]);
    const res = await t.as(aged).get('/games');
    expect(res.statusCode).toBe(200);
    const fresh = sessionCookie(res).split(';')[0]!.slice('session='.length);
    const claims = decodeJwt(fresh);
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(60);
    const [after] = await t.sql<{ expires_at: Date }>('SELECT expires_at FROM sessions WHERE user_id = $1', [user.user.id]);
    expect(after!.expires_at.getTime()).toBeGreaterThanOrEqual(before!.expires_at.getTime());
  });

  it('leaves a JWT younger than a day alone', async () => {
    const user = await t.register();
    const res = await t.as(t.agedSession(user, DAY - 60)).get('/games');
    expect(res.statusCode).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a JWT past its 7 days, and one of a revoked session', async () => {
    const user = await t.register();
    expectError(await t.as(t.agedSession(user, 7 * DAY + 1)).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    const aged = t.agedSession(user, 2 * DAY);
    await t.as(user).post('/auth/logout');
    expectError(await t.as(aged).post('/auth/refresh'), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('is for sessions only: an API token gets 403', async () => {
    const user = await t.register();
    const token = await t.createToken(user, ['games:read']);
    expectError(await t.as(token).post('/auth/refresh'), 403, 'INSUFFICIENT_PERMISSIONS');
  });
});

describe('GET /auth/me', () => {
  it('answers the user and their organizations with roles', async () => {
    const user = await t.register();
    const other = await t.register();
    await t.addMember(other, other.organization.id, user, 'admin');
    const res = await t.as(user).get('/auth/me');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toMatchObject({ id: user.user.id, email: user.user.email });
    expect(body.organizations).toEqual([
      { id: user.organization.id, name: user.organization.name, role: 'owner' },
      { id: other.organization.id, name: other.organization.name, role: 'admin' },
    ]);
  });

  it.each([
    ['no credentials', {}],
    ['a malformed Authorization header', { authorization: 'Token abc' }],
    ['a JWT signed with another key', { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' }],
    ['garbage in the cookie', { cookie: 'session=garbage' }],
    ['an unknown API token', { authorization: 'Bearer pcs_unknownunknownunknownunknownunknown' }],
  ])('answers 401 to %s', async (_case, headers) => {
    expectError(await t.as({ headers }).get('/auth/me'), 401, 'AUTHENTICATION_REQUIRED');
  });
});

describe('cookie-authenticated writes', () => {
  it('are refused from a foreign Origin (403) and accepted from the service itself', async () => {
    const user = await t.register();
    expectError(await t.as(user).post('/games', { name: 'from evil' }, { origin: 'https://evil.example' }), 403, 'INSUFFICIENT_PERMISSIONS');
    const ok = await t.as(user).post('/games', { name: 'from us' }, { origin: t.config.publicUrl });
    expect(ok.statusCode).toBe(201);
  });
});

describe('the session cookie', () => {
  it('holds a session JWT only: an API token in it is 401, and changes nothing (CONTRACT §3)', async () => {
    const user = await t.register();
    const token = await t.createToken(user, ['games:read', 'games:write']);
    const viaCookie = { headers: { cookie: `session=${token.token}` } };
    const before = await t.rowCounts();
    expectError(await t.as(viaCookie).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    expectError(await t.as(viaCookie).post('/games', { name: 'through a cookie' }), 401, 'AUTHENTICATION_REQUIRED');
    expect(await t.rowCounts()).toEqual(before);
    expect((await t.as(token).get('/games')).statusCode).toBe(200);
  });
});
