// Assets over the API (local store through app.inject): validation, organization isolation,
// scopes, lists and deletion. The flow itself is in upload-flow.test.ts, the store's own
// refusals in storage-local.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';

let t: TestApp;
let alice: RegisteredUser;
let bob: RegisteredUser;

beforeAll(async () => {
  t = await createTestApp({ MAX_UPLOAD_BYTES: '1000' });
  alice = await t.register();
  bob = await t.register();
});
afterAll(() => t.close());

const countAssets = async () => Number((await t.sql<{ n: string }>('SELECT count(*) AS n FROM assets'))[0]!.n);
const png = (fileName = 'hero.png') => ({ fileName, contentType: 'image/png', body: Buffer.from('png bytes') });

describe('POST /storage/urls validation', () => {
  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['a content type off the allow-list', { fileName: 'a.exe', contentType: 'application/x-msdownload' }, 'contentType'],
    ['a content type with other casing', { fileName: 'a.png', contentType: 'Image/PNG' }, 'contentType'],
    ['a file name with a slash', { fileName: 'img/a.png', contentType: 'image/png' }, 'fileName'],
    ['a file name with a backslash', { fileName: '..\\a.png', contentType: 'image/png' }, 'fileName'],
    ['the file name ..', { fileName: '..', contentType: 'image/png' }, 'fileName'],
    ['a file name with a control character', { fileName: 'a\u0000.png', contentType: 'image/png' }, 'fileName'],
    ['a file name over 255 bytes', { fileName: `${'é'.repeat(126)}.png`, contentType: 'image/png' }, 'fileName'],
    ['an empty file name', { fileName: '', contentType: 'image/png' }, 'fileName'],
    ['a missing content type', { fileName: 'a.png' }, 'contentType'],
    ['a size over the maximum', { fileName: 'a.png', contentType: 'image/png', size: 1001 }, 'size'],
    ['a negative size', { fileName: 'a.png', contentType: 'image/png', size: -1 }, 'size'],
    ['a fractional size', { fileName: 'a.png', contentType: 'image/png', size: 1.5 }, 'size'],
    ['an unknown field', { fileName: 'a.png', contentType: 'image/png', path: '/etc' }, 'path'],
  ];

  it.each(invalid)('refuses %s with 400 and creates nothing', async (_case, body, field) => {
    const before = await countAssets();
    const error = expectError(await t.as(alice).post('/storage/urls', body), 400, 'VALIDATION_ERROR');
    expect(error.details).toContainEqual({ in: 'body', path: field, message: expect.any(String) });
    expect(await countAssets()).toBe(before);
  });

  it('accepts each kind on the allow-list and a 255-byte name', async () => {
    const types = [
      'image/webp',
      'audio/ogg',
      'video/mp4',
      'font/woff2',
      'application/json',
      'text/javascript',
      'text/css',
      'text/html',
      'application/wasm',
      'model/gltf+json',
      'model/gltf-binary',
    ];
    for (const contentType of types) {
      expect((await t.as(alice).post('/storage/urls', { fileName: 'x', contentType })).statusCode).toBe(201);
    }
    const longName = `${'é'.repeat(125)}.png`; // 254 bytes
    expect((await t.as(alice).post('/storage/urls', { fileName: `${longName}x`, contentType: 'image/png' })).statusCode).toBe(201);
  });

  it("refuses another organization's game or organization with 404 and creates nothing", async () => {
    const bobsGame = (await t.as(bob).post('/games', { name: 'Bob game' })).json();
    const before = await countAssets();
    for (const body of [
      { gameId: bobsGame.id },
      { gameId: 'not-a-uuid' },
      { gameId: '00000000-0000-4000-8000-000000000000' },
      { organizationId: bob.organization.id },
    ]) {
      expectError(await t.as(alice).post('/storage/urls', { fileName: 'a.png', contentType: 'image/png', ...body }), 404, 'RESOURCE_NOT_FOUND');
    }
    expect(await countAssets()).toBe(before);
  });

  it('ties the asset to a game of the same organization', async () => {
    const game = (await t.as(alice).post('/games', { name: 'Alice game' })).json();
    const res = await t.as(alice).post('/storage/urls', { fileName: 'a.png', contentType: 'image/png', gameId: game.id });
    expect(res.statusCode).toBe(201);
    expect((await t.as(alice).get(`/assets/${res.json().assetId}`)).json()).toMatchObject({ gameId: game.id, status: 'pending' });
  });

  it('needs organizationId from a member of several organizations', async () => {
    const carol = await t.register();
    const second = (await t.as(carol).post('/organizations', { name: 'Second' })).json();
    const before = await countAssets();
    expectError(await t.as(carol).post('/storage/urls', { fileName: 'a.png', contentType: 'image/png' }), 400, 'VALIDATION_ERROR');
    expect(await countAssets()).toBe(before);
    const res = await t.as(carol).post('/storage/urls', { fileName: 'a.png', contentType: 'image/png', organizationId: second.id });
    expect(res.json().uploadUrl).toContain(`orgs/${second.id}/`);
  });

  it('needs credentials', async () => {
    expectError(await t.as(null).post('/storage/urls', { fileName: 'a.png', contentType: 'image/png' }), 401, 'AUTHENTICATION_REQUIRED');
  });
});

describe('organization isolation', () => {
  it("hides another organization's asset as 404 on every asset endpoint", async () => {
    const asset = await t.uploadAsset(alice, png());
    const pending = (await t.as(alice).post('/storage/urls', { fileName: 'p.png', contentType: 'image/png' })).json();
    const bobToken = await t.createToken(bob, ['assets:write']);
    for (const intruder of [bob, bobToken]) {
      for (const id of [asset.id, pending.assetId]) {
        expectError(await t.as(intruder).get(`/assets/${id}`), 404, 'RESOURCE_NOT_FOUND');
        expectError(await t.as(intruder).post(`/assets/${id}/complete`), 404, 'RESOURCE_NOT_FOUND');
        expectError(await t.as(intruder).delete(`/assets/${id}`), 404, 'RESOURCE_NOT_FOUND');
      }
      const list = (await t.as(intruder).get('/assets')).json();
      expect(list.data.map((a: { id: string }) => a.id)).not.toContain(asset.id);
      expectError(await t.as(intruder).get(`/assets?organizationId=${alice.organization.id}`), 404, 'RESOURCE_NOT_FOUND');
    }
    expect((await t.as(alice).get(`/assets/${asset.id}`)).json()).toMatchObject({ status: 'ready' });
    expect((await t.as(alice).get(`/assets/${pending.assetId}`)).json()).toMatchObject({ status: 'pending' });
    expect(await t.store.head(`orgs/${alice.organization.id}/assets/${asset.id}`)).not.toBeNull();
  });

  it('treats a malformed id as not found', async () => {
    expectError(await t.as(alice).get('/assets/not-a-uuid'), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(alice).post('/assets/not-a-uuid/complete'), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(alice).delete('/assets/not-a-uuid'), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('scopes', () => {
  it('assets:read reads, assets:write is needed to write', async () => {
    const asset = await t.uploadAsset(alice, png('scoped.png'));
    const reader = await t.createToken(alice, ['assets:read']);
    expect((await t.as(reader).get('/assets')).statusCode).toBe(200);
    expect((await t.as(reader).get(`/assets/${asset.id}`)).statusCode).toBe(200);
    const before = await countAssets();
    for (const res of [
      await t.as(reader).post('/storage/urls', { fileName: 'a.png', contentType: 'image/png' }),
      await t.as(reader).post(`/assets/${asset.id}/complete`),
      await t.as(reader).delete(`/assets/${asset.id}`),
    ]) {
      expect(expectError(res, 403, ['INSUFFICIENT_PERMISSIONS', 'Forbidden']).message).toBe('Insufficient permissions. Required: assets:write');
    }
    expect(await countAssets()).toBe(before);

    const gamesOnly = await t.createToken(alice, ['games:write']);
    for (const res of [await t.as(gamesOnly).get('/assets'), await t.as(gamesOnly).get(`/assets/${asset.id}`)]) {
      expect(expectError(res, 403, ['INSUFFICIENT_PERMISSIONS', 'Forbidden']).message).toBe('Insufficient permissions. Required: assets:read');
    }
    // assets:write implies assets:read.
    const writer = await t.createToken(alice, ['assets:write']);
    expect((await t.as(writer).get(`/assets/${asset.id}`)).statusCode).toBe(200);
  });
});

describe('GET /assets', () => {
  let dave: RegisteredUser;
  let gameId: string;

  beforeAll(async () => {
    dave = await t.register();
    gameId = (await t.as(dave).post('/games', { name: 'Listed' })).json().id;
    await t.uploadAsset(dave, { fileName: 'b.css', contentType: 'text/css', body: 'b{}', gameId });
    await t.uploadAsset(dave, { fileName: 'a.js', contentType: 'text/javascript', body: 'let a = 1;' });
    await t.uploadAsset(dave, { fileName: 'c.json', contentType: 'application/json', body: '{"c":[1,2,3,4,5]}', gameId });
    await t.as(dave).post('/storage/urls', { fileName: 'd.png', contentType: 'image/png', gameId });
  });

  const names = (res: { json(): { data: Array<{ fileName: string }> } }) => res.json().data.map((a) => a.fileName);

  it('lists newest first by default, with the envelope', async () => {
    const res = await t.as(dave).get('/assets');
    expect(names(res)).toEqual(['d.png', 'c.json', 'a.js', 'b.css']);
    expect(res.json().meta).toEqual({ page: 1, limit: 20, total: 4, totalPages: 1 });
  });

  it('filters by game and status', async () => {
    expect(names(await t.as(dave).get(`/assets?gameId=${gameId}&sort=fileName&order=asc`))).toEqual(['b.css', 'c.json', 'd.png']);
    expect(names(await t.as(dave).get('/assets?status=pending'))).toEqual(['d.png']);
    expect(names(await t.as(dave).get(`/assets?status=ready&gameId=${gameId}`))).toEqual(['c.json', 'b.css']);
    expectError(await t.as(alice).get(`/assets?gameId=${gameId}`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('sorts by fileName and size, and pages', async () => {
    expect(names(await t.as(dave).get('/assets?sort=fileName&order=asc'))).toEqual(['a.js', 'b.css', 'c.json', 'd.png']);
    expect(names(await t.as(dave).get('/assets?sort=size&order=asc&status=ready'))).toEqual(['b.css', 'a.js', 'c.json']);
    const page = await t.as(dave).get('/assets?sort=fileName&order=asc&limit=3&page=2');
    expect(names(page)).toEqual(['d.png']);
    expect(page.json().meta).toEqual({ page: 2, limit: 3, total: 4, totalPages: 2 });
  });

  it('refuses bad list parameters', async () => {
    for (const query of ['sort=contentType', 'status=done', 'limit=101', 'page=0', 'order=up']) {
      expectError(await t.as(dave).get(`/assets?${query}`), 400, 'VALIDATION_ERROR');
    }
  });
});

describe('DELETE /assets/{id}', () => {
  it('deletes a pending asset', async () => {
    const { assetId } = (await t.as(alice).post('/storage/urls', { fileName: 'p.png', contentType: 'image/png' })).json();
    expect((await t.as(alice).delete(`/assets/${assetId}`)).statusCode).toBe(204);
    expectError(await t.as(alice).delete(`/assets/${assetId}`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('refuses with 409 while a variant uses the asset, and keeps it', async () => {
    const game = (await t.as(alice).post('/games', { name: 'With variant' })).json();
    const asset = await t.uploadAsset(alice, { fileName: 'index.html', contentType: 'text/html', body: '<p>hi</p>', gameId: game.id });
    await t.sql(`INSERT INTO variants (id, organization_id, game_id, name, entry_asset_id, updated_at) VALUES (gen_random_uuid(), $1, $2, 'v1', $3, now())`, [
      alice.organization.id,
      game.id,
      asset.id,
    ]);
    expectError(await t.as(alice).delete(`/assets/${asset.id}`), 409, 'DUPLICATE_RESOURCE');
    expect((await t.as(alice).get(`/assets/${asset.id}`)).json()).toMatchObject({ status: 'ready' });
    expect(await t.store.head(`orgs/${alice.organization.id}/assets/${asset.id}`)).not.toBeNull();
  });
});
