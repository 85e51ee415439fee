// Measures one export of a variant with 4 MB of assets, the way the worker runs it: files read as
// streams from disk, the artifact built (optimize: lossless, the default), validated and written
// back. Prints the wall time, each stage's time (Artifact.timings) and the extra peak RSS per
// network (targets: < 2 s, < 150 MB; and the memory bound of CONTRACT §8, 3 × the network's
// limit + 64 MiB). Each network runs in a fresh process so that peaks do not hide each other.
//   npm run bench:export              all networks
//   npm run bench:export -- applovin  one network
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildArtifact, type SourceFile, type StageTimings } from '../src/exporters/pipeline.js';
import { type Network, NETWORK_RULES, NETWORKS } from '../src/exporters/rules.js';

const SAMPLE = path.resolve(import.meta.dirname, '../test/fixtures/sample-game');
const MB = 1_000_000;
const TARGET_SECONDS = 2;
const TARGET_EXTRA_RSS_MB = 150;

/** The sample game plus 4 MB: a 2.5 MB script bundle and a 1.5 MB incompressible image. */
function writeVariant(dir: string): SourceFile[] {
  const files: Array<[string, string, Buffer]> = [
    ['index.html', 'text/html', readFileSync(path.join(SAMPLE, 'index.html'))],
    ['style.css', 'text/css', readFileSync(path.join(SAMPLE, 'style.css'))],
    ['level.json', 'application/json', readFileSync(path.join(SAMPLE, 'level.json'))],
    ['logo.png', 'image/png', readFileSync(path.join(SAMPLE, 'logo.png'))],
    ['game.js', 'text/javascript', Buffer.concat([readFileSync(path.join(SAMPLE, 'game.js')), bundle(2.5 * MB)])],
    ['atlas.png', 'image/png', randomBytes(1.5 * MB)],
  ];
  return files.map(([fileName, contentType, bytes]) => {
    writeFileSync(path.join(dir, fileName), bytes);
    return { fileName, contentType, size: bytes.length, open: async () => createReadStream(path.join(dir, fileName)) };
  });
}

/** Script text that compresses like a real minified bundle (not a run of one byte). */
function bundle(size: number): Buffer {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const line = `var f${i}=function(a,b){return a*${i % 97}+b.${randomBytes(4).toString('hex')}};\n`;
    lines.push(line);
    length += line.length;
  }
  return Buffer.from(lines.join('').slice(0, size));
}

async function measure(network: Network): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pcs-bench-'));
  try {
    const [entry, ...assets] = writeVariant(dir);
    const assetBytes = assets.reduce((sum, a) => sum + readFileSync(path.join(dir, a.fileName)).length, 0);
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    let outcome: string;
    let timings: StageTimings = {};
    try {
      const artifact = await buildArtifact({ network, name: 'Bench', entry: entry!, assets, config: { storeUrl: 'https://example.com/app' } });
      await writeFile(path.join(dir, artifact.fileName), artifact.bytes);
      outcome = `ok, ${(artifact.size / MB).toFixed(2)} MB`;
      timings = artifact.timings;
    } catch (error) {
      outcome = `failed: ${(error as Error).message.slice(0, 70)}`;
    }
    const seconds = (performance.now() - started) / 1000;
    const extraRssMb = (process.resourceUsage().maxRSS * 1024 - rssBefore) / MB;
    console.log(JSON.stringify({ network, assetsMB: assetBytes / MB, seconds, extraRssMb, timings, outcome }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const [child, only] = process.argv.slice(2);
if (child === '--child') {
  await measure(only as Network);
} else {
  const networks = child ? [child as Network] : NETWORKS;
  console.log(`Export of a variant with 4 MB of assets (targets: < ${TARGET_SECONDS} s, < ${TARGET_EXTRA_RSS_MB} MB extra RSS)\n`);
  console.log('network     time    load  optimize  package  checks   extra RSS (bound)   result');
  let worst = { seconds: 0, rss: 0 };
  let overBound = false;
  const ms = (value: number | undefined) => (value === undefined ? '-' : `${Math.round(value)}`).padStart(6);
  for (const network of networks) {
    const out = execFileSync(process.execPath, [...process.execArgv, '--expose-gc', import.meta.filename, '--child', network], { encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop()!) as { seconds: number; extraRssMb: number; timings: StageTimings; outcome: string };
    worst = { seconds: Math.max(worst.seconds, r.seconds), rss: Math.max(worst.rss, r.extraRssMb) };
    const bound = (3 * NETWORK_RULES[network].sizeLimitBytes + 64 * 2 ** 20) / MB;
    overBound ||= r.extraRssMb > bound;
    const t = r.timings;
    console.log(
      `${network.padEnd(10)} ${r.seconds.toFixed(2).padStart(5)} s ${ms(t.load)} ${ms(t.optimize)}   ${ms(t.package)}  ${ms(t.checks)}  ` +
        `${r.extraRssMb.toFixed(0).padStart(6)} MB (${bound.toFixed(0)})   ${r.outcome}`,
    );
  }
  const pass = worst.seconds < TARGET_SECONDS && worst.rss < TARGET_EXTRA_RSS_MB && !overBound;
  console.log(`\nworst: ${worst.seconds.toFixed(2)} s, ${worst.rss.toFixed(0)} MB extra RSS — ${pass ? 'within' : 'OVER'} the targets`);
  if (!pass) process.exitCode = 1;
  // The browser stage, in a process of its own that plays the worker (scripts/bench-browser-stage.ts).
  try {
    execFileSync(process.execPath, [...process.execArgv, path.join(import.meta.dirname, 'bench-browser-stage.ts'), ...networks], { stdio: 'inherit' });
  } catch {
    process.exitCode = 1;
  }
}
