// Run by test/exporters/memory.test.ts in a child process of its own, so that its peak RSS is one
// export's: builds the export described by argv[2] (JSON) and prints what it measured.
//   files: [{ fileName, contentType, path }]   read from disk as streams
//       or [{ fileName, contentType, filler }]  `filler` bytes made on the fly (nothing on disk)
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { buildArtifact, type SourceFile } from '../../src/exporters/pipeline.js';
import type { OptimizeMode } from '../../src/exporters/options.js';
import type { Network } from '../../src/exporters/rules.js';

export interface MemoryRun {
  network: Network;
  optimize: OptimizeMode;
  entry: { fileName: string; html: string };
  files: Array<{ fileName: string; contentType: string; path?: string; filler?: number }>;
}

export interface MemoryResult {
  outcome: string;
  /** Peak RSS of the process above its RSS just before the export started. */
  extraPeakRss: number;
}

const CHUNK = Buffer.alloc(1 << 20, 0x5a);

/** `size` bytes, 1 MiB at a time, as a store's stream would deliver them. */
async function* filler(size: number) {
  for (let sent = 0; sent < size; sent += CHUNK.length) yield CHUNK.subarray(0, Math.min(CHUNK.length, size - sent));
}

const run = JSON.parse(process.argv[2]!) as MemoryRun;
const assets: SourceFile[] = run.files.map((f) => ({
  fileName: f.fileName,
  contentType: f.contentType,
  size: f.path ? statSync(f.path).size : f.filler!,
  open: async () => (f.path ? createReadStream(f.path) : Readable.from(filler(f.filler!))),
}));

// A worker has built exports before: one small export first, so that what the process sets up
// once (libvips' codecs and threads, esbuild's service) is not counted as this export's memory.
const inMemory = (fileName: string, contentType: string, bytes: Buffer): SourceFile => ({
  fileName,
  contentType,
  size: bytes.length,
  open: async () => Readable.from([bytes]),
});
const warmUpImage = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } })
  .png()
  .toBuffer();
await buildArtifact({
  network: 'applovin',
  name: 'Warm-up',
  entry: inMemory('index.html', 'text/html', Buffer.from('<script src="a.js"></script><img src="a.png">')),
  assets: [inMemory('a.js', 'text/javascript', Buffer.from('var a = 1')), inMemory('a.png', 'image/png', warmUpImage)],
  config: {},
  optimize: 'fit',
});

global.gc?.();
const rssBefore = process.memoryUsage().rss;
let outcome: string;
try {
  const entry = inMemory(run.entry.fileName, 'text/html', Buffer.from(run.entry.html));
  const artifact = await buildArtifact({ network: run.network, name: 'Memory', entry, assets, config: {}, optimize: run.optimize });
  outcome = `ok ${artifact.size}`;
} catch (error) {
  outcome = (error as Error).message;
}
const result: MemoryResult = { outcome, extraPeakRss: process.resourceUsage().maxRSS * 1024 - rssBefore };
console.log(JSON.stringify(result));
