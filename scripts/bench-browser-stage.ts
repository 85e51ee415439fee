// The browser stage's cost (README "Benchmarks"): the sample game exported to every network with
// validation on, in one process that plays the export worker — one shared Chromium, warmed by a
// first run that is not counted. Prints, per network, the build without the browser and the
// browser stage alone; the median the stage adds per export; and the peak memory of the worker
// process and of the worker with its Chromium, sampled every 100 ms while a second pass runs at the
// worker's concurrency (targets: ≤ 1.5 s at the median, ≤ 600 MiB).
// Run by `npm run bench:export`, or alone: npx tsx scripts/bench-browser-stage.ts [network…]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { PhaseTimes } from '../src/exporters/browser/gather.js';
import { validateInBrowser } from '../src/exporters/browser/index.js';
import { createBrowserManager } from '../src/exporters/browser/manager.js';
import { buildArtifact, type SourceFile } from '../src/exporters/pipeline.js';
import { type Network, NETWORKS, rulesOf } from '../src/exporters/rules.js';

const SAMPLE = path.resolve(import.meta.dirname, '../test/fixtures/sample-game');
const FILES: Record<string, string> = {
  'index.html': 'text/html',
  'style.css': 'text/css',
  'game.js': 'text/javascript',
  'level.json': 'application/json',
  'logo.png': 'image/png',
};
const CONFIG = { title: 'Meadow Mayhem', storeUrl: 'https://apps.apple.com/app/id1234567890', orientation: 'portrait' };
const CONCURRENCY = 2; // EXPORT_WORKER_CONCURRENCY's default
const TARGET_MEDIAN_MS = 1500;
const TARGET_PEAK_MIB = 600;
const MIB = 1024 * 1024;

const source = (fileName: string): SourceFile => {
  const bytes = readFileSync(path.join(SAMPLE, fileName));
  return { fileName, contentType: FILES[fileName]!, size: bytes.length, open: async () => Readable.from([bytes]) };
};

/** The sample game built for `network` without the browser stage, and the build's time. */
async function build(network: Network) {
  const started = performance.now();
  const built = await buildArtifact({ network, name: 'Meadow Mayhem', entry: source('index.html'), assets: Object.keys(FILES).slice(1).map(source), config: CONFIG });
  const rules = rulesOf(network);
  const entryPath = rules.entryPath.replaceAll('{name}', 'meadow-mayhem');
  return { artifact: { output: rules.output, bytes: built.bytes, entryPath }, buildMs: performance.now() - started };
}

/**
 * Samples, every 100 ms from a process of its own (so that reading /proc never stalls this one),
 * the memory of this process and of every process under it (its Chromium): RSS of this process,
 * and PSS of the whole tree (shared pages counted once). stop() returns the peaks in bytes.
 */
interface MemoryPeak {
  /** RSS of this process. */
  self: number;
  /** PSS of the whole tree at its peak, and what made it up then (processes by kind: worker, browser, renderer, zygote, network, storage…). */
  tree: number;
  processes: number;
  byKind: Record<string, { count: number; pss: number }>;
  /** RSS summed over the tree (shared pages counted once per process: an upper bound). */
  treeRss: number;
}

function sampleMemory(): { stop(): Promise<MemoryPeak> } {
  const code = `
    const fs = require('node:fs');
    const root = ${process.pid};
    const kb = (text, field) => Number((text.split('\\n').find((line) => line.startsWith(field + ':')) ?? '').replace(/[^0-9]/g, '') || 0) * 1024;
    const read = (file) => { try { return fs.readFileSync(file, 'utf8'); } catch { return ''; } };
    const children = (pid) => fs.readdirSync('/proc/' + pid + '/task').flatMap((tid) => read('/proc/' + pid + '/task/' + tid + '/children').split(' ').filter(Boolean).map(Number));
    const kind = (pid) => {
      if (pid === root) return 'worker';
      const args = read('/proc/' + pid + '/cmdline').split(/[\\0 ]/); // Chromium rewrites its title: spaces
      const type = (args.find((a) => a.startsWith('--type=')) ?? '--type=browser').slice(7);
      const sub = args.find((a) => a.startsWith('--utility-sub-type='));
      return sub ? sub.slice(19).split('.')[0] : type;
    };
    const peak = { self: 0, tree: 0, treeRss: 0, processes: 0, byKind: {} };
    setInterval(() => {
      const tree = [root];
      for (let i = 0; i < tree.length; i++) { try { tree.push(...children(tree[i])); } catch {} }
      peak.self = Math.max(peak.self, kb(read('/proc/' + root + '/status'), 'VmRSS'));
      peak.treeRss = Math.max(peak.treeRss, tree.reduce((sum, pid) => sum + kb(read('/proc/' + pid + '/status'), 'VmRSS'), 0));
      const byKind = {};
      let total = 0;
      for (const pid of tree) {
        const pss = kb(read('/proc/' + pid + '/smaps_rollup'), 'Pss');
        const k = kind(pid);
        byKind[k] = byKind[k] ?? { count: 0, pss: 0 };
        byKind[k].count++; byKind[k].pss += pss; total += pss;
      }
      if (total > peak.tree) Object.assign(peak, { tree: total, processes: tree.length, byKind });
    }, 100);
    process.stdin.on('end', () => { process.stdout.write(JSON.stringify(peak)); process.exit(0); }).resume();`;
  const sampler = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  sampler.stdout.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise((resolve) => sampler.on('exit', resolve));
  return {
    async stop() {
      sampler.stdin.end();
      await exited;
      return JSON.parse(output) as MemoryPeak;
    },
  };
}

/** CPU seconds used so far by this process and every process under it, reaped children included. */
function treeCpuSeconds(): number {
  const ticks = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // utime, stime, cutime, cstime: fields 14–17, counted after the command's closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  };
  const children = (pid: number) =>
    readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  const tree = [process.pid];
  let total = 0;
  for (let i = 0; i < tree.length; i++) {
    try {
      total += ticks(tree[i]!);
      tree.push(...children(tree[i]!));
    } catch {
      // the process ended meanwhile
    }
  }
  return total / 100; // USER_HZ
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

export async function benchBrowserStage(networks: readonly Network[]): Promise<boolean> {
  const browser = createBrowserManager({
    mode: 'required',
    executablePath: process.env.BROWSER_EXECUTABLE_PATH || undefined,
    searchPath: (process.env.PATH ?? '').split(path.delimiter),
    concurrency: CONCURRENCY,
  });
  try {
    const builds = new Map<Network, Awaited<ReturnType<typeof build>>>();
    for (const network of networks) builds.set(network, await build(network));
    const run = (network: Network) => validateInBrowser({ network, browser, artifact: builds.get(network)!.artifact });
    const warm = await run(networks[0]!); // warm: the browser starts
    if (warm.report.status === 'skipped') throw new Error(`the browser stage was skipped: ${warm.report.reason}`);

    console.log(`\nBrowser stage: the sample game × ${networks.length} networks, validation on, one warm Chromium`);
    console.log(`(targets: ≤ ${TARGET_MEDIAN_MS / 1000} s added per export at the median, worker peak RSS ≤ ${TARGET_PEAK_MIB} MiB)\n`);
    console.log('network      build   browser   runtime');
    const stageMs: number[] = [];
    const phases: PhaseTimes[] = [];
    const cpuBefore = treeCpuSeconds();
    for (const network of networks) {
      const started = performance.now();
      const validated = await run(network);
      const { report } = validated;
      stageMs.push(performance.now() - started);
      phases.push(validated.phases);
      const build = builds.get(network)!.buildMs;
      console.log(`${network.padEnd(11)} ${build.toFixed(0).padStart(4)} ms ${stageMs.at(-1)!.toFixed(0).padStart(6)} ms   ${report.status}`);
    }

    const cpuPerExport = (treeCpuSeconds() - cpuBefore) / networks.length;
    const names = [...new Set(phases.flatMap((p) => Object.keys(p)))];
    console.log(`\nwhere the time goes (median ms per export, both orientations summed):`);
    console.log(names.map((name) => `${name} ${median(phases.map((p) => p[name] ?? 0)).toFixed(0)}`).join(', '));

    // The worker's way: CONCURRENCY exports at once, for peak memory and throughput. Memory is
    // sampled only now: reading /proc/<pid>/smaps_rollup stalls the browser, which would skew the times.
    const memory = sampleMemory();
    const started = performance.now();
    await Promise.all(networks.map(run));
    const throughput = networks.length / ((performance.now() - started) / 1000);

    const peak = await memory.stop();
    const self = peak.self / MIB;
    const tree = peak.tree / MIB;
    const pass = median(stageMs) <= TARGET_MEDIAN_MS && tree <= TARGET_PEAK_MIB;
    console.log(
      `\nbrowser stage per export: median ${(median(stageMs) / 1000).toFixed(2)} s, p90 ${(percentile(stageMs, 0.9) / 1000).toFixed(2)} s; ` +
        `${CONCURRENCY} at once: ${throughput.toFixed(2)} exports/s`,
    );
    console.log(`CPU per export (this process and its Chromium): ${cpuPerExport.toFixed(2)} s; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
    console.log(`peak memory: worker process ${self.toFixed(0)} MiB RSS; worker + Chromium ${tree.toFixed(0)} MiB (PSS) — ${pass ? 'within' : 'OVER'} the targets`);
    const parts = Object.entries(peak.byKind).map(([kind, { count, pss }]) => `${kind} ×${count} ${(pss / MIB).toFixed(0)} MiB`);
    console.log(
      `  at the peak, ${peak.processes} processes: ${parts.join(', ')}; RSS summed over the tree ${(peak.treeRss / MIB).toFixed(0)} MiB (shared pages counted in each)`,
    );
    return pass;
  } finally {
    await browser.close();
  }
}

if (import.meta.filename === process.argv[1]) {
  const only = process.argv.slice(2) as Network[];
  if (!(await benchBrowserStage(only.length ? only : NETWORKS))) process.exitCode = 1;
}
