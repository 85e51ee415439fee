// CONTRACT §9 optimization over the API: POST /export with `optimize`, the worker's optimize stage,
// `report.optimization` in GET /exports/{id}, and the worker's cache of optimized files shared
// by the exports of one variant to several networks.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimizationCache } from '../src/exporters/pipeline.js';
import { createTestApp, type RegisteredUser, type TestApp } from './helpers/app.js';
import { createSampleVariant, downloadArtifact, type SampleVariant, waitForExport } from './helpers/exports.js';
import { photoPng } from './helpers/photo.js';

let t: TestApp;
let alice: RegisteredUser;
let photoVariant: SampleVariant;
const cache = new OptimizationCache(32 * 1024 * 1024);

beforeAll(async () => {
  t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5' }, { optimizeCache: cache });
  alice = await t.register();
  const photo = { fileName: 'photo.png', contentType: 'image/png', bytes: await photoPng(1420, 1120) };
  photoVariant = await createSampleVariant(t, alice, {
    change: (game) => {
      game.entry = { ...game.entry, bytes: Buffer.from(game.entry.bytes.toString().replace('</body>', '<img id="photo" src="photo.png"></body>')) };
      game.assets.push(photo);
    },
  });
});
afterAll(() => t.close());

async function exportPhoto(network: string, optimize?: string) {
  const queued = await t.as(alice).post('/export', { variantId: photoVariant.variant.id, network, ...(optimize && { optimize }) });
  expect(queued.statusCode, queued.body).toBe(202);
  return waitForExport(t, alice, queued.json().id, 60_000);
}

describe('a variant with a 3.5 MB photo exported to meta (2 MB)', () => {
  it('fails for size with optimize none, naming the photo', async () => {
    const exported = await exportPhoto('meta', 'none');
    expect(exported).toMatchObject({ status: 'failed', optimize: 'none', report: null });
    expect(exported.error).toMatch(/^The meta export cannot fit: .*over the network's limit of 2\.00 MB \(2000000 bytes\)\. Largest files: photo\.png/);
  });

  it('succeeds under 2 MB with fit; the report says what was done to each file; the photo still decodes', async () => {
    const exported = await exportPhoto('meta', 'fit');
    expect(exported.status, exported.error).toBe('succeeded');
    expect(exported.size).toBeLessThanOrEqual(2_000_000);
    const { optimization } = exported.report;
    expect(optimization).toMatchObject({ mode: 'fit', bytesBefore: expect.any(Number), bytesAfter: expect.any(Number) });
    expect(optimization.bytesBefore - optimization.bytesAfter).toBeGreaterThan(2_000_000);
    expect(optimization.steps.map((s: { fileName: string }) => s.fileName)).toEqual([
      'index.html',
      'style.css',
      'game.js',
      'level.json',
      'logo.png',
      'photo.png',
      'photo.png',
    ]);
    expect(optimization.steps.at(-1)).toEqual({
      fileName: 'photo.png',
      action: 'palette PNG, 256 colours',
      bytesBefore: expect.any(Number),
      bytesAfter: expect.any(Number),
    });

    const html = (await downloadArtifact(t, exported)).toString();
    const photo = Buffer.from(/<img id="photo" src="data:image\/png;base64,([^"]+)"/.exec(html)![1]!, 'base64');
    expect(photo.length).toBe(optimization.steps.at(-1).bytesAfter);
    expect(await sharp(photo).metadata()).toMatchObject({ format: 'png', width: 1420, height: 1120 });
  });

  it('optimizes each file once for the next networks (the worker cache)', async () => {
    const misses = cache.stats.misses;
    const hits = cache.stats.hits;
    for (const network of ['moloco', 'tiktok'] as const) {
      const exported = await exportPhoto(network);
      expect(exported.status, exported.error).toBe('succeeded');
      expect(exported.report.optimization.mode).toBe('lossless');
    }
    expect(cache.stats.misses).toBe(misses);
    expect(cache.stats.hits).toBeGreaterThanOrEqual(hits + 2 * 6);
  });
});
