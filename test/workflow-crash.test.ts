// Durability of batches and webhooks: worker processes (`npm run worker`) SIGKILLed while a
// batch's ZIP is being built and between two attempts of a webhook delivery. The jobs stay in
// PostgreSQL (pg-boss); a restarted worker finishes what the killed one started. Stored files are
// swapped for FIFOs so that the first worker stops exactly where the test wants it to.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStorageConfig } from '../src/config.js';
import { createTestApp, type RegisteredUser, type TestApp } from './helpers/app.js';
import { createSampleVariant, waitForBatch } from './helpers/exports.js';
import { sampleFile } from './helpers/sample-game.js';
import { type Receiver, signatureIsValid, startReceiver } from './helpers/webhooks.js';
import { blockObject, waitFor, WORKER_TEST_TIMEOUT_MS, type WorkerProcesses, workerProcesses } from './helpers/worker-process.js';
import { readZip } from './helpers/zip.js';

const QUEUE_ENV = {
  EXPORT_JOB_TIMEOUT_SECONDS: '4',
  EXPORT_RETRY_DELAY_SECONDS: '0',
  QUEUE_MAINTENANCE_INTERVAL_SECONDS: '1',
  QUEUE_POLL_INTERVAL_SECONDS: '0.5',
  WEBHOOK_POLL_INTERVAL_SECONDS: '0.5',
  // The retry comes 3–6 s after a failed attempt: time to kill the worker in between.
  WEBHOOK_RETRY_DELAY_SECONDS: '3',
};

let t: TestApp;
let alice: RegisteredUser;
let workers: WorkerProcesses;
let receiver: Receiver;

beforeAll(async () => {
  // Only the child processes work off the queue; the app just serves the API.
  t = await createTestApp({ ...QUEUE_ENV, EXPORT_WORKER_IN_API: 'false' });
  alice = await t.register();
  workers = workerProcesses(t, QUEUE_ENV);
  receiver = await startReceiver();
});
afterEach(() => workers.killAll());
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const one = async <T extends Record<string, unknown>>(text: string, values: unknown[]) => (await t.sql<T>(text, values))[0];
const exportRow = (id: string) => one<{ status: string; storage_key: string | null }>('SELECT status, storage_key FROM exports WHERE id = $1', [id]);
const storageKeyOf = async (assetId: string) => (await one<{ storage_key: string }>('SELECT storage_key FROM assets WHERE id = $1', [assetId]))!.storage_key;
const storedBytes = (key: string) => readFileSync(path.join((t.config.storage.backend as LocalStorageConfig).directory, 'data', key));

describe('a worker killed while it builds a batch ZIP', () => {
  it(
    'leaves the batch processing; a restarted worker builds the ZIP',
    async () => {
      const first = await createSampleVariant(t, alice, { name: 'First' });
      const second = await createSampleVariant(t, alice, { name: 'Second' });
      // The second variant's export waits on its game.js, so the first one finishes before it.
      const secondGameJs = blockObject(t, await storageKeyOf(second.assets.find((a) => a.fileName === 'game.js')!.id));
      const batch = (await t.as(alice).post('/export-batches', { variantIds: [first.variant.id, second.variant.id], networks: ['unity'] })).json();
      const [firstExport, secondExport] = batch.exports.map((e: { id: string }) => e.id);

      const killed = workers.start();
      await waitFor(async () => (await exportRow(firstExport))!.status === 'succeeded', 'the first export');
      await waitFor(async () => (await exportRow(secondExport))!.status === 'processing', 'the second export to start');
      // The ZIP starts with the first artifact: make reading it block, then let the second export finish.
      const firstArtifactKey = (await exportRow(firstExport))!.storage_key!;
      const firstArtifact = storedBytes(firstArtifactKey);
      const blockedArtifact = blockObject(t, firstArtifactKey);
      await secondGameJs.feed(sampleFile('game.js').bytes);
      secondGameJs.restore(sampleFile('game.js').bytes);
      // The finishing job queued when the second export finished (the first export's found it unfinished).
      const finishingStarted = `SELECT 1 FROM pgboss.job j JOIN exports e ON e.id = $2
      WHERE j.name = 'export-batch-finish' AND j.singleton_key = $1 AND j.state = 'active' AND e.status = 'succeeded' AND j.started_on >= e.finished_at`;
      await waitFor(async () => Boolean(await one(finishingStarted, [batch.id, secondExport])), 'the finishing job to start');
      await workers.kill(killed);

      const stuck = (await t.as(alice).get(`/export-batches/${batch.id}`)).json();
      expect(stuck).toMatchObject({ status: 'processing', counts: { succeeded: 2 }, downloadUrl: null, finishedAt: null });
      blockedArtifact.restore(firstArtifact);
      workers.start();
      const finished = await waitForBatch(t, alice, batch.id, 60_000);
      const zip = await t.fetchUrl(finished.downloadUrl);
      expect(readZip(zip.body).map((e) => e.name)).toEqual(['First/unity/index.html', 'Second/unity/index.html', 'manifest.json']);
      expect(readZip(zip.body)[0]!.bytes).toEqual(firstArtifact);
    },
    WORKER_TEST_TIMEOUT_MS,
  );
});

describe('a worker killed between two attempts of a webhook delivery', () => {
  it(
    'records the delivery with the export; a restarted worker retries it with the same webhook-id',
    async () => {
      const hook = (await t.as(alice).post('/webhooks', { url: receiver.url('/crash'), events: ['export.succeeded'] })).json();
      receiver.answer((_request, index) => ({ status: index === 0 ? 503 : 200 }));
      const sample = await createSampleVariant(t, alice, { name: 'Hooked' });
      const exported = (await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'applovin' })).json();
      const delivery = () =>
        one<{ id: string; status: string; attempts: number }>('SELECT id, status, attempts FROM webhook_deliveries WHERE webhook_id = $1', [hook.id]);

      const killed = workers.start();
      await waitFor(async () => (await exportRow(exported.id))!.status === 'succeeded', 'the export');
      // Written in the transaction that finished the export: it exists as soon as the export is done.
      expect(await delivery()).toBeDefined();
      await waitFor(async () => (await delivery())!.attempts === 1, 'the first attempt');
      await workers.kill(killed);
      expect(await delivery()).toMatchObject({ status: 'pending', attempts: 1 });
      expect(receiver.requests).toHaveLength(1);

      workers.start();
      const [failed, retried] = await receiver.received(2, 60_000);
      expect(retried!.headers['webhook-id']).toBe(failed!.headers['webhook-id']);
      expect(retried!.headers['webhook-id']).toBe((await delivery())!.id);
      expect(signatureIsValid(hook.secret, retried!.headers, retried!.body)).toBe(true);
      await waitFor(async () => (await delivery())!.status === 'succeeded', 'the delivery to be recorded');
      expect(await delivery()).toMatchObject({ attempts: 2 });
    },
    WORKER_TEST_TIMEOUT_MS,
  );
});
