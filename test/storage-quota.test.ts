// CONTRACT §8, storage: a per-organization quota (ORG_STORAGE_QUOTA_BYTES) that an upload URL's
// declared size or a completed object must fit (413 naming the quota, the object deleted),
// `usage` on GET /organizations/{id}, and an upload URL that stops accepting bytes once its
// asset is deleted. On both stores; S3 through s3rver, as test/upload-flow.test.ts does.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStorageConfig } from '../src/config.js';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';
import { eventually, httpRequest } from './helpers/raw-http.js';
import { startS3Server } from './helpers/s3.js';

const QUOTA = 10_000;

const stores = [
  { store: 'local disk store', kind: 'local', start: async () => ({ env: {}, close: async () => {} }) },
  { store: 'S3 store (s3rver)', kind: 's3', start: startS3Server },
];

describe.each(stores)('storage quota and usage on the $store', ({ start }) => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof start>>;

  beforeAll(async () => {
    server = await start();
    t = await createTestApp({ ...server.env, ORG_STORAGE_QUOTA_BYTES: String(QUOTA) }, { listen: true });
  });
  afterAll(async () => {
    await t.close();
    await server.close();
  });

  const usageOf = async (user: RegisteredUser) =>
    (await t.as(user).get(`/organizations/${user.organization.id}`)).json().usage as { storageBytes: number; quotaBytes: number };
  const urlFor = (user: RegisteredUser, size?: number) =>
    t.as(user).post('/storage/urls', { fileName: 'a.bin.json', contentType: 'application/json', ...(size === undefined ? {} : { size }) });
  const put = (upload: { uploadUrl: string; headers: Record<string, string> }, body: Buffer) =>
    t.fetchUrl(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body });

  it('counts ready assets and the declared sizes of open uploads, and refuses a URL that does not fit', async () => {
    const alice = await t.register();
    expect(await usageOf(alice)).toEqual({ storageBytes: 0, quotaBytes: QUOTA });

    const reserved = await urlFor(alice, 6000);
    expect(reserved.statusCode).toBe(201);
    expect(await usageOf(alice)).toEqual({ storageBytes: 6000, quotaBytes: QUOTA });

    const before = await t.rowCounts();
    const refused = expectError(await urlFor(alice, 4001), 413, 'PAYLOAD_TOO_LARGE');
    expect(refused.message).toContain(`${QUOTA} bytes`);
    expect(await t.rowCounts()).toEqual(before);
    expect((await urlFor(alice, 4000)).statusCode).toBe(201);

    // Completing turns the reservation into the stored size; deleting frees it.
    const upload = reserved.json();
    expect((await put(upload, randomBytes(6000))).statusCode).toBe(200);
    expect((await t.as(alice).post(`/assets/${upload.assetId}/complete`)).json()).toMatchObject({ status: 'ready', size: 6000 });
    expect(await usageOf(alice)).toEqual({ storageBytes: 10_000, quotaBytes: QUOTA });
    expect((await t.as(alice).delete(`/assets/${upload.assetId}`)).statusCode).toBe(204);
    expect(await usageOf(alice)).toEqual({ storageBytes: 4000, quotaBytes: QUOTA });

    // Another organization has a quota of its own.
    const bob = await t.register();
    expect((await urlFor(bob, QUOTA)).statusCode).toBe(201);
  });

  it('refuses to complete an upload of undeclared size that does not fit, deleting the object', async () => {
    const alice = await t.register();
    expect((await urlFor(alice, 7000)).statusCode).toBe(201);
    const open = (await urlFor(alice)).json();
    expect((await put(open, randomBytes(3001))).statusCode).toBe(200);
    const refused = expectError(await t.as(alice).post(`/assets/${open.assetId}/complete`), 413, 'PAYLOAD_TOO_LARGE');
    expect(refused.message).toContain(`${QUOTA} bytes`);
    const key = `orgs/${alice.organization.id}/assets/${open.assetId}`;
    expect(await t.store.head(key)).toBeNull();
    expect((await t.as(alice).get(`/assets/${open.assetId}`)).json()).toMatchObject({ status: 'pending', size: null });
    expect(await usageOf(alice)).toEqual({ storageBytes: 7000, quotaBytes: QUOTA });
  });

  it('lets concurrent requests never overshoot the quota', async () => {
    const alice = await t.register();
    const answers = await Promise.all(Array.from({ length: 10 }, () => urlFor(alice, 3000)));
    expect(answers.filter((res) => res.statusCode === 201)).toHaveLength(3);
    for (const res of answers.filter((r) => r.statusCode !== 201)) expectError(res, 413, 'PAYLOAD_TOO_LARGE');

    // Completions of undeclared uploads race for the last 1000 bytes: exactly one fits.
    const open = await Promise.all(Array.from({ length: 4 }, async () => (await urlFor(alice)).json()));
    for (const upload of open) expect((await put(upload, randomBytes(1000))).statusCode).toBe(200);
    const completed = await Promise.all(open.map((upload) => t.as(alice).post(`/assets/${upload.assetId}/complete`)));
    expect(completed.map((res) => res.statusCode).sort()).toEqual([200, 413, 413, 413]);
    expect(await usageOf(alice)).toEqual({ storageBytes: QUOTA, quotaBytes: QUOTA });
  });

  it('does not count an upload URL that expired unused', async () => {
    const shortLived = await t.anotherInstance({ UPLOAD_URL_TTL_SECONDS: '1' });
    const alice = await t.register();
    expect((await shortLived.as(alice).post('/storage/urls', { fileName: 'x.json', contentType: 'application/json', size: QUOTA })).statusCode).toBe(201);
    // (While open it counts, as the first test shows; asserting that here would race the second.)
    await eventually(async () => expect(await usageOf(alice)).toEqual({ storageBytes: 0, quotaBytes: QUOTA }), 5000);
    expect((await urlFor(alice, QUOTA)).statusCode).toBe(201);
  });
});

describe('an upload URL whose asset was deleted (local store)', () => {
  let t: TestApp;
  let alice: RegisteredUser;
  let objectsDir: string;

  beforeAll(async () => {
    t = await createTestApp({}, { listen: true });
    alice = await t.register();
    objectsDir = (t.config.storage.backend as LocalStorageConfig).directory;
  });
  afterAll(() => t.close());

  const filesUnder = (directory: string) => {
    try {
      return readdirSync(directory, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name);
    } catch {
      return [];
    }
  };

  it('refuses the PUT with 404 and stores nothing', async () => {
    const upload = (await t.as(alice).post('/storage/urls', { fileName: 'a.json', contentType: 'application/json' })).json();
    expect((await t.as(alice).delete(`/assets/${upload.assetId}`)).statusCode).toBe(204);
    const res = await t.fetchUrl(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: '{}' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ statusCode: 404, error: 'RESOURCE_NOT_FOUND', message: expect.stringMatching(/deleted/) });
    expect(filesUnder(path.join(objectsDir, 'data')).filter((f) => f === upload.assetId)).toEqual([]);
    expect(filesUnder(path.join(objectsDir, 'incoming'))).toEqual([]);
  });

  it('deletes what arrives after the asset was deleted in the middle of the upload', async () => {
    const upload = (await t.as(alice).post('/storage/urls', { fileName: 'b.json', contentType: 'application/json', size: 200_000 })).json();
    const port = Number(new URL(t.config.publicUrl).port);
    const head = httpRequest('PUT', upload.uploadUrl, { 'Content-Type': 'application/json', 'Content-Length': 200_000 });
    // Half the body, then the asset is deleted, then the other half.
    const socket = net.connect({ host: '127.0.0.1', port });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(Buffer.concat([head, Buffer.alloc(100_000, 0x20)]));
    await eventually(() => expect(filesUnder(path.join(objectsDir, 'incoming'))).toHaveLength(1));
    expect((await t.as(alice).delete(`/assets/${upload.assetId}`)).statusCode).toBe(204);
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', () => {});
    });
    // write, not end: a half-closed connection would abort the request before its answer.
    socket.write(Buffer.alloc(100_000, 0x20));
    expect(await answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(await t.store.head(`orgs/${alice.organization.id}/assets/${upload.assetId}`)).toBeNull();
    await eventually(() => expect(filesUnder(path.join(objectsDir, 'incoming'))).toEqual([]));
  });
});
