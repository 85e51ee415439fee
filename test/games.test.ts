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

describe('games', () => {
  it('creates a game and reads it back', async () => {
    const created = await t.as(alice).post('/games', { name: 'Space Blaster', description: 'pew' });
    expect(created.statusCode).toBe(201);
    const game = created.json();
    expect(game).toMatchObject({ name: 'Space Blaster', description: 'pew', organizationId: alice.organization.id });
    const fetched = await t.as(alice).get(`/games/${game.id}`);
    expect(fetched.json()).toEqual(game);
  });

  it("hides another organization's game as 404", async () => {
    const game = (await t.as(alice).post('/games', { name: 'Secret' })).json();
    expectError(await t.as(bob).get(`/games/${game.id}`), 404, 'RESOURCE_NOT_FOUND');
  });
});
