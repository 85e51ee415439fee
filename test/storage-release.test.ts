// CONTRACT §8: a request that is aborted or malformed releases every file, handle and byte it
// took. Raw requests over a real socket against the listening app (it runs in this process, so
// /proc/self/fd counts its open files and sockets), on the local store, whose signed routes
// stream bodies to and from disk themselves.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStorageConfig } from '../src/config.js';
import { createTestApp, type RegisteredUser, type TestApp } from './helpers/app.js';
import { eventually, httpRequest, openFileCount, rawRequest } from './helpers/raw-http.js';

let t: TestApp;
let alice: RegisteredUser;
let port: number;
let incomingDir: string;

beforeAll(async () => {
  t = await createTestApp({ HTTP_IDLE_TIMEOUT_SECONDS: '2' }, { listen: true });
  alice = await t.register();
  port = Number(new URL(t.config.publicUrl).port);
  incomingDir = path.join((t.config.storage.backend as LocalStorageConfig).directory, 'incoming');
});
afterAll(() => t.close());

const filesIn = (directory: string) => {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
};

/**
 * Open files once the app has served a few uploads side by side (so the database pool and
 * every lazily opened file already count).
 */
async function settledFileCount(): Promise<number> {
  await Promise.all(Array.from({ length: 6 }, (_, i) => t.uploadAsset(alice, { fileName: `warm-${i}.json`, contentType: 'application/json', body: '{}' })));
  return openFileCount();
}

async function expectReleasedTo(baseline: number) {
  await eventually(() => {
    expect(filesIn(incomingDir)).toEqual([]);
    expect(openFileCount()).toBeLessThanOrEqual(baseline);
  });
}

async function issueUpload(size?: number) {
  const res = await t.as(alice).post('/storage/urls', { fileName: 'level.json', contentType: 'application/json', ...(size === undefined ? {} : { size }) });
  expect(res.statusCode).toBe(201);
  return res.json() as { assetId: string; uploadUrl: string };
}

describe('an upload that is malformed or aborted', () => {
  it('a body longer than its Content-Length, 20 times: refused, nothing kept open, the URL still works once', async () => {
    const baseline = await settledFileCount();
    const upload = await issueUpload();
    const malformed = httpRequest('PUT', upload.uploadUrl, { 'Content-Type': 'application/json', 'Content-Length': 5 }, '0123456789');
    const answers = await Promise.all(Array.from({ length: 20 }, () => rawRequest(port, malformed)));
    for (const answer of answers) {
      expect(answer.text).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer.json()).toEqual({ statusCode: 400, error: 'VALIDATION_ERROR', message: expect.any(String) });
    }
    await expectReleasedTo(baseline);

    expect((await t.fetchUrl(upload.uploadUrl, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{"ok":1}' })).statusCode).toBe(200);
    expect((await t.fetchUrl(upload.uploadUrl, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{"ok":2}' })).statusCode).toBe(409);
    expect((await t.as(alice).post(`/assets/${upload.assetId}/complete`)).json()).toMatchObject({ status: 'ready', size: 8 });
  });

  it('a client that announces 100 kB, sends part of it and goes away', async () => {
    const baseline = await settledFileCount();
    const upload = await issueUpload(100_000);
    const head = httpRequest('PUT', upload.uploadUrl, { 'Content-Type': 'application/json', 'Content-Length': 100_000 });
    await Promise.all(Array.from({ length: 20 }, () => rawRequest(port, [head, Buffer.alloc(30_000, 0x20)], { abortAfterWrite: true })));
    await expectReleasedTo(baseline);
    const [row] = await t.sql('SELECT status FROM assets WHERE id = $1', [upload.assetId]);
    expect(row).toEqual({ status: 'pending' });
    const body = Buffer.alloc(100_000, 0x20);
    expect((await t.fetchUrl(upload.uploadUrl, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body })).statusCode).toBe(200);
  });

  it('a client that stops sending and keeps the connection open: closed after HTTP_IDLE_TIMEOUT_SECONDS', async () => {
    const baseline = await settledFileCount();
    const upload = await issueUpload(1000);
    const head = httpRequest('PUT', upload.uploadUrl, { 'Content-Type': 'application/json', 'Content-Length': 1000 });
    // No abort from this side: only the server's idle timeout ends these.
    const answers = await Promise.all(Array.from({ length: 5 }, () => rawRequest(port, [head, Buffer.alloc(10, 0x20)], { timeoutMs: 20_000 })));
    for (const answer of answers) expect(answer).toMatchObject({ text: '', timedOut: false });
    await expectReleasedTo(baseline);
  });

  it('a chunked body cut off in the middle of a chunk', async () => {
    const baseline = await settledFileCount();
    const upload = await issueUpload();
    const head = httpRequest('PUT', upload.uploadUrl, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => rawRequest(port, [head, '7d0\r\n', Buffer.alloc(2000, 0x20), 'zz\r\n'])));
    // A 2000-byte chunk followed by `zz` where its CRLF must be: Node's parser refuses it.
    for (const answer of answers) expect(answer.text).toMatch(/^HTTP\/1\.1 400 /);
    await expectReleasedTo(baseline);
  });
});

describe('a stream that fails before its file is even open', () => {
  it('leaves no file under incoming/ once the write has failed, not even a moment later', async () => {
    // Fails on its first read: as soon as the write starts, while its file is still opening.
    const failing = () =>
      new Readable({
        read() {
          this.destroy(new Error('the source failed'));
        },
      });
    for (let round = 0; round < 10; round++) {
      const writes = Array.from({ length: 20 }, (_, i) => t.store.writeStream(`orgs/test/failing-${round}-${i}`, failing(), { contentType: 'application/json' }));
      for (const written of await Promise.allSettled(writes)) expect(written.status).toBe('rejected');
      await new Promise((resolve) => setTimeout(resolve, 20));
      // The files the writes opened are gone: not left for a sweep.
      expect(filesIn(incomingDir)).toEqual([]);
    }
  });
});

describe('a complete the client gives up on', () => {
  it('still hashes the object to the end, marks the asset ready, and closes the object again', async () => {
    const upload = await issueUpload(4 * 1024 * 1024);
    const body = randomBytes(4 * 1024 * 1024);
    expect((await t.fetchUrl(upload.uploadUrl, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body })).statusCode).toBe(200);
    const baseline = await settledFileCount();
    const complete = `POST /api/assets/${upload.assetId}/complete HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${alice.headers.cookie}\r\n\r\n`;
    await Promise.all(Array.from({ length: 10 }, () => rawRequest(port, complete, { abortAfterWrite: true })));
    await expectReleasedTo(baseline);
    expect((await t.as(alice).get(`/assets/${upload.assetId}`)).json()).toMatchObject({ status: 'ready', size: body.length });
  });
});

describe('a signed download the client gives up on', () => {
  it('before the first byte or in the middle: every file of the store is closed again', async () => {
    const asset = await t.uploadAsset(alice, { fileName: 'big.json', contentType: 'application/json', body: randomBytes(8 * 1024 * 1024) });
    const baseline = await settledFileCount();
    const request = httpRequest('GET', asset.downloadUrl, {});
    await Promise.all([
      ...Array.from({ length: 10 }, () => rawRequest(port, request, { abortAfterWrite: true })),
      ...Array.from({ length: 10 }, () => rawRequest(port, request, { abortAfterBytes: 64 * 1024 })),
    ]);
    await expectReleasedTo(baseline);
    const whole = await t.fetchUrl(asset.downloadUrl);
    expect(whole.body.length).toBe(8 * 1024 * 1024);
  });
});
