// Must show 2: the local store's signed upload URL refuses what S3 would refuse — another
// Content-Type, an expired or tampered URL, a body over the limit, a second upload — with the
// contract's error body, and a refused attempt leaves nothing on disk or in the database.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStorageConfig } from '../src/config.js';
import { createTestApp, expectError, type RegisteredUser, type StoreResponse, type TestApp } from './helpers/app.js';

const MAX_UPLOAD_BYTES = 4096;
let t: TestApp;
let alice: RegisteredUser;

beforeAll(async () => {
  t = await createTestApp({ MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) }, { listen: true });
  alice = await t.register();
});
afterAll(() => t.close());

interface IssuedUpload {
  assetId: string;
  uploadUrl: string;
  headers: Record<string, string>;
  expiresAt: string;
}

async function issue(app: TestApp, body: Record<string, unknown> = {}, caller: RegisteredUser = alice): Promise<IssuedUpload> {
  const res = await app.as(caller).post('/storage/urls', { fileName: 'level.json', contentType: 'application/json', ...body });
  expect(res.statusCode).toBe(201);
  return res.json();
}

const put = (app: TestApp, url: string, body: Buffer | string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
  app.fetchUrl(url, { method: 'PUT', headers, body });

/** Every file under a directory, relative to it. */
function filesUnder(directory: string): string[] {
  try {
    return readdirSync(directory, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)));
  } catch {
    return [];
  }
}

/** The refusal left no object, no partial upload, and an asset row that is still untouched. */
async function expectNothingStored(app: TestApp, assetId: string, caller: RegisteredUser = alice) {
  const { directory } = app.config.storage.backend as LocalStorageConfig;
  expect(filesUnder(path.join(directory, 'data')).filter((f) => f.includes(assetId))).toEqual([]);
  expect(filesUnder(path.join(directory, 'incoming'))).toEqual([]);
  const [row] = await app.sql('SELECT status, size, checksum, completed_at FROM assets WHERE id = $1', [assetId]);
  expect(row).toEqual({ status: 'pending', size: null, checksum: null, completed_at: null });
  expectError(await app.as(caller).post(`/assets/${assetId}/complete`), 409, 'DUPLICATE_RESOURCE');
}

function expectRefusal(res: StoreResponse, statusCode: number, error: string, message: RegExp) {
  expect(res.statusCode).toBe(statusCode);
  expect(res.json()).toEqual({ statusCode, error, message: expect.stringMatching(message) });
}

describe('the local store refuses', () => {
  it('another Content-Type, or none', async () => {
    const upload = await issue(t);
    expectRefusal(await put(t, upload.uploadUrl, '{}', { 'Content-Type': 'text/html' }), 415, 'UNSUPPORTED_MEDIA_TYPE', /application\/json/);
    // A Buffer body, so that fetch adds no Content-Type of its own.
    expectRefusal(await put(t, upload.uploadUrl, Buffer.from('{}'), {}), 415, 'UNSUPPORTED_MEDIA_TYPE', /application\/json/);
    await expectNothingStored(t, upload.assetId);
  });

  it('a tampered signature, a tampered field, or another key', async () => {
    const upload = await issue(t, { size: 2 });
    const other = await issue(t);
    const url = new URL(upload.uploadUrl);
    const signature = url.searchParams.get('signature')!;

    const badSignature = new URL(url);
    badSignature.searchParams.set('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
    const biggerSize = new URL(url);
    biggerSize.searchParams.set('size', '3');
    const otherType = new URL(url);
    otherType.searchParams.set('contentType', 'text/html');
    const otherKey = new URL(url);
    otherKey.pathname = new URL(other.uploadUrl).pathname;
    const noSignature = new URL(url);
    noSignature.searchParams.delete('signature');
    // A parameter the URL was not signed with: S3 refuses it too (the query is part of what SigV4 signs).
    const extraParameter = new URL(url);
    extraParameter.searchParams.set('x-amz-acl', 'public-read');
    // A limit beside the exact size it was signed with.
    const sizeAndLimit = new URL(url);
    sizeAndLimit.searchParams.set('maxSize', '1000');

    for (const tampered of [badSignature, biggerSize, otherType, otherKey, noSignature, extraParameter, sizeAndLimit]) {
      const headers = { 'Content-Type': tampered.searchParams.get('contentType')! };
      const body = '{}'.padEnd(Number(tampered.searchParams.get('size')), ' ');
      expectRefusal(await put(t, tampered.toString(), body, headers), 403, 'INSUFFICIENT_PERMISSIONS', /signature/);
    }
    await expectNothingStored(t, upload.assetId);
    await expectNothingStored(t, other.assetId);
  });

  it('an expired upload or download URL', async () => {
    // The store's clock is the test's: URLs are issued now and used just after they expire.
    let clock = Date.now();
    const shortLived = await createTestApp({ UPLOAD_URL_TTL_SECONDS: '60', DOWNLOAD_URL_TTL_SECONDS: '60' }, { listen: true, now: () => clock });
    try {
      const bob = await shortLived.register();
      const upload = await issue(shortLived, {}, bob);
      const ready = await shortLived.uploadAsset(bob, { fileName: 'b.json', contentType: 'application/json', body: '{}' });
      const latest = Math.max(Date.parse(upload.expiresAt), Number(new URL(ready.downloadUrl).searchParams.get('expires')) * 1000);
      clock = latest + 1000;
      expectRefusal(await put(shortLived, upload.uploadUrl, '{}'), 403, 'INSUFFICIENT_PERMISSIONS', /expired/);
      await expectNothingStored(shortLived, upload.assetId, bob);
      expectRefusal(await shortLived.fetchUrl(ready.downloadUrl), 403, 'INSUFFICIENT_PERMISSIONS', /expired/);
    } finally {
      await shortLived.close();
    }
  });

  it('a body over the declared size, and one under it', async () => {
    const upload = await issue(t, { size: 10 });
    expectRefusal(await put(t, upload.uploadUrl, '{"a":12345}'), 413, 'PAYLOAD_TOO_LARGE', /10 bytes/);
    expectRefusal(await put(t, upload.uploadUrl, '{}'), 400, 'VALIDATION_ERROR', /exactly 10 bytes/);
    await expectNothingStored(t, upload.assetId);
    expect((await put(t, upload.uploadUrl, '{"a":1234}')).statusCode).toBe(200);
  });

  it('a body over the configured maximum, announced or streamed without a length', async () => {
    const upload = await issue(t);
    const tooBig = Buffer.alloc(MAX_UPLOAD_BYTES + 1, 0x20);
    expectRefusal(await put(t, upload.uploadUrl, tooBig), 413, 'PAYLOAD_TOO_LARGE', /4096 bytes/);

    // Chunked, so the server only finds out while streaming.
    const chunks = [Buffer.alloc(3000, 0x20), Buffer.alloc(3000, 0x20)];
    const streamed = await fetch(upload.uploadUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: new ReadableStream({
        pull(controller) {
          const chunk = chunks.shift();
          if (chunk) controller.enqueue(chunk);
          else controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ statusCode: 413, error: 'PAYLOAD_TOO_LARGE' });
    await expectNothingStored(t, upload.assetId);
  });

  it('a second upload to the same URL, keeping the first', async () => {
    const upload = await issue(t);
    expect((await put(t, upload.uploadUrl, '{"first":true}')).statusCode).toBe(200);
    expectRefusal(await put(t, upload.uploadUrl, '{"second":true}'), 409, 'DUPLICATE_RESOURCE', /already uploaded/);
    const asset = (await t.as(alice).post(`/assets/${upload.assetId}/complete`)).json();
    expect((await t.fetchUrl(asset.downloadUrl)).body.toString()).toBe('{"first":true}');
    expect(filesUnder(path.join((t.config.storage.backend as LocalStorageConfig).directory, 'incoming'))).toEqual([]);
  });

  it('a tampered download URL', async () => {
    const asset = await t.uploadAsset(alice, { fileName: 'a.json', contentType: 'application/json', body: '{}' });
    const url = new URL(asset.downloadUrl);
    const otherName = new URL(url);
    otherName.searchParams.set('fileName', 'evil.html');
    expectRefusal(await t.fetchUrl(otherName.toString()), 403, 'INSUFFICIENT_PERMISSIONS', /signature/);
    const longer = new URL(url);
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expectRefusal(await t.fetchUrl(longer.toString()), 403, 'INSUFFICIENT_PERMISSIONS', /signature/);
    const extra = new URL(url);
    extra.searchParams.set('response-content-type', 'text/html');
    expectRefusal(await t.fetchUrl(extra.toString()), 403, 'INSUFFICIENT_PERMISSIONS', /signature/);
    expect((await t.fetchUrl(url.toString())).statusCode).toBe(200);
  });
});

describe('the local store serves downloads safely', () => {
  it('as attachments that cannot run with the service origin', async () => {
    const asset = await t.uploadAsset(alice, { fileName: 'index.html', contentType: 'text/html', body: '<script>1</script>' });
    const res = await t.fetchUrl(asset.downloadUrl);
    expect(res.headers).toMatchObject({
      'content-type': 'text/html',
      'content-disposition': 'attachment; filename="index.html"; filename*=UTF-8\'\'index.html',
      'content-security-policy': 'sandbox',
      'x-content-type-options': 'nosniff',
    });
  });
});
