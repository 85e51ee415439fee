// CONTRACT §10: export batches — variants × networks created and queued at once, finished with
// one ZIP of the succeeded artifacts and a manifest of every export.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETWORKS } from '../src/exporters/rules.js';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';
import { createSampleVariant, type SampleVariant, waitForBatch } from './helpers/exports.js';
import { readZip } from './helpers/zip.js';

let t: TestApp;
let alice: RegisteredUser;
let bob: RegisteredUser;
let meadow: SampleVariant;
let heavy: SampleVariant;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The sample game plus a 1.6 MB image it shows: over Meta's 2 MB once inlined, within the others' 5 MB. */
const withHugeImage = (game: ReturnType<typeof import('./helpers/sample-game.js').sampleGame>) => {
  game.assets.push({ fileName: 'huge.png', contentType: 'image/png', bytes: Buffer.alloc(1_600_000, 7) });
  game.entry = { ...game.entry, bytes: Buffer.from(game.entry.bytes.toString().replace('</body>', '<img src="huge.png"></body>')) };
};

beforeAll(async () => {
  t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5', RATE_LIMIT_EXPORT_MAX: '500' });
  alice = await t.register();
  bob = await t.register();
  meadow = await createSampleVariant(t, alice);
  heavy = await createSampleVariant(t, alice, { name: 'Meadow Mayhem XL', change: withHugeImage });
});
afterAll(() => t.close());

/** The ZIP of a finished batch, fetched from its downloadUrl as a client would. */
async function downloadZip(batch: { downloadUrl: string; size: number }) {
  const res = await t.fetchUrl(batch.downloadUrl);
  expect(res.statusCode).toBe(200);
  expect(res.body.length).toBe(batch.size);
  return readZip(res.body);
}

describe('a batch of 2 variants × 3 networks', () => {
  let created: any;
  let finished: any;

  beforeAll(async () => {
    const res = await t.as(alice).post('/export-batches', { variantIds: [meadow.variant.id, heavy.variant.id], networks: ['applovin', 'mintegral', 'meta'] });
    expect(res.statusCode, res.body).toBe(202);
    created = res.json();
    finished = await waitForBatch(t, alice, created.id);
  });

  it('answers 202 with every export queued, in the order asked for', () => {
    expect(created).toEqual({ id: expect.any(String), status: 'queued', exports: expect.any(Array), createdAt: expect.any(String) });
    expect(created.exports.map((e: any) => [e.variantId, e.network, e.status])).toEqual(
      [meadow, heavy].flatMap((v) => ['applovin', 'mintegral', 'meta'].map((network) => [v.variant.id, network, 'queued'])),
    );
  });

  it('finishes once every export has: counts, statuses and a downloadUrl', () => {
    expect(finished).toMatchObject({
      id: created.id,
      organizationId: alice.organization.id,
      status: 'finished',
      counts: { queued: 0, processing: 0, succeeded: 5, failed: 1 },
      optimize: 'lossless',
      validation: 'enforce',
      downloadUrl: expect.any(String),
      size: expect.any(Number),
      createdAt: created.createdAt,
    });
    expect(Date.parse(finished.finishedAt)).toBeGreaterThanOrEqual(Math.max(...finished.exports.map((e: any) => Date.parse(e.finishedAt))));
    expect(finished.exports.map((e: any) => e.id)).toEqual(created.exports.map((e: any) => e.id));
    const failed = finished.exports.find((e: any) => e.status === 'failed');
    expect(failed).toMatchObject({ variantId: heavy.variant.id, network: 'meta', size: null });
    expect(failed.error).toMatch(/over the network's limit/);
  });

  it('has each child as an ordinary export', async () => {
    for (const e of finished.exports) {
      const res = await t.as(alice).get(`/exports/${e.id}`);
      expect(res.json()).toMatchObject({ id: e.id, status: e.status, variantId: e.variantId, network: e.network });
    }
  });

  it('serves one ZIP: each succeeded artifact at <variant name>/<network>/<fileName>, and the manifest', async () => {
    const entries = await downloadZip(finished);
    const exports = await Promise.all(finished.exports.map(async (e: any) => (await t.as(alice).get(`/exports/${e.id}`)).json()));
    const names = (id: string) => (id === meadow.variant.id ? 'Meadow Mayhem' : 'Meadow Mayhem XL');
    const succeeded = exports.filter((e) => e.status === 'succeeded');
    expect(entries.map((e) => e.name)).toEqual([...succeeded.map((e) => `${names(e.variantId)}/${e.network}/${e.fileName}`), 'manifest.json']);
    for (const e of succeeded) {
      const entry = entries.find((z) => z.name === `${names(e.variantId)}/${e.network}/${e.fileName}`)!;
      expect(entry.bytes.length).toBe(e.size);
      expect(sha256(entry.bytes)).toBe(e.checksum);
    }

    const manifest = JSON.parse(entries.at(-1)!.bytes.toString('utf8'));
    expect(manifest).toEqual({
      batchId: finished.id,
      organizationId: alice.organization.id,
      createdAt: finished.createdAt,
      exports: exports.map((e) => ({
        id: e.id,
        variant: names(e.variantId),
        variantId: e.variantId,
        network: e.network,
        status: e.status,
        path: e.status === 'succeeded' ? `${names(e.variantId)}/${e.network}/${e.fileName}` : null,
        size: e.size,
        checksum: e.checksum,
        error: e.error,
      })),
    });
  });

  it('lists batches with the envelope', async () => {
    const res = await t.as(alice).get('/export-batches?limit=1');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ meta: { page: 1, limit: 1, total: expect.any(Number) } });
    expect(res.json().data).toHaveLength(1);
    expect((await t.as(bob).get('/export-batches')).json()).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0, totalPages: 0 } });
    // organizationId narrows (CONTRACT §4): the caller's own organization, else 404.
    const own = (await t.as(alice).get(`/export-batches?organizationId=${alice.organization.id}`)).json();
    expect(own.meta.total).toBe(res.json().meta.total);
    expectError(await t.as(bob).get(`/export-batches?organizationId=${alice.organization.id}`), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('POST /export-batches', () => {
  it('exports to every network with ["*"], names included that need cleaning for a path', async () => {
    const odd = await createSampleVariant(t, alice, { name: 'Été / ☀' });
    const res = await t.as(alice).post('/export-batches', { variantIds: [odd.variant.id], networks: ['*'], optimize: 'none', validation: 'report' });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().exports.map((e: any) => e.network)).toEqual(NETWORKS);
    const finished = await waitForBatch(t, alice, res.json().id);
    expect(finished).toMatchObject({ optimize: 'none', validation: 'report', counts: { succeeded: NETWORKS.length, failed: 0 } });
    const entries = await downloadZip(finished);
    expect(entries).toHaveLength(NETWORKS.length + 1);
    for (const entry of entries.slice(0, -1)) {
      expect(entry.name).toMatch(/^Été _ ☀\/[a-z]+\/[^/]+$/);
      expect(entry.utf8Flag).toBe(true);
    }
  });

  it('finishes a batch whose every export failed with a ZIP of the manifest alone', async () => {
    const res = await t.as(alice).post('/export-batches', { variantIds: [heavy.variant.id], networks: ['meta'] });
    const finished = await waitForBatch(t, alice, res.json().id);
    expect(finished.counts).toEqual({ queued: 0, processing: 0, succeeded: 0, failed: 1 });
    const entries = await downloadZip(finished);
    expect(entries.map((e) => e.name)).toEqual(['manifest.json']);
    expect(JSON.parse(entries[0]!.bytes.toString()).exports).toEqual([
      expect.objectContaining({ status: 'failed', path: null, error: expect.stringMatching(/limit/) }),
    ]);
  });

  it('returns the same batch for a retried request with the same Idempotency-Key; other settings → 409', async () => {
    const headers = { 'idempotency-key': 'batch-retry-1' };
    const body = { variantIds: [meadow.variant.id], networks: ['unity', 'vungle'] };
    const first = await t.as(alice).post('/export-batches', body, headers);
    const second = await t.as(alice).post('/export-batches', { ...body, networks: ['vungle', 'unity'] }, headers);
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.json().id).toBe(first.json().id);
    expect(second.json().exports.map((e: any) => e.id)).toEqual(first.json().exports.map((e: any) => e.id));
    expect(await t.sql('SELECT id FROM export_batches WHERE idempotency_key = $1', ['batch-retry-1'])).toHaveLength(1);

    const before = await t.rowCounts();
    expectError(await t.as(alice).post('/export-batches', { ...body, validation: 'report' }, headers), 409, 'DUPLICATE_RESOURCE');
    expectError(await t.as(alice).post('/export-batches', { ...body, networks: ['unity'] }, headers), 409, 'DUPLICATE_RESOURCE');
    expect(await t.rowCounts()).toEqual(before);
  });

  it('counts as one request of the export tier', async () => {
    const first = await t.as(alice).post('/export-batches', { variantIds: [meadow.variant.id], networks: ['snapchat', 'tiktok'] });
    const second = await t.as(alice).post('/export-batches', { variantIds: [meadow.variant.id], networks: ['snapchat', 'tiktok'] });
    expect(first.headers['x-ratelimit-limit']).toBe('500');
    expect(Number(first.headers['x-ratelimit-remaining']) - Number(second.headers['x-ratelimit-remaining'])).toBe(1);
  });

  it('refuses bad requests with 400 and the error body, creating nothing', async () => {
    const v = meadow.variant.id;
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const before = await t.rowCounts();
    const bad = [
      { variantIds: ids(21), networks: ['unity'] },
      { variantIds: [], networks: ['unity'] },
      { variantIds: [v, v], networks: ['unity'] },
      { variantIds: [v], networks: [] },
      { variantIds: [v], networks: ['myspace'] },
      { variantIds: [v], networks: ['unity', 'unity'] },
      { variantIds: [v], networks: ['*', 'unity'] },
      { variantIds: [v], networks: ['unity'], optimize: 'max' },
      { variantIds: [v], networks: ['unity'], extra: 1 },
      { variantIds: v, networks: ['unity'] },
      { networks: ['unity'] },
    ];
    for (const body of bad) expectError(await t.as(alice).post('/export-batches', body), 400, 'VALIDATION_ERROR');
    const tooMany = expectError(await t.as(alice).post('/export-batches', { variantIds: ids(21), networks: ['unity'] }), 400, 'VALIDATION_ERROR');
    expect(tooMany.details).toEqual([expect.objectContaining({ in: 'body', path: 'variantIds' })]);
    expect(await t.rowCounts()).toEqual(before);
  });

  it('refuses more than 200 exports (here the limit lowered to 4) with 400, creating nothing', async () => {
    expect(t.config.exports.batchMaxExports).toBe(200);
    const small = await t.anotherInstance({ EXPORT_BATCH_MAX_EXPORTS: '4' });
    const before = await t.rowCounts();
    const body = expectError(
      await small.as(alice).post('/export-batches', { variantIds: [meadow.variant.id, heavy.variant.id], networks: ['unity', 'meta', 'google'] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(body.message).toBe('A batch makes at most 4 exports; 2 variants × 3 networks make 6');
    expect(await t.rowCounts()).toEqual(before);
    expect((await small.as(alice).post('/export-batches', { variantIds: [meadow.variant.id, heavy.variant.id], networks: ['unity', 'meta'] })).statusCode).toBe(202);
  });

  it("treats another organization's variant as not found, and refuses variants of two organizations", async () => {
    const bobs = await createSampleVariant(t, bob);
    const before = await t.rowCounts();
    expectError(await t.as(bob).post('/export-batches', { variantIds: [bobs.variant.id, meadow.variant.id], networks: ['unity'] }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(bob).post('/export-batches', { variantIds: ['not-a-uuid'], networks: ['unity'] }), 404, 'RESOURCE_NOT_FOUND');
    expect(await t.rowCounts()).toEqual(before);

    // Carol belongs to both organizations: she sees both variants, but a batch is of one organization.
    const carol = await t.register();
    await t.addMember(alice, alice.organization.id, carol, 'member');
    await t.addMember(bob, bob.organization.id, carol, 'member');
    const mixed = expectError(
      await t.as(carol).post('/export-batches', { variantIds: [bobs.variant.id, meadow.variant.id], networks: ['unity'] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(mixed.message).toBe('variantIds must all be variants of one organization');
    expect((await t.rowCounts()).export_batches).toBe(before.export_batches);

    const mine = (await t.as(alice).post('/export-batches', { variantIds: [meadow.variant.id], networks: ['unity'] })).json();
    expectError(await t.as(bob).get(`/export-batches/${mine.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(alice).get('/export-batches/42'), 404, 'RESOURCE_NOT_FOUND');
  });

  it('needs exports:write to create and exports:read to read', async () => {
    const reader = await t.createToken(alice, ['exports:read']);
    const denied = expectError(await t.as(reader).post('/export-batches', { variantIds: [meadow.variant.id], networks: ['unity'] }), 403, 'INSUFFICIENT_PERMISSIONS');
    expect(denied.message).toBe('Insufficient permissions. Required: exports:write');
    expect((await t.as(reader).get('/export-batches')).statusCode).toBe(200);
    const gamesOnly = await t.createToken(alice, ['games:read']);
    expect(expectError(await t.as(gamesOnly).get('/export-batches'), 403, 'INSUFFICIENT_PERMISSIONS').message).toBe(
      'Insufficient permissions. Required: exports:read',
    );
  });
});

describe('deleting a variant or game of a batch', () => {
  it('rebuilds a finished batch without the deleted variant, and deletes the old ZIP', async () => {
    const doomed = await createSampleVariant(t, alice, { name: 'Doomed' });
    const created = (await t.as(alice).post('/export-batches', { variantIds: [meadow.variant.id, doomed.variant.id], networks: ['unity'] })).json();
    const first = await waitForBatch(t, alice, created.id);
    const [{ storage_key: oldZip }] = (await t.sql<{ storage_key: string }>('SELECT storage_key FROM export_batches WHERE id = $1', [created.id])) as [
      { storage_key: string },
    ];
    expect((await downloadZip(first)).map((e) => e.name)).toEqual(['Meadow Mayhem/unity/index.html', 'Doomed/unity/index.html', 'manifest.json']);

    expect((await t.as(alice).delete(`/variants/${doomed.variant.id}`)).statusCode).toBe(204);
    expect(await t.store.head(oldZip)).toBeNull();
    const rebuilt = await waitForBatch(t, alice, created.id);
    expect(rebuilt.exports.map((e: any) => e.variantId)).toEqual([meadow.variant.id]);
    expect(rebuilt.counts).toEqual({ queued: 0, processing: 0, succeeded: 1, failed: 0 });
    const entries = await downloadZip(rebuilt);
    expect(entries.map((e) => e.name)).toEqual(['Meadow Mayhem/unity/index.html', 'manifest.json']);
    expect(JSON.parse(entries[1]!.bytes.toString()).exports).toHaveLength(1);
  });

  it('deletes a batch whose every export is gone, with its ZIP', async () => {
    const lonely = await createSampleVariant(t, alice, { name: 'Lonely' });
    const created = (await t.as(alice).post('/export-batches', { variantIds: [lonely.variant.id], networks: ['unity', 'applovin'] })).json();
    await waitForBatch(t, alice, created.id);
    const [{ storage_key: zip }] = (await t.sql<{ storage_key: string }>('SELECT storage_key FROM export_batches WHERE id = $1', [created.id])) as [
      { storage_key: string },
    ];

    expect((await t.as(alice).delete(`/games/${lonely.game.id}`)).statusCode).toBe(204);
    expectError(await t.as(alice).get(`/export-batches/${created.id}`), 404, 'RESOURCE_NOT_FOUND');
    expect(await t.store.head(zip)).toBeNull();
  });

  it('finishes an unfinished batch whose remaining exports were the deleted ones', async () => {
    // The variant is deleted before the worker gets to its exports (the batch is still queued).
    const doomed = await createSampleVariant(t, alice, { name: 'Never built' });
    const created = (await t.as(alice).post('/export-batches', { variantIds: [meadow.variant.id, doomed.variant.id], networks: ['snapchat'] })).json();
    expect((await t.as(alice).delete(`/variants/${doomed.variant.id}`)).statusCode).toBe(204);
    const finished = await waitForBatch(t, alice, created.id);
    expect(finished.exports.map((e: any) => e.variantId)).toEqual([meadow.variant.id]);
  });
});
