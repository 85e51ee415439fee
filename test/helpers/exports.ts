// Variants and exports over the real API: upload the sample game through the upload flow,
// make a variant of it, export it and fetch the artifact from its downloadUrl.
import { expect } from 'vitest';
import type { Network } from '../../src/exporters/rules.js';
import type { Caller, RegisteredUser, TestApp } from './app.js';
import { SAMPLE_CONFIG, type SampleFile, sampleGame } from './sample-game.js';

export interface SampleVariant {
  game: { id: string };
  entry: { id: string };
  assets: Array<{ id: string; fileName: string }>;
  variant: { id: string; name: string };
}

/** Uploads `files` as ready assets of the caller's organization. */
export async function uploadFiles(t: TestApp, caller: Caller, files: SampleFile[], gameId?: string) {
  const uploaded: Array<{ id: string; fileName: string }> = [];
  for (const f of files) {
    uploaded.push(
      (await t.uploadAsset(caller, { fileName: f.fileName, contentType: f.contentType, body: f.bytes, ...(gameId ? { gameId } : {}) })) as {
        id: string;
        fileName: string;
      },
    );
  }
  return uploaded;
}

/** A game with a variant of the sample game; `change` can drop or add files first. */
export async function createSampleVariant(
  t: TestApp,
  caller: Caller,
  options: { name?: string; config?: Record<string, unknown>; change?: (game: ReturnType<typeof sampleGame>) => void } = {},
): Promise<SampleVariant> {
  const files = sampleGame();
  options.change?.(files);
  const game = (await t.as(caller).post('/games', { name: `Game ${Math.random().toString(36).slice(2, 10)}` })).json();
  const [entry] = await uploadFiles(t, caller, [files.entry], game.id);
  const assets = await uploadFiles(t, caller, files.assets, game.id);
  const res = await t.as(caller).post(`/games/${game.id}/variants`, {
    name: options.name ?? 'Meadow Mayhem',
    entryAssetId: entry!.id,
    assetIds: assets.map((a) => a.id),
    config: options.config ?? SAMPLE_CONFIG,
  });
  expect(res.statusCode, res.body).toBe(201);
  return { game, entry: entry!, assets, variant: res.json() };
}

/** Polls GET `path` until `done(body)`; returns that body. */
export async function pollUntil(t: TestApp, caller: Caller, path: string, done: (body: any) => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.as(caller).get(path);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`${path} still ${body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls GET /exports/{id} until the export has finished. */
export const waitForExport = (t: TestApp, caller: Caller, id: string, timeoutMs = 30_000) =>
  pollUntil(t, caller, `/exports/${id}`, (e) => e.status === 'succeeded' || e.status === 'failed', timeoutMs);

/** Polls GET /export-batches/{id} until the batch has finished (its ZIP is stored). */
export const waitForBatch = (t: TestApp, caller: Caller, id: string, timeoutMs = 60_000) =>
  pollUntil(t, caller, `/export-batches/${id}`, (b) => b.status === 'finished', timeoutMs);

/** The artifact's bytes, fetched from the export's downloadUrl as a client would. */
export async function downloadArtifact(t: TestApp, exported: { downloadUrl: string }): Promise<Buffer> {
  const res = await t.fetchUrl(exported.downloadUrl);
  expect(res.statusCode).toBe(200);
  return res.body;
}

/** Registers a user, uploads and exports the sample game; returns the finished export and its bytes. */
export async function exportSampleGame(t: TestApp, network: Network, caller?: RegisteredUser) {
  const user = caller ?? (await t.register());
  const sample = await createSampleVariant(t, user);
  const queued = await t.as(user).post('/export', { variantId: sample.variant.id, network });
  expect(queued.statusCode, queued.body).toBe(202);
  const exported = await waitForExport(t, user, queued.json().id);
  expect(exported.status, exported.error).toBe('succeeded');
  return { user, sample, exported, artifact: await downloadArtifact(t, exported) };
}
