// CONTRACT §3: each route's declared scope, the exact 403 message, and X:write implying X:read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/plugins/scopes.js';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';

let t: TestApp;
let owner: RegisteredUser;
let gameId: string;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.register();
  gameId = (await t.as(owner).post('/games', { name: 'Scoped' })).json().id;
});
afterAll(() => t.close());

/** Each games, tokens and webhooks endpoint with the scope it needs and a request that would succeed. */
const endpoints = () =>
  [
    { scope: 'games:read', method: 'get', url: '/games' },
    { scope: 'games:read', method: 'get', url: `/games/${gameId}` },
    { scope: 'games:write', method: 'post', url: '/games', body: { name: 'New' } },
    { scope: 'games:write', method: 'patch', url: `/games/${gameId}`, body: { description: 'changed' } },
    { scope: 'games:write', method: 'delete', url: `/games/${gameId}` },
    { scope: 'tokens:read', method: 'get', url: '/tokens' },
    { scope: 'tokens:write', method: 'post', url: '/tokens', body: { name: 'x', scopes: ['tokens:write'] } },
    { scope: 'webhooks:read', method: 'get', url: '/webhooks' },
    { scope: 'webhooks:write', method: 'post', url: '/webhooks', body: { url: 'http://127.0.0.1:9/hook', events: ['export.failed'] } },
  ] as const;

describe('scopes', () => {
  it('lists exactly the contract scopes', () => {
    expect([...SCOPES].sort()).toEqual(
      [
        'games:read',
        'games:write',
        'assets:read',
        'assets:write',
        'exports:read',
        'exports:write',
        'tokens:read',
        'tokens:write',
        'webhooks:read',
        'webhooks:write',
      ].sort(),
    );
  });

  it('refuses every endpoint to a token without its scope, with the exact message, changing nothing', async () => {
    const unrelated = await t.createToken(owner, ['assets:read', 'exports:write']);
    for (const { scope, method, url, ...rest } of endpoints()) {
      const before = await t.rowCounts();
      const body = 'body' in rest ? rest.body : undefined;
      const res = await t.as(unrelated).send(method, url, body);
      const error = expectError(res, 403, ['INSUFFICIENT_PERMISSIONS', 'Forbidden']);
      expect(error.message, `${method} ${url}`).toBe(`Insufficient permissions. Required: ${scope}`);
      expect(await t.rowCounts()).toEqual(before);
    }
  });

  it('answers 403 (not 400) to a token without the scope even when the body is invalid', async () => {
    const reader = await t.createToken(owner, ['games:read']);
    const error = expectError(await t.as(reader).post('/games', { nonsense: true }), 403, 'INSUFFICIENT_PERMISSIONS');
    expect(error.message).toBe('Insufficient permissions. Required: games:write');
  });

  it('lets X:write imply X:read', async () => {
    const writer = await t.createToken(owner, ['games:write', 'tokens:write']);
    expect((await t.as(writer).get('/games')).statusCode).toBe(200);
    expect((await t.as(writer).get(`/games/${gameId}`)).statusCode).toBe(200);
    expect((await t.as(writer).get('/tokens')).statusCode).toBe(200);
  });

  it('does not let X:read imply X:write', async () => {
    const reader = await t.createToken(owner, ['games:read']);
    expect(expectError(await t.as(reader).patch(`/games/${gameId}`, { name: 'x' }), 403, 'INSUFFICIENT_PERMISSIONS').message).toBe(
      'Insufficient permissions. Required: games:write',
    );
  });

  it('grants a session user every scope in its organizations', async () => {
    for (const { method, url, ...rest } of endpoints()) {
      const body = 'body' in rest ? rest.body : undefined;
      const res = await t.as(owner).send(method, url, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    }
  });

  it('refuses session-only endpoints to an API token with every scope (403)', async () => {
    const all = await t.createToken(owner, [...SCOPES]);
    for (const [method, url] of [
      ['get', '/auth/me'],
      ['post', '/auth/logout'],
      ['post', '/organizations'],
      ['get', `/organizations/${owner.organization.id}/members`],
    ] as const) {
      expectError(await t.as(all).send(method, url), 403, 'INSUFFICIENT_PERMISSIONS');
    }
  });
});
