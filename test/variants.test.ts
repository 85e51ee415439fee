import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';
import { uploadFiles } from './helpers/exports.js';
import { sampleFile } from './helpers/sample-game.js';

let t: TestApp;
let alice: RegisteredUser;
let bob: RegisteredUser;
let game: { id: string };
let entry: { id: string };
let logo: { id: string };
let script: { id: string };

beforeAll(async () => {
  t = await createTestApp();
  alice = await t.register();
  bob = await t.register();
  game = (await t.as(alice).post('/games', { name: 'Meadow' })).json();
  const uploaded = await uploadFiles(t, alice, ['index.html', 'logo.png', 'game.js'].map(sampleFile));
  [entry, logo, script] = [uploaded[0]!, uploaded[1]!, uploaded[2]!];
});
afterAll(() => t.close());

const countVariants = async () => Number((await t.sql<{ n: string }>('SELECT count(*) AS n FROM variants'))[0]!.n);

describe('variants', () => {
  it('creates, reads, lists, changes and deletes a variant', async () => {
    const created = await t.as(alice).post(`/games/${game.id}/variants`, {
      name: 'Blue',
      entryAssetId: entry.id,
      assetIds: [logo.id],
      config: { storeUrl: 'https://example.com/app', difficulty: 2 },
    });
    expect(created.statusCode).toBe(201);
    const variant = created.json();
    expect(variant).toMatchObject({
      name: 'Blue',
      gameId: game.id,
      organizationId: alice.organization.id,
      entryAssetId: entry.id,
      assetIds: [logo.id],
      config: { storeUrl: 'https://example.com/app', difficulty: 2 },
    });
    expect((await t.as(alice).get(`/variants/${variant.id}`)).json()).toEqual(variant);

    const list = await t.as(alice).get(`/games/${game.id}/variants?sort=name&order=asc`);
    expect(list.statusCode).toBe(200);
    expect(list.json().meta).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(list.json().data).toEqual([variant]);

    const patched = await t.as(alice).patch(`/variants/${variant.id}`, { name: 'Green', assetIds: [logo.id, script.id], config: { a: 1 } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'Green', config: { a: 1 } });
    expect([...patched.json().assetIds].sort()).toEqual([logo.id, script.id].sort());

    expect((await t.as(alice).delete(`/variants/${variant.id}`)).statusCode).toBe(204);
    expectError(await t.as(alice).get(`/variants/${variant.id}`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('refuses a duplicate name in the same game with 409', async () => {
    const body = { name: 'Twin', entryAssetId: entry.id };
    expect((await t.as(alice).post(`/games/${game.id}/variants`, body)).statusCode).toBe(201);
    const before = await countVariants();
    expectError(await t.as(alice).post(`/games/${game.id}/variants`, body), 409, 'DUPLICATE_RESOURCE');
    expect(await countVariants()).toBe(before);
  });

  it('requires a ready text/html entry asset of the same organization', async () => {
    const before = await countVariants();
    const notHtml = expectError(await t.as(alice).post(`/games/${game.id}/variants`, { name: 'X', entryAssetId: logo.id }), 400, 'VALIDATION_ERROR');
    expect(notHtml.details).toEqual([{ in: 'body', path: 'entryAssetId', message: 'is not a ready text/html asset of this organization' }]);

    const pending = (await t.as(alice).post('/storage/urls', { fileName: 'later.html', contentType: 'text/html' })).json();
    expectError(await t.as(alice).post(`/games/${game.id}/variants`, { name: 'X', entryAssetId: pending.assetId }), 400, 'VALIDATION_ERROR');

    const [bobsEntry] = await uploadFiles(t, bob, [sampleFile('index.html')]);
    expectError(await t.as(alice).post(`/games/${game.id}/variants`, { name: 'X', entryAssetId: bobsEntry!.id }), 400, 'VALIDATION_ERROR');
    expect(await countVariants()).toBe(before);
  });

  it('requires every asset to be a ready asset of the organization, with unique file names', async () => {
    const before = await countVariants();
    const [bobsLogo] = await uploadFiles(t, bob, [sampleFile('logo.png')]);
    const foreign = expectError(
      await t.as(alice).post(`/games/${game.id}/variants`, { name: 'X', entryAssetId: entry.id, assetIds: [logo.id, bobsLogo!.id, 'nope'] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(foreign.message).toContain(`${bobsLogo!.id}, nope`);

    const [secondLogo] = await uploadFiles(t, alice, [sampleFile('logo.png')]);
    const clash = expectError(
      await t.as(alice).post(`/games/${game.id}/variants`, { name: 'X', entryAssetId: entry.id, assetIds: [logo.id, secondLogo!.id] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(clash.message).toContain('logo.png');
    expect(await countVariants()).toBe(before);
  });

  it('validates the body: config must be a JSON object of at most 64 KiB, no unknown fields', async () => {
    const post = (body: unknown) => t.as(alice).post(`/games/${game.id}/variants`, body);
    const before = await countVariants();
    expectError(await post({ name: 'X', entryAssetId: entry.id, config: [1, 2] }), 400, 'VALIDATION_ERROR');
    expectError(await post({ name: 'X', entryAssetId: entry.id, config: { blob: 'x'.repeat(64 * 1024) } }), 400, 'VALIDATION_ERROR');
    expectError(await post({ name: 'X', entryAssetId: entry.id, colour: 'red' }), 400, 'VALIDATION_ERROR');
    expectError(await post({ entryAssetId: entry.id }), 400, 'VALIDATION_ERROR');
    expect(await countVariants()).toBe(before);
  });

  it("hides another organization's game and variants as 404", async () => {
    const variant = (await t.as(alice).post(`/games/${game.id}/variants`, { name: 'Private', entryAssetId: entry.id })).json();
    expectError(await t.as(bob).get(`/variants/${variant.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(bob).patch(`/variants/${variant.id}`, { name: 'Mine' }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(bob).delete(`/variants/${variant.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(bob).get(`/games/${game.id}/variants`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(bob).post(`/games/${game.id}/variants`, { name: 'X', entryAssetId: entry.id }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(alice).get('/variants/not-a-uuid'), 404, 'RESOURCE_NOT_FOUND');
    expect((await t.as(alice).get(`/variants/${variant.id}`)).json().name).toBe('Private');
  });

  it('needs games:read to read and games:write to write', async () => {
    const reader = await t.createToken(alice, ['games:read']);
    expect((await t.as(reader).get(`/games/${game.id}/variants`)).statusCode).toBe(200);
    const denied = expectError(await t.as(reader).post(`/games/${game.id}/variants`, { name: 'Token', entryAssetId: entry.id }), 403, [
      'INSUFFICIENT_PERMISSIONS',
      'Forbidden',
    ]);
    expect(denied.message).toBe('Insufficient permissions. Required: games:write');
    const writer = await t.createToken(alice, ['games:write']);
    expect((await t.as(writer).post(`/games/${game.id}/variants`, { name: 'Token', entryAssetId: entry.id })).statusCode).toBe(201);
  });
});
