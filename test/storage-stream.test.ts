// ObjectStore.writeStream on both stores: a stream larger than one S3 part is stored whole (S3:
// multipart upload; local: temporary file renamed into place), and a stream that fails midway
// stores nothing.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createObjectStore } from '../src/storage/index.js';
import type { ObjectStore } from '../src/storage/types.js';
import { startS3Server } from './helpers/s3.js';
import { TEST_ENV } from './helpers/app.js';

const MiB = 1024 * 1024;

/** `chunks` chunks of 1 MiB of random bytes, produced one at a time; optionally failing after `failAfter`. */
function generated(chunks: number, failAfter?: number): { stream: Readable; sha256: () => string } {
  const hash = createHash('sha256');
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent === failAfter) return this.destroy(new Error('the producer failed'));
      if (sent === chunks) return this.push(null);
      const chunk = randomBytes(MiB);
      hash.update(chunk);
      sent += 1;
      this.push(chunk);
    },
  });
  return { stream, sha256: () => hash.digest('hex') };
}

const stores = [
  { name: 'local disk store', start: async () => ({ env: {}, close: async () => {} }) },
  { name: 'S3 store (s3rver)', start: startS3Server },
];

describe.each(stores)('writeStream on the $name', ({ start }) => {
  let server: Awaited<ReturnType<typeof start>>;
  let store: ObjectStore;
  let dataDir: string;

  beforeAll(async () => {
    server = await start();
    dataDir = mkdtempSync(path.join(tmpdir(), 'pcs-stream-'));
    store = await createObjectStore(loadConfig({ ...TEST_ENV, DATA_DIR: dataDir, ...server.env }));
  });
  afterAll(() => server.close());

  it('stores a 12 MiB stream (more than two S3 parts) byte for byte', async () => {
    const source = generated(12);
    await store.writeStream('orgs/o/batches/b/all.zip', source.stream, { contentType: 'application/zip' });
    expect(await store.head('orgs/o/batches/b/all.zip')).toEqual({ size: 12 * MiB, contentType: 'application/zip' });
    const stored = await buffer(await store.read('orgs/o/batches/b/all.zip'));
    expect(createHash('sha256').update(stored).digest('hex')).toBe(source.sha256());
  });

  it('stores nothing when the stream fails midway, and throws its error', async () => {
    await expect(store.writeStream('orgs/o/batches/b/broken.zip', generated(12, 7).stream, { contentType: 'application/zip' })).rejects.toThrow(
      'the producer failed',
    );
    expect(await store.head('orgs/o/batches/b/broken.zip')).toBeNull();
    if (store.kind === 'local') expect(readdirSync(path.join(dataDir, 'objects', 'incoming'))).toEqual([]);
  });
});
