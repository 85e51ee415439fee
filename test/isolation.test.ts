// CONTRACT §4: another organization's data is invisible on every endpoint — 404 by id, never
// listed, never changed — to a session user and to an API token holding every scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/plugins/scopes.js';
import { type Caller, createTestApp, expectError, type RegisteredUser, type TestApp, type TokenCaller } from './helpers/app.js';

let t: TestApp;
let alice: RegisteredUser;
let aliceToken: TokenCaller;
let aliceGame: { id: string; name: string };
let bob: RegisteredUser;
let bobToken: TokenCaller;

beforeAll(async () => {
  t = await createTestApp();
  alice = await t.register();
  aliceGame = (await t.as(alice).post('/games', { name: 'Alice only' })).json();
  aliceToken = await t.createToken(alice, ['games:read']);
  bob = await t.register();
  bobToken = await t.createToken(bob, [...SCOPES]);
  await t.as(bob).post('/games', { name: 'Bob game' });
});
afterAll(() => t.close());

type Request = [method: 'get' | 'post' | 'patch' | 'delete', url: string, body?: unknown];

/** Requests naming one of Alice's resources; each must be 404 for Bob. */
const requestsByIdOrOrganization = (): Request[] => [
  ['get', `/games/${aliceGame.id}`],
  ['patch', `/games/${aliceGame.id}`, { name: 'Taken over' }],
  ['delete', `/games/${aliceGame.id}`],
  ['get', `/games?organizationId=${alice.organization.id}`],
  ['post', '/games', { name: 'Planted', organizationId: alice.organization.id }],
  ['get', `/tokens?organizationId=${alice.organization.id}`],
  // Every list narrows by organizationId (CONTRACT §4), and a filter by a game is 404 like the game.
  ['get', `/assets?organizationId=${alice.organization.id}`],
  ['get', `/assets?gameId=${aliceGame.id}`],
  ['get', `/exports?organizationId=${alice.organization.id}`],
  ['get', `/exports?gameId=${aliceGame.id}`],
  ['get', `/export-batches?organizationId=${alice.organization.id}`],
  ['get', `/webhooks?organizationId=${alice.organization.id}`],
  ['post', '/tokens', { name: 'Planted', scopes: ['games:read'], organizationId: alice.organization.id }],
  ['delete', `/tokens/${aliceToken.id}`],
  ['get', `/organizations/${alice.organization.id}`],
];

/** Member management is for sessions only; for them these must be 404 too. */
const memberRequests = (): Request[] => [
  ['get', `/organizations/${alice.organization.id}/members`],
  ['post', `/organizations/${alice.organization.id}/members`, { email: bob.user.email, role: 'owner' }],
  ['delete', `/organizations/${alice.organization.id}/members/${alice.user.id}`],
];

describe.each([
  ['a session user', () => bob as Caller],
  ['an API token with every scope', () => bobToken as Caller],
])('another organization, seen by %s', (_who, caller) => {
  it('is 404 on every endpoint that names it, and nothing changes', async () => {
    const before = await t.rowCounts();
    const requests = caller() === bob ? [...requestsByIdOrOrganization(), ...memberRequests()] : requestsByIdOrOrganization();
    for (const [method, url, body] of requests) {
      expectError(await t.as(caller()).send(method, url, body), 404, 'RESOURCE_NOT_FOUND');
    }
    expect(await t.rowCounts()).toEqual(before);
    expect((await t.as(alice).get(`/games/${aliceGame.id}`)).json()).toMatchObject({ name: 'Alice only' });
    expect((await t.as(aliceToken).get('/games')).statusCode).toBe(200);
  });

  it('never appears in a list', async () => {
    const everything = JSON.stringify(
      await Promise.all(['/games?limit=100', '/tokens?limit=100', '/organizations?limit=100'].map(async (url) => (await t.as(caller()).get(url)).json())),
    );
    expect(everything).not.toContain(alice.organization.id);
    expect(everything).not.toContain(aliceGame.id);
    expect(everything).not.toContain(aliceToken.id);
    expect(everything).not.toContain('Alice only');
  });

  it('answers as for an id that does not exist: same status, same message', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [existing, absent] of [
      [`/games/${aliceGame.id}`, `/games/${missing}`],
      [`/organizations/${alice.organization.id}`, `/organizations/${missing}`],
    ]) {
      expect((await t.as(caller()).get(existing!)).json()).toEqual((await t.as(caller()).get(absent!)).json());
    }
  });
});

it("keeps Bob's own data reachable for Bob (the 404s above are not a blanket refusal)", async () => {
  expect((await t.as(bob).get('/games')).json().data.map((g: { name: string }) => g.name)).toEqual(['Bob game']);
  expect((await t.as(bobToken).get('/games')).json().meta.total).toBe(1);
  expect((await t.as(bob).get('/auth/me')).json().organizations).toEqual([expect.objectContaining({ id: bob.organization.id })]);
});
