// CONTRACT §8, passwords (issue #9 finding 8): 8..256 characters and not a common password, at
// registration and on change; POST /auth/password ends every other session of the user.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const cookieOf = (res: LightMyRequestResponse) => {
  const cookie = res.cookies.find((c) => c.name === 'session');
  if (!cookie) throw new Error(`no session cookie: ${res.statusCode} ${res.body}`);
  return { headers: { cookie: `session=${cookie.value}` } };
};
const login = async (email: string, password: string) => t.as(null).post('/auth/login', { email, password });

describe('common passwords', () => {
  it.each(['password123', 'Password123', 'qwertyuiop', '12345678', 'iloveyou1'])(
    'refuses %s at registration with 400 naming the rule, creating nothing',
    async (password) => {
      const before = await t.rowCounts();
      const res = await t.as(null).post('/auth/register', { email: 'common@example.com', password, name: 'C' });
      const error = expectError(res, 400, 'VALIDATION_ERROR');
      expect(error.details).toEqual([{ in: 'body', path: 'password', message: expect.stringMatching(/common password/) }]);
      expect(error.message).toMatch(/common password/);
      expect(await t.rowCounts()).toEqual(before);
    },
  );

  it('accepts an uncommon password of 8 characters, and one of 256', async () => {
    expect((await t.as(null).post('/auth/register', { email: 'eight@example.com', password: 'Zq8#vL2!', name: 'E' })).statusCode).toBe(201);
    expect((await t.as(null).post('/auth/register', { email: 'long@example.com', password: 'x9'.repeat(128), name: 'L' })).statusCode).toBe(201);
  });
});

describe('POST /auth/password', () => {
  let user: RegisteredUser;

  beforeAll(async () => {
    user = await t.register({ password: 'the first password' });
  });

  it('changes the password (204) and ends every other session of the user, not this one', async () => {
    const other = cookieOf(await login(user.user.email, 'the first password'));
    const third = cookieOf(await login(user.user.email, 'the first password'));
    const token = await t.createToken(user, ['games:read']);

    const res = await t.as(user).post('/auth/password', { currentPassword: 'the first password', newPassword: 'the second password' });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');

    for (const ended of [other, third]) expectError(await t.as(ended).get('/auth/me'), 401, 'AUTHENTICATION_REQUIRED');
    expect((await t.as(user).get('/auth/me')).statusCode).toBe(200);
    // API tokens are not sessions: they keep working (revoke them with DELETE /tokens/{id}).
    expect((await t.as(token).get('/games')).statusCode).toBe(200);

    expectError(await login(user.user.email, 'the first password'), 401, 'AUTHENTICATION_REQUIRED');
    expect((await login(user.user.email, 'the second password')).statusCode).toBe(200);
    const [row] = await t.sql<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [user.user.id]);
    expect(row!.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('answers a wrong current password with 400 (the session stays), changing nothing', async () => {
    const someone = await t.register({ password: 'kept as it is' });
    const other = cookieOf(await login(someone.user.email, 'kept as it is'));
    const [before] = await t.sql('SELECT password_hash FROM users WHERE id = $1', [someone.user.id]);

    const error = expectError(
      await t.as(someone).post('/auth/password', { currentPassword: 'not my password', newPassword: 'something new entirely' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details).toEqual([{ in: 'body', path: 'currentPassword', message: expect.any(String) }]);
    expect((await t.as(someone).get('/auth/me')).statusCode).toBe(200);
    expect((await t.as(other).get('/auth/me')).statusCode).toBe(200);
    expect(await t.sql('SELECT password_hash FROM users WHERE id = $1', [someone.user.id])).toEqual([before]);
  });

  it.each([
    ['a common new password', { currentPassword: 'kept as it is', newPassword: 'password123' }, 'newPassword'],
    ['a short new password', { currentPassword: 'kept as it is', newPassword: 'short' }, 'newPassword'],
    ['a new password over 256 characters', { currentPassword: 'kept as it is', newPassword: 'x'.repeat(257) }, 'newPassword'],
    ['a missing current password', { newPassword: 'something new entirely' }, 'currentPassword'],
    ['an unknown field', { currentPassword: 'kept as it is', newPassword: 'something new entirely', force: true }, 'force'],
  ])('refuses %s with 400, changing nothing', async (_case, body, path) => {
    const someone = await t.register({ password: 'kept as it is' });
    const [before] = await t.sql('SELECT password_hash FROM users WHERE id = $1', [someone.user.id]);
    const error = expectError(await t.as(someone).post('/auth/password', body), 400, 'VALIDATION_ERROR');
    expect(error.details).toContainEqual({ in: 'body', path, message: expect.any(String) });
    expect(await t.sql('SELECT password_hash FROM users WHERE id = $1', [someone.user.id])).toEqual([before]);
  });

  it('needs a session: an API token gets 403, nobody 401', async () => {
    const someone = await t.register();
    const token = await t.createToken(someone, ['tokens:write']);
    const body = { currentPassword: someone.password, newPassword: 'something new entirely' };
    expectError(await t.as(token).post('/auth/password', body), 403, 'INSUFFICIENT_PERMISSIONS');
    expectError(await t.as(null).post('/auth/password', body), 401, 'AUTHENTICATION_REQUIRED');
    expect((await login(someone.user.email, someone.password)).statusCode).toBe(200);
  });

  it('refuses an account without a password (identity provider only) with 400', async () => {
    const someone = await t.register();
    await t.sql('UPDATE users SET password_hash = NULL WHERE id = $1', [someone.user.id]);
    const error = expectError(
      await t.as(someone).post('/auth/password', { currentPassword: 'anything at all', newPassword: 'something new entirely' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toMatch(/identity provider/);
  });
});
