// Batches and webhooks under measurement (issue 11): the real server as a child process exports
// 3 variants × every network as one batch, builds its ZIP and serves it, while a webhook receiver
// on 127.0.0.1 records when each event arrives. Prints the server's resident memory per phase
// and the delay of each webhook after the export (or batch) finished. Then ZIPs of 25 and of 100
// artifacts of 4 MiB, streamed from a local store into it by a fresh process, to show that the
// memory does not follow the size. Exits 1 if a ZIP grows RSS by 64 MiB or more, or the median
// webhook delay is over 2 s.
//
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:workflow
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../src/config.js';
import { batchArchive } from '../src/modules/export-batches/archive.js';
import { createObjectStore } from '../src/storage/index.js';
import { MEGABYTE, peakRssDuring, rssBytes, startBenchServer } from './lib/bench-server.js';

const SAMPLE = path.resolve(import.meta.dirname, '../test/fixtures/sample-game');
const LIMIT_MB = 64;
const TARGET_WEBHOOK_SECONDS = 2;
const VARIANTS = 3;
/** An incompressible image each variant shows: artifacts of ~3–4 MB, so that the ZIP outweighs the memory limit. */
const BIG_IMAGE_BYTES = 3_000_000;

const mb = (bytes: number) => (bytes / MEGABYTE).toFixed(1);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

interface Received {
  at: number;
  type: string;
  data: { finishedAt: string };
}

/** A webhook receiver that notes when each event arrived. */
async function startReceiver() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => {
        received.push({ at: Date.now(), ...(JSON.parse(Buffer.concat(chunks).toString()) as Omit<Received, 'at'>) });
        res.writeHead(204).end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, close: () => server.close() };
}

async function measureBatch() {
  // This script polls the batch several times a second.
  const server = await startBenchServer({ RATE_LIMIT_STANDARD_MAX: '1000000' });
  const receiver = await startReceiver();
  const { api, pid } = server;
  const json = async (res: Promise<Response>) => (await res).json() as Promise<any>;
  try {
    // The sample game with the big image, uploaded through the real upload flow.
    const files: Array<[string, string, Buffer]> = [
      ['index.html', 'text/html', Buffer.from(readFileSync(path.join(SAMPLE, 'index.html'), 'utf8').replace('</body>', '<img src="big.png"></body>'))],
      ...['style.css', 'text/css', 'game.js', 'text/javascript', 'level.json', 'application/json', 'logo.png', 'image/png'].reduce<Array<[string, string, Buffer]>>(
        (list, value, i, all) => (i % 2 ? list : [...list, [value, all[i + 1]!, readFileSync(path.join(SAMPLE, value))]]),
        [],
      ),
      ['big.png', 'image/png', randomBytes(BIG_IMAGE_BYTES)],
    ];
    const game = await json(api('POST', '/games', { name: 'Bench game' }));
    const assetIds: string[] = [];
    for (const [fileName, contentType, bytes] of files) {
      const issued = await json(api('POST', '/storage/urls', { fileName, contentType, size: bytes.length, gameId: game.id }));
      await fetch(issued.uploadUrl, { method: 'PUT', headers: issued.headers, body: bytes });
      await api('POST', `/assets/${issued.assetId}/complete`);
      assetIds.push(issued.assetId);
    }
    const variantIds: string[] = [];
    for (let i = 1; i <= VARIANTS; i++) {
      const variant = await json(api('POST', `/games/${game.id}/variants`, { name: `Variant ${i}`, entryAssetId: assetIds[0], assetIds: assetIds.slice(1) }));
      variantIds.push(variant.id);
    }
    await api('POST', '/webhooks', { url: receiver.url, events: ['export.succeeded', 'export.failed', 'export_batch.finished'] });

    await new Promise((r) => setTimeout(r, 1000));
    const before = rssBytes(pid);
    const started = Date.now();
    const created = await json(api('POST', '/export-batches', { variantIds, networks: ['*'], optimize: 'none' }));
    if (!created.id) throw new Error(`the batch was refused: ${JSON.stringify(created)}`);
    let batch: any;
    const exportingPeak = await peakRssDuring(pid, async () => {
      do {
        await new Promise((r) => setTimeout(r, 100));
        batch = await json(api('GET', `/export-batches/${created.id}`));
      } while (batch.counts.queued + batch.counts.processing > 0);
    });
    const exportsDone = Date.now();
    const beforeZip = rssBytes(pid);
    const zipPeak = await peakRssDuring(pid, async () => {
      while (batch.status !== 'finished') {
        await new Promise((r) => setTimeout(r, 50));
        batch = await json(api('GET', `/export-batches/${created.id}`));
      }
    });
    const finished = Date.now();
    let downloaded = 0;
    const downloadPeak = await peakRssDuring(pid, async () => {
      const res = await fetch(batch.downloadUrl);
      for await (const chunk of res.body!) downloaded += (chunk as Uint8Array).length;
    });
    await new Promise((r) => setTimeout(r, 1500)); // the last webhooks

    const delay = (r: Received) => (r.at - Date.parse(r.data.finishedAt)) / 1000;
    const exportDelays = receiver.received.filter((r) => r.type.startsWith('export.')).map(delay);
    const batchDelays = receiver.received.filter((r) => r.type === 'export_batch.finished').map(delay);
    const zipGrowth = Math.max(zipPeak, downloadPeak) - beforeZip;
    console.log(
      `batch: ${VARIANTS} variants × ${batch.exports.length / VARIANTS} networks = ${batch.exports.length} exports, ` +
        `${batch.counts.succeeded} succeeded, ${batch.counts.failed} failed; exports ${((exportsDone - started) / 1000).toFixed(1)} s, ` +
        `ZIP built ${((finished - exportsDone) / 1000).toFixed(1)} s later: ${mb(batch.size)} MiB (downloaded ${mb(downloaded)} MiB)`,
    );
    console.log(
      `API RSS: ${mb(before)} MiB before the batch; peak while exporting ${mb(exportingPeak)} (+${mb(exportingPeak - before)}); ` +
        `${mb(beforeZip)} when the exports had finished; peak while building the ZIP ${mb(zipPeak)}, while serving it ${mb(downloadPeak)}`,
    );
    console.log(`ZIP phases: RSS +${mb(zipGrowth)} MiB over the RSS before them (limit ${LIMIT_MB} MiB) → ${zipGrowth < LIMIT_MB * MEGABYTE ? 'PASS' : 'FAIL'}`);
    console.log(
      `webhooks: ${exportDelays.length} export events, delay after the export finished: median ${median(exportDelays).toFixed(3)} s, ` +
        `max ${Math.max(...exportDelays).toFixed(3)} s; export_batch.finished ${batchDelays.map((d) => `${d.toFixed(3)} s`).join(', ')} after the batch finished ` +
        `(target median ≤ ${TARGET_WEBHOOK_SECONDS} s) → ${median(exportDelays) <= TARGET_WEBHOOK_SECONDS ? 'PASS' : 'FAIL'}`,
    );
    const ok = batch.status === 'finished' && downloaded === batch.size && exportDelays.length === batch.exports.length && batchDelays.length === 1;
    if (!ok || zipGrowth >= LIMIT_MB * MEGABYTE || median(exportDelays) > TARGET_WEBHOOK_SECONDS) process.exitCode = 1;
  } finally {
    receiver.close();
    await server.stop();
  }
}

/**
 * The ZIP builder alone: `count` artifacts of random bytes written to a local store (in 1 MiB
 * chunks), then zipped from it into it by a fresh process of this script, which reports its own
 * RSS growth (a fresh process: this one's heap has seen the batch above).
 */
async function measureArchive(count: number, artifactBytes: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pcs-bench-zip-'));
  try {
    const store = await localStore(dataDir);
    for (let i = 0; i < count; i++) {
      const chunks = Readable.from(
        (function* () {
          for (let sent = 0; sent < artifactBytes; sent += MEGABYTE) yield randomBytes(Math.min(MEGABYTE, artifactBytes - sent));
        })(),
      );
      await store.writeStream(artifactKey(i), chunks, { contentType: 'application/zip' });
    }
    const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--zip-only', dataDir, String(count), String(artifactBytes)], {
      stdio: 'inherit',
    });
    if (child.status !== 0) process.exitCode = 1;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const localStore = async (dataDir: string) =>
  await createObjectStore(loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123' }));
const artifactKey = (i: number) => `orgs/o/exports/${i}/artifact.zip`;

/** The child's part of measureArchive. */
async function zipOnly(dataDir: string, count: number, artifactBytes: number) {
  const store = await localStore(dataDir);
  const exports = Array.from({ length: count }, (_, i) => ({
    id: String(i),
    variantId: `v${i % VARIANTS}`,
    variantName: `Variant ${i % VARIANTS}`,
    network: `network-${i}`,
    status: 'succeeded',
    fileName: 'artifact.zip',
    storageKey: artifactKey(i),
    size: artifactBytes,
    checksum: null,
    error: null,
  }));
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = Date.now();
  const archive = batchArchive(store, { id: 'bench', organizationId: 'o', createdAt: new Date() }, exports);
  await store.writeStream('orgs/o/batches/bench.zip', archive.stream, { contentType: 'application/zip' });
  clearInterval(timer);
  const growth = Math.max(peak, process.memoryUsage().rss) - before;
  console.log(
    `ZIP alone: ${count} artifacts × ${mb(artifactBytes)} MiB → ${mb(archive.bytes())} MiB ZIP in ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
      `RSS ${mb(before)} → peak ${mb(peak)} MiB: +${mb(growth)} MiB (limit ${LIMIT_MB} MiB) → ${growth < LIMIT_MB * MEGABYTE ? 'PASS' : 'FAIL'}`,
  );
  if (growth >= LIMIT_MB * MEGABYTE) process.exitCode = 1;
}

if (process.argv[2] === '--zip-only') {
  await zipOnly(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]));
} else {
  await measureBatch();
  // Four times the bytes, the same memory: it does not follow the ZIP's size.
  await measureArchive(25, 4 * MEGABYTE);
  await measureArchive(100, 4 * MEGABYTE);
}
