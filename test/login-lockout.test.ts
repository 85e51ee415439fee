// CONTRACT §8, per-account lockout (issue #9 finding 8): after 10 failed logins for one account
// within 15 minutes, further logins for it get 429 with Retry-After, from any address and on
// any instance; an unknown e-mail behaves exactly like a known one.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

let address = 0;
/** A login from a new client address each time: per-address limits play no part here. */
const login = (email: string, password: string, app = t.app) =>
  app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: `198.51.100.${(address++ % 250) + 1}`, payload: { email, password } });

async function fail(email: string, times: number) {
  for (let i = 0; i < times; i++) expectError(await login(email, 'a wrong password'), 401, 'AUTHENTICATION_REQUIRED');
}

function expectLocked(res: LightMyRequestResponse) {
  const error = expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(15 * 60 - 120);
  expect(retryAfter).toBeLessThanOrEqual(15 * 60);
  // The X-RateLimit-* headers describe the limit that refused it: the account's, exhausted (SPEC §8).
  expect(res.headers).toMatchObject({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(retryAfter) });
  expect(error.message).toMatch(/failed sign-ins/i);
  return error;
}

/** Moves the account's window of failed attempts `minutes` into the past. */
const age = (email: string, minutes: number) =>
  t.sql(`UPDATE login_attempts SET window_started_at = window_started_at - make_interval(mins => $2) WHERE email = $1`, [email, minutes]);

describe('per-account lockout', () => {
  it('refuses the 11th login after 10 failures, even with the right password, from any address', async () => {
    const user = await t.register({ password: 'the right one' });
    await fail(user.user.email, 10);
    const before = await t.rowCounts();
    expectLocked(await login(user.user.email, 'the right one'));
    expectLocked(await login(user.user.email.toUpperCase(), 'the right one'));
    expect(await t.rowCounts()).toEqual(before); // no session was created
    // The session the user already has keeps working.
    expect((await t.as(user).get('/auth/me')).statusCode).toBe(200);
  });

  it('treats an unknown e-mail exactly like a known one', async () => {
    const user = await t.register({ password: 'the right one' });
    const unknown = 'nobody-here@example.com';
    await fail(unknown, 10);
    await fail(user.user.email, 10);
    const known = expectLocked(await login(user.user.email, 'whatever'));
    expect(expectLocked(await login(unknown, 'whatever'))).toEqual(known);
  });

  it('lets the account sign in again once the 15 minutes are over', async () => {
    const user = await t.register({ password: 'the right one' });
    await fail(user.user.email, 10);
    expectLocked(await login(user.user.email, 'the right one'));
    await age(user.user.email, 15);
    expect((await login(user.user.email, 'the right one')).statusCode).toBe(200);
  });

  it('starts counting afresh after a successful login', async () => {
    const user = await t.register({ password: 'the right one' });
    await fail(user.user.email, 9);
    expect((await login(user.user.email, 'the right one')).statusCode).toBe(200);
    await fail(user.user.email, 9);
    expect((await login(user.user.email, 'the right one')).statusCode).toBe(200);
  });

  it('does not lock other accounts', async () => {
    const locked = await t.register({ password: 'the right one' });
    const other = await t.register({ password: 'the right one' });
    await fail(locked.user.email, 10);
    expect((await login(other.user.email, 'the right one')).statusCode).toBe(200);
  });

  it('is shared by every instance (the count is in PostgreSQL)', async () => {
    const user = await t.register({ password: 'the right one' });
    const other = await t.anotherInstance();
    await fail(user.user.email, 5);
    for (let i = 0; i < 5; i++) expectError(await login(user.user.email, 'a wrong password', other.app), 401, 'AUTHENTICATION_REQUIRED');
    expectLocked(await login(user.user.email, 'the right one', other.app));
    expectLocked(await login(user.user.email, 'the right one'));
  });

  it('counts a wrong current password of POST /auth/password, and locks it too', async () => {
    const user = await t.register({ password: 'the right one' });
    const change = (currentPassword: string) => t.as(user).post('/auth/password', { currentPassword, newPassword: 'a brand new password' });
    for (let i = 0; i < 10; i++) expectError(await change('a wrong password'), 400, 'VALIDATION_ERROR');
    expectLocked(await change('the right one'));
    expectLocked(await login(user.user.email, 'the right one'));
  });

  it('keeps one row per account, and drops windows that are over', async () => {
    const user = await t.register({ password: 'the right one' });
    await fail(user.user.email, 3);
    expect(await t.sql('SELECT count FROM login_attempts WHERE email = $1', [user.user.email])).toEqual([{ count: 3 }]);
    await age(user.user.email, 20);
    await fail('someone-else@example.com', 1);
    expect(await t.sql('SELECT count FROM login_attempts WHERE email = $1', [user.user.email])).toEqual([]);
  });
});
