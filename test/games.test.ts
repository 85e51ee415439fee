// CONTRACT §5, games: create, read, list, update, delete; duplicate names; bad bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';

let t: TestApp;
let alice: RegisteredUser;
let bob: RegisteredUser;

beforeAll(async () => {
  t = await createTestApp();
  alice = await t.register();
  bob = await t.register();
});
afterAll(() => t.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('games', () => {
  it('creates a game and reads it back', async () => {
    const created = await t.as(alice).post('/games', { name: 'Space Blaster', description: 'pew' });
    expect(created.statusCode).toBe(201);
    const game = created.json();
    expect(game).toEqual({
      id: expect.any(String),
      name: 'Space Blaster',
      description: 'pew',
      organizationId: alice.organization.id,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const fetched = await t.as(alice).get(`/games/${game.id}`);
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual(game);
  });

  it('works with an API token, as in the README quick start', async () => {
    const token = await t.createToken(alice, ['games:write']);
    const created = await t.as(token).post('/games', { name: 'Token Game' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ name: 'Token Game', description: null, organizationId: alice.organization.id });
    const list = (await t.as(token).get('/games?sort=name&order=asc')).json();
    expect(list.data.map((g: { name: string }) => g.name)).toContain('Token Game');
  });

  it('trims the name and answers 409 for the same name in the same organization', async () => {
    await t.as(alice).post('/games', { name: 'Unique' });
    const before = await t.rowCounts();
    expectError(await t.as(alice).post('/games', { name: '  Unique ' }), 409, 'DUPLICATE_RESOURCE');
    expect(await t.rowCounts()).toEqual(before);
    // Another organization may use the name.
    expect((await t.as(bob).post('/games', { name: 'Unique' })).statusCode).toBe(201);
  });

  it.each([
    ['a missing name', {}, 'name'],
    ['an empty name', { name: '   ' }, 'name'],
    ['a name over 200 characters', { name: 'x'.repeat(201) }, 'name'],
    ['a number as name', { name: 42 }, 'name'],
    ['a control character in the name', { name: 'a\u0007b' }, 'name'],
    ['a description over 2000 characters', { name: 'ok', description: 'd'.repeat(2001) }, 'description'],
    ['an unknown field', { name: 'ok', color: 'red' }, 'color'],
    ['an array body', [{ name: 'ok' }], ''],
  ])('refuses %s with 400 and details, creating nothing', async (_case, body, path) => {
    const before = await t.rowCounts();
    const error = expectError(await t.as(alice).post('/games', body), 400, 'VALIDATION_ERROR');
    expect(error.details).toContainEqual({ in: 'body', path, message: expect.any(String) });
    expect(await t.rowCounts()).toEqual(before);
  });

  it('updates name and description with PATCH, bumping updatedAt', async () => {
    const game = (await t.as(alice).post('/games', { name: 'Before', description: 'old' })).json();
    const res = await t.as(alice).patch(`/games/${game.id}`, { name: 'After' });
    expect(res.statusCode).toBe(200);
    const updated = res.json();
    expect(updated).toMatchObject({ id: game.id, name: 'After', description: 'old', createdAt: game.createdAt });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(game.updatedAt));
    const cleared = (await t.as(alice).patch(`/games/${game.id}`, { description: null })).json();
    expect(cleared.description).toBeNull();
    expect((await t.as(alice).get(`/games/${game.id}`)).json()).toEqual(cleared);
  });

  it('refuses a bad PATCH (400) or a rename onto another game (409), changing nothing', async () => {
    const game = (await t.as(alice).post('/games', { name: 'Patch me' })).json();
    await t.as(alice).post('/games', { name: 'Taken' });
    for (const [body, status] of [
      [{}, 400],
      [{ name: '' }, 400],
      [{ organizationId: bob.organization.id }, 400],
      [{ name: 'Taken' }, 409],
    ] as const) {
      const res = await t.as(alice).patch(`/games/${game.id}`, body);
      expectError(res, status, status === 400 ? 'VALIDATION_ERROR' : 'DUPLICATE_RESOURCE');
    }
    expect((await t.as(alice).get(`/games/${game.id}`)).json()).toEqual(game);
  });

  it('deletes with 204; the game is then 404 everywhere', async () => {
    const game = (await t.as(alice).post('/games', { name: 'Doomed' })).json();
    const res = await t.as(alice).delete(`/games/${game.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectError(await t.as(alice).get(`/games/${game.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(alice).patch(`/games/${game.id}`, { name: 'x' }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(alice).delete(`/games/${game.id}`), 404, 'RESOURCE_NOT_FOUND');
    // The name is free again.
    expect((await t.as(alice).post('/games', { name: 'Doomed' })).statusCode).toBe(201);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', '1', 'x'.repeat(150)]) {
      expectError(await t.as(alice).get(`/games/${id}`), 404, 'RESOURCE_NOT_FOUND');
    }
  });

  it('filters by name with q, case-insensitively', async () => {
    const user = await t.register();
    for (const name of ['Alpha Run', 'Beta Run', 'Gamma']) await t.as(user).post('/games', { name });
    const found = (await t.as(user).get('/games?q=RUN&sort=name&order=asc')).json();
    expect(found.data.map((g: { name: string }) => g.name)).toEqual(['Alpha Run', 'Beta Run']);
    expect(found.meta.total).toBe(2);
  });

  it('takes q literally: % and _ are not wildcards', async () => {
    const user = await t.register();
    for (const name of ['Sale 100%', 'Sale 1000', 'a_b', 'axb', 'back\\slash']) await t.as(user).post('/games', { name });
    const names = async (q: string) =>
      (await t.as(user).get(`/games?q=${encodeURIComponent(q)}&sort=name&order=asc`)).json().data.map((g: { name: string }) => g.name);
    expect(await names('100%')).toEqual(['Sale 100%']);
    expect(await names('a_b')).toEqual(['a_b']);
    expect(await names('k\\s')).toEqual(['back\\slash']);
  });
});
