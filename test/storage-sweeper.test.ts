// CONTRACT §8: pending assets past their expiry are swept together with any partial object, and
// an object whose asset row is gone is deleted — on both stores (S3 through s3rver). The sweep
// runs on the test's clock, moved past the URLs' expiry and the sweeper's grace period.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStorageConfig } from '../src/config.js';
import { SWEEP_GRACE_MS, SWEEP_LOCK_KEY, type StorageSweeperDeps, sweepStorage } from '../src/jobs/storage-sweeper.js';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';
import { eventually } from './helpers/raw-http.js';
import { startS3Server } from './helpers/s3.js';

const stores = [
  { store: 'local disk store', kind: 'local', start: async () => ({ env: {}, close: async () => {} }) },
  { store: 'S3 store (s3rver)', kind: 's3', start: startS3Server },
];
const silent = { info() {}, warn() {}, error() {} };

describe.each(stores)('the storage sweeper on the $store', ({ kind, start }) => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof start>>;
  let alice: RegisteredUser;
  const afterExpiry = () => Date.now() + 15 * 60_000 + SWEEP_GRACE_MS + 60_000;
  const deps = (now: () => number): StorageSweeperDeps => ({ db: t.db, store: t.store, settings: t.config.storage, log: silent, now });

  beforeAll(async () => {
    server = await start();
    t = await createTestApp(server.env, { listen: true });
    alice = await t.register();
  });
  afterAll(async () => {
    await t.close();
    await server.close();
  });

  const issue = async (size?: number) =>
    (await t.as(alice).post('/storage/urls', { fileName: 'f.json', contentType: 'application/json', ...(size === undefined ? {} : { size }) })).json();
  const keyOf = (assetId: string) => `orgs/${alice.organization.id}/assets/${assetId}`;

  it('deletes expired uploads that never came, confirms those that did, and deletes objects without an asset', async () => {
    const abandoned = await issue(1000);
    const uploadedNotCompleted = await issue();
    const body = randomBytes(700);
    expect((await t.fetchUrl(uploadedNotCompleted.uploadUrl, { method: 'PUT', headers: uploadedNotCompleted.headers, body })).statusCode).toBe(200);
    const ready = await t.uploadAsset(alice, { fileName: 'ready.json', contentType: 'application/json', body: '{}' });
    const stillOpen = await issue(10);
    // An object whose asset row is gone (its upload finished after the asset was deleted), and an
    // export artifact, which is no asset's object and must stay.
    const orphanKey = keyOf(randomUUID());
    await t.store.write(orphanKey, Buffer.from('orphan'), { contentType: 'application/json' });
    const artifactKey = `orgs/${alice.organization.id}/exports/${randomUUID()}/game.html`;
    await t.store.write(artifactKey, Buffer.from('<html></html>'), { contentType: 'text/html' });

    // Before the grace period is over nothing pending is touched; the orphan goes at once.
    expect(await sweepStorage(deps(Date.now))).toEqual({ confirmed: 0, expired: 0, orphans: 1, partials: 0 });
    expect(await t.store.head(orphanKey)).toBeNull();
    expect((await t.as(alice).get(`/assets/${abandoned.assetId}`)).statusCode).toBe(200);

    const report = await sweepStorage(deps(afterExpiry));
    expect(report).toMatchObject({ confirmed: 1, expired: 2, orphans: 0 });
    expectError(await t.as(alice).get(`/assets/${abandoned.assetId}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(alice).get(`/assets/${stillOpen.assetId}`), 404, 'RESOURCE_NOT_FOUND');
    expect((await t.as(alice).get(`/assets/${uploadedNotCompleted.assetId}`)).json()).toMatchObject({ status: 'ready', size: 700 });
    expect((await t.as(alice).get(`/assets/${ready.id}`)).json()).toMatchObject({ status: 'ready' });
    expect(await t.store.head(artifactKey)).not.toBeNull();
    expect(await t.store.head(keyOf(ready.id))).not.toBeNull();
  });

  it('deletes the object of an upload that arrived after its asset was deleted', async () => {
    const upload = await issue(5);
    expect((await t.as(alice).delete(`/assets/${upload.assetId}`)).statusCode).toBe(204);
    if (kind === 's3') {
      // S3 cannot be told that the asset is gone: the signed PUT still stores the object.
      expect((await t.fetchUrl(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: '{"a":' })).statusCode).toBe(200);
      expect(await t.store.head(keyOf(upload.assetId))).not.toBeNull();
    } else {
      // The local store refuses it; an object left by a crash between the two is the same case.
      expect((await t.fetchUrl(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: '{"a":' })).statusCode).toBe(404);
      await t.store.write(keyOf(upload.assetId), Buffer.from('{"a":'), { contentType: 'application/json' });
    }
    expect(await sweepStorage(deps(Date.now))).toMatchObject({ orphans: 1 });
    expect(await t.store.head(keyOf(upload.assetId))).toBeNull();
  });

  it('skips its turn while another instance sweeps', async () => {
    const other = new pg.Client({ connectionString: t.databaseUrl });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [SWEEP_LOCK_KEY]);
      const abandoned = await issue(1);
      expect(await sweepStorage(deps(afterExpiry))).toBeNull();
      expect((await t.as(alice).get(`/assets/${abandoned.assetId}`)).statusCode).toBe(200);
    } finally {
      await other.end();
    }
    expect(await sweepStorage(deps(afterExpiry))).toMatchObject({ expired: 1 });
  });
});

describe('partial uploads on the local disk store', () => {
  it('are deleted once untouched for the grace period', async () => {
    const t = await createTestApp();
    try {
      const incoming = path.join((t.config.storage.backend as LocalStorageConfig).directory, 'incoming');
      mkdirSync(incoming, { recursive: true });
      const stale = path.join(incoming, 'left-by-a-crash');
      const fresh = path.join(incoming, 'still-arriving');
      writeFileSync(stale, 'partial');
      writeFileSync(fresh, 'partial');
      const longAgo = (Date.now() - SWEEP_GRACE_MS - 60_000) / 1000;
      utimesSync(stale, longAgo, longAgo);
      const report = await sweepStorage({ db: t.db, store: t.store, settings: t.config.storage, log: silent });
      expect(report).toEqual({ confirmed: 0, expired: 0, orphans: 0, partials: 1 });
      expect(await t.store.deleteStalePartials(new Date(0))).toBe(0);
      expect(readdirSync(incoming)).toEqual(['still-arriving']);
    } finally {
      await t.close();
    }
  });
});

describe('the sweeper in a running app', () => {
  it('sweeps every STORAGE_SWEEP_INTERVAL_SECONDS', async () => {
    let clock = Date.now();
    const t = await createTestApp({ STORAGE_SWEEP_INTERVAL_SECONDS: '1' }, { now: () => clock });
    try {
      const alice = await t.register();
      const upload = (await t.as(alice).post('/storage/urls', { fileName: 'a.json', contentType: 'application/json', size: 2 })).json();
      clock = Date.now() + 15 * 60_000 + SWEEP_GRACE_MS + 60_000;
      await eventually(async () => {
        expectError(await t.as(alice).get(`/assets/${upload.assetId}`), 404, 'RESOURCE_NOT_FOUND');
      }, 15_000);
    } finally {
      await t.close();
    }
  });
});
