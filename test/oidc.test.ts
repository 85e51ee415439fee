// OpenID Connect sign-in (CONTRACT §3) end to end against a real OpenID Provider on loopback.
import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';
import { type ProviderAccount, startOidcProvider, type TestOidcProvider } from './helpers/oidc-provider.js';

const WEB_APP = 'https://app.example.com';
const REDIRECT_URI = 'http://localhost:3000/api/auth/oidc/callback';

const accounts: Record<string, ProviderAccount> = {
  newcomer: { email: 'newcomer@example.com', email_verified: true, name: 'New Comer' },
  alice: { email: 'Alice@Example.com', email_verified: true, name: 'Alice at the provider' },
  unverified: { email: 'unverified@example.com', email_verified: false, name: 'Mallory' },
};

const logLines: string[] = [];
let provider: TestOidcProvider;
let t: TestApp;

beforeAll(async () => {
  provider = await startOidcProvider(accounts, REDIRECT_URI);
  const logStream = new Writable({ write: (chunk, _enc, done) => done(void logLines.push(String(chunk))) });
  t = await createTestApp({ ...provider.env, WEB_APP_ORIGINS: WEB_APP, LOG_LEVEL: 'debug' }, { logStream });
});
afterAll(async () => {
  await t.close();
  await provider.close();
});

/** GET /auth/oidc/login: the provider URL and the sign-in attempt cookie. */
async function startLogin() {
  const res = await t.inject({ method: 'GET', url: '/api/auth/oidc/login' });
  expect(res.statusCode).toBe(302);
  const attempt = res.cookies.find((c) => c.name === 'oidc_login')!;
  expect(attempt).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/auth/oidc' });
  return { url: res.headers.location as string, attempt: attempt.value };
}

function callback(pathAndQuery: string, attempt: string | undefined): Promise<LightMyRequestResponse> {
  return t.inject({ method: 'GET', url: pathAndQuery, ...(attempt && { cookies: { oidc_login: attempt } }) });
}

async function signIn(accountId: string) {
  const { url, attempt } = await startLogin();
  return callback(await provider.signIn(url, accountId), attempt);
}

async function me(res: LightMyRequestResponse) {
  const session = res.cookies.find((c) => c.name === 'session');
  expect(session).toBeDefined();
  const me = await t.as({ headers: { cookie: `session=${session!.value}` } }).get('/auth/me');
  expect(me.statusCode).toBe(200);
  return me.json();
}

const countUsers = async () => Number((await t.sql<{ n: string }>('SELECT count(*) AS n FROM users'))[0]!.n);

describe('GET /auth/oidc/login', () => {
  it('redirects to the provider with PKCE (S256), state and nonce', async () => {
    const { url } = await startLogin();
    const target = new URL(url);
    expect(target.origin).toBe(provider.issuer);
    expect(target.searchParams.get('client_id')).toBe(provider.clientId);
    expect(target.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(target.searchParams.get('response_type')).toBe('code');
    expect(target.searchParams.get('code_challenge_method')).toBe('S256');
    for (const name of ['code_challenge', 'state', 'nonce']) expect(target.searchParams.get(name)?.length).toBeGreaterThan(20);
  });

  it('is in the sensitive rate-limit tier', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/auth/oidc/login' });
    expect(res.headers['x-ratelimit-limit']).toBe('1000000');
  });
});

describe('GET /auth/oidc/callback', () => {
  it('creates a new user with an organization, signs them in and redirects to the web app', async () => {
    const res = await signIn('newcomer');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(WEB_APP);
    expect(res.cookies.find((c) => c.name === 'oidc_login')?.value).toBe('');
    const body = await me(res);
    expect(body.user).toMatchObject({ email: 'newcomer@example.com', name: 'New Comer' });
    expect(body.organizations).toEqual([expect.objectContaining({ role: 'owner' })]);
    const [row] = await t.sql('SELECT password_hash FROM users WHERE email = $1', ['newcomer@example.com']);
    expect(row).toEqual({ password_hash: null });

    // The next sign-in finds the same user.
    const again = await me(await signIn('newcomer'));
    expect(again.user.id).toBe(body.user.id);
  });

  it('links an existing account with the same verified e-mail, and keeps the link when the e-mail changes', async () => {
    const alice = await t.register({ email: 'alice@example.com' });
    const users = await countUsers();
    const body = await me(await signIn('alice'));
    expect(body.user.id).toBe(alice.user.id);
    expect(body.organizations).toHaveLength(1);
    expect(await countUsers()).toBe(users);
    expect(await t.sql('SELECT subject FROM user_identities WHERE user_id = $1', [alice.user.id])).toEqual([{ subject: 'alice' }]);

    accounts.alice!.email = 'alice.renamed@example.com';
    expect((await me(await signIn('alice'))).user.id).toBe(alice.user.id);
    // The password still works too.
    expect((await t.as(null).post('/auth/login', { email: 'alice@example.com', password: alice.password })).statusCode).toBe(200);
  });

  it('refuses an answer whose state is not the one this browser started with', async () => {
    const first = await startLogin();
    const second = await startLogin();
    const users = await countUsers();
    const res = await callback(await provider.signIn(second.url, 'newcomer'), first.attempt);
    expectError(res, 401, 'AUTHENTICATION_REQUIRED');
    expect(res.json().message).toMatch(/state/);
    expect(res.cookies.find((c) => c.name === 'session')).toBeUndefined();
    expect(await countUsers()).toBe(users);
  });

  it('refuses an ID token whose nonce is not the one this browser started with', async () => {
    const { url, attempt } = await startLogin();
    const forged = new URL(url);
    forged.searchParams.set('nonce', 'a-nonce-this-browser-never-saw');
    const res = await callback(await provider.signIn(forged.href, 'newcomer'), attempt);
    expectError(res, 401, 'AUTHENTICATION_REQUIRED');
    expect(res.json().message).toMatch(/nonce/);
    expect(res.cookies.find((c) => c.name === 'session')).toBeUndefined();
  });

  it('refuses a code issued for another PKCE challenge', async () => {
    const { url, attempt } = await startLogin();
    const forged = new URL(url);
    forged.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expectError(await callback(await provider.signIn(forged.href, 'newcomer'), attempt), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('refuses an e-mail the provider has not verified, and creates nobody', async () => {
    const users = await countUsers();
    const res = await signIn('unverified');
    expectError(res, 401, 'AUTHENTICATION_REQUIRED');
    expect(res.json().message).toMatch(/not verified/);
    expect(await countUsers()).toBe(users);
    expect(await t.sql('SELECT 1 FROM users WHERE email = $1', ['unverified@example.com'])).toHaveLength(0);
  });

  it('refuses a callback without a sign-in attempt cookie, a tampered one, or a replayed code', async () => {
    const { url, attempt } = await startLogin();
    const back = await provider.signIn(url, 'newcomer');
    expectError(await callback(back, undefined), 401, 'AUTHENTICATION_REQUIRED');
    expectError(
      await callback(
        back,
        attempt.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
      ),
      401,
      'AUTHENTICATION_REQUIRED',
    );
    expect((await callback(back, attempt)).statusCode).toBe(302);
    expectError(await callback(back, attempt), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('refuses a NUL in the query with 400, like every route that reads its query, and signs nobody in', async () => {
    const { url, attempt } = await startLogin();
    const back = new URL(await provider.signIn(url, 'newcomer'), 'http://localhost');
    const users = await countUsers();
    const res = await callback(`${back.pathname}${back.search}&iss_extra=a%00b`, attempt);
    expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([{ in: 'query', path: 'iss_extra', message: 'must not contain the NUL character' }]);
    expect(res.cookies.find((c) => c.name === 'session')).toBeUndefined();
    expect(await countUsers()).toBe(users);
  });

  it('passes on an error the provider returns', async () => {
    const { attempt } = await startLogin();
    const state = JSON.parse(decodeURIComponent(attempt).replace(/\.[^.]*$/, '')).state;
    const res = await callback(`/api/auth/oidc/callback?error=access_denied&state=${state}&iss=${encodeURIComponent(provider.issuer)}`, attempt);
    expectError(res, 401, 'AUTHENTICATION_REQUIRED');
    expect(res.json().message).toMatch(/access_denied/);
  });
});

describe('the OpenAPI document', () => {
  it('lists both endpoints as public operations', async () => {
    const document = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(document.paths['/api/auth/oidc/login'].get).toMatchObject({ operationId: 'startOidcLogin', security: [] });
    expect(document.paths['/api/auth/oidc/callback'].get).toMatchObject({ operationId: 'finishOidcLogin', security: [] });
  });
});

describe('logs of the sign-ins', () => {
  it('hold no authorization code, state, client secret or token', () => {
    const log = logLines.join('');
    expect(log).toContain('/api/auth/oidc/callback?code=%5Bredacted%5D');
    expect(log).not.toMatch(/code=(?!%5Bredacted%5D)/);
    expect(log).not.toContain(provider.clientSecret);
    expect(log).not.toMatch(/eyJ[\w-]{10,}/);
  });
});

describe('without OpenID Connect configured', () => {
  it('answers 404 on both endpoints', async () => {
    const plain = await createTestApp();
    try {
      expectError(await plain.inject({ method: 'GET', url: '/api/auth/oidc/login' }), 404, 'RESOURCE_NOT_FOUND');
      expectError(await plain.inject({ method: 'GET', url: '/api/auth/oidc/callback?code=x&state=y' }), 404, 'RESOURCE_NOT_FOUND');
    } finally {
      await plain.close();
    }
  });
});
