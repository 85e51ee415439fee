// Must show 1: the whole upload flow, for both object stores. The S3 store runs against s3rver,
// a real S3 API server, which stores and serves objects but checks no signatures — the signed
// URLs themselves are checked in test/storage-s3-presign.test.ts.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp, type TokenCaller } from './helpers/app.js';
import { startS3Server } from './helpers/s3.js';

const stores = [
  { store: 'local disk store', kind: 'local', start: async () => ({ env: {}, close: async () => {} }) },
  { store: 'S3 store (s3rver)', kind: 's3', start: startS3Server },
];

describe.each(stores)('the upload flow on the $store', ({ kind, start }) => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof start>>;
  let alice: RegisteredUser;
  let script: TokenCaller;

  beforeAll(async () => {
    server = await start();
    t = await createTestApp(server.env, { listen: true });
    alice = await t.register();
    script = await t.createToken(alice, ['assets:write']);
  });
  afterAll(async () => {
    await t.close();
    await server.close();
  });

  it(`runs on the ${kind} store`, () => {
    expect(t.store.kind).toBe(kind);
  });

  it('URL → PUT without a service token → complete → list → download → delete', async () => {
    const bytes = randomBytes(50_000);
    const issued = await t.as(script).post('/storage/urls', { fileName: 'hero.png', contentType: 'image/png', size: bytes.length });
    expect(issued.statusCode).toBe(201);
    const upload = issued.json();
    expect(upload).toEqual({
      assetId: expect.any(String),
      uploadUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
      method: 'PUT',
      headers: { 'Content-Type': 'image/png' },
      expiresAt: expect.any(String),
    });
    const ttl = Date.parse(upload.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);
    // The object key is namespaced by organization and asset id, not the file name.
    expect(upload.uploadUrl).toContain(`orgs/${alice.organization.id}/assets/${upload.assetId}`);
    expect(upload.uploadUrl).not.toContain('hero.png');

    expectError(await t.as(script).post(`/assets/${upload.assetId}/complete`), 409, 'DUPLICATE_RESOURCE');
    const pending = await t.as(script).get(`/assets/${upload.assetId}`);
    expect(pending.json()).toMatchObject({ status: 'pending', size: null, checksum: null });
    expect(pending.json()).not.toHaveProperty('downloadUrl');

    // Step 2 carries no Authorization header: the URL is the credential.
    const put = await t.fetchUrl(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: bytes });
    expect(put.statusCode).toBe(200);

    const completed = await t.as(script).post(`/assets/${upload.assetId}/complete`);
    expect(completed.statusCode).toBe(200);
    const asset = completed.json();
    expect(asset).toMatchObject({
      id: upload.assetId,
      organizationId: alice.organization.id,
      fileName: 'hero.png',
      contentType: 'image/png',
      status: 'ready',
      size: bytes.length,
      checksum: createHash('sha256').update(bytes).digest('hex'),
      completedAt: expect.any(String),
    });
    // Completing again is harmless.
    expect((await t.as(script).post(`/assets/${upload.assetId}/complete`)).json()).toMatchObject({ status: 'ready' });

    const list = await t.as(script).get('/assets?status=ready');
    expect(list.json().data.map((a: { id: string }) => a.id)).toContain(upload.assetId);

    const fetched = (await t.as(script).get(`/assets/${upload.assetId}`)).json();
    const download = await t.fetchUrl(fetched.downloadUrl);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('image/png');
    expect(download.headers['content-disposition']).toContain('hero.png');
    expect(download.body.equals(bytes)).toBe(true);

    const deleted = await t.as(script).delete(`/assets/${upload.assetId}`);
    expect(deleted.statusCode).toBe(204);
    expectError(await t.as(script).get(`/assets/${upload.assetId}`), 404, 'RESOURCE_NOT_FOUND');
    expect(await t.store.head(`orgs/${alice.organization.id}/assets/${upload.assetId}`)).toBeNull();
    expect((await t.fetchUrl(fetched.downloadUrl)).statusCode).toBe(404);
  });

  it('a GET of a pending asset finds an upload that was never completed', async () => {
    const upload = (await t.as(script).post('/storage/urls', { fileName: 'theme.mp3', contentType: 'audio/mpeg' })).json();
    const bytes = randomBytes(1000);
    expect((await t.fetchUrl(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: bytes })).statusCode).toBe(200);
    const asset = (await t.as(script).get(`/assets/${upload.assetId}`)).json();
    expect(asset).toMatchObject({ status: 'ready', size: 1000, downloadUrl: expect.any(String) });
    const [row] = await t.sql('SELECT status, size::int AS size FROM assets WHERE id = $1', [upload.assetId]);
    expect(row).toEqual({ status: 'ready', size: 1000 });
  });

  it('readiness includes the object store', async () => {
    const res = await t.as(null).get('/health/ready');
    expect(res.statusCode).toBe(200);
    expect(res.json().checks).toEqual({ database: 'ok', objectStore: 'ok', queue: 'ok' });
  });
});
