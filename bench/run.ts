// `npm run bench`: the compiled service (dist/, built first) and a bare baseline server, each in
// its own plain-Node process against the same PostgreSQL (embedded unless DATABASE_URL), driven
// by autocannon from this process over loopback. The paired scenarios alternate service and
// baseline round by round and report the median of the per-round ratios. Prints one table and
// writes it to bench/results/. See README.md "Benchmarks".
//
//   npm run bench -- [--duration 5] [--connections 10] [--rounds 6] [--no-scale] [--paired-only] [--no-build]
//                    [--worker-in-api] [--cpu-prof <dir>]
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { ensureDatabase, startEmbeddedPostgres } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { freePort, withDatabase } from '../test/global-setup.js';
import { type LoadResult, type LoadSpec, runLoad } from './load.js';
import { BENCH_USER, seed, type SeededOrganization } from './seed.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    'scale-duration': { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '6' },
    'no-scale': { type: 'boolean', default: false },
    // Only the paired scenarios (b) and (c): quicker, and a profile of nothing else.
    'paired-only': { type: 'boolean', default: false },
    // dist/ is already current: skip `npm run build`.
    'no-build': { type: 'boolean', default: false },
    // Run the export worker inside the service process (the default of EXPORT_WORKER_IN_API);
    // off by default here, as the API image runs (Dockerfile target `api`).
    'worker-in-api': { type: 'boolean', default: false },
    // Both servers run with `node --cpu-prof`, their profiles written into this directory on exit.
    'cpu-prof': { type: 'string' },
  },
});
const duration = Number(args.duration);
const scaleDuration = Number(args['scale-duration']);
const connections = Number(args.connections);
const rounds = Number(args.rounds);
const pairedOnly = args['paired-only'];
const withScale = !args['no-scale'] && !pairedOnly;
const cpuProfDir = args['cpu-prof'] ? path.resolve(args['cpu-prof']) : undefined;

/** Every limit far above what the bench sends, so it measures work rather than 429s. */
const RAISED_RATE_LIMITS: Record<string, string> = {
  RATE_LIMIT_STANDARD_MAX: '1000000000',
  RATE_LIMIT_SENSITIVE_MAX: '1000000000',
  RATE_LIMIT_EXPORT_MAX: '1000000000',
};

interface Row extends LoadResult {
  scenario: string;
  target: 'service' | 'baseline';
}

/** A paired scenario's comparison: the median of the per-round ratios, and their spread. */
interface Comparison {
  requestsPerSecond: { median: number; min: number; max: number; rounds: number[] };
  /** The service's peak RSS over all its rounds ÷ the baseline's. */
  peakRss: number;
}

const started = Date.now();
const log = (message: string) => process.stdout.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s] ${message}\n`);
const cleanups: Array<() => Promise<unknown>> = [];

async function main() {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'pcs-bench-'));
  cleanups.push(async () => rmSync(workDir, { recursive: true, force: true }));

  if (!args['no-build']) {
    log('npm run build');
    const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    if (built.status !== 0) throw new Error('npm run build failed');
  }
  const baselineScript = await bundleBaseline();
  const databaseUrl = await createDatabase();
  log('seeding 10,000 games' + (withScale ? ' (and 1,000 / 1,000,000 for the scale runs)' : ''));
  const config = loadConfig({ DATA_DIR: workDir, JWT_SECRET: 'x'.repeat(32) });
  const orgs = await seed(databaseUrl, config.auth.argon2, {
    main: 10_000,
    ...(withScale ? { small: 1_000, large: 1_000_000 } : {}),
  });

  const servicePort = await freePort();
  const baselinePort = await freePort();
  const service = await startProcess('service', 'dist/server.js', servicePort, {
    NODE_ENV: 'production',
    // Plain HTTP on loopback, as behind a TLS-terminating proxy.
    HTTPS_ENFORCE: 'false',
    HOST: '127.0.0.1',
    PORT: String(servicePort),
    PUBLIC_URL: `http://127.0.0.1:${servicePort}`,
    DATABASE_URL: databaseUrl,
    DATA_DIR: workDir,
    JWT_SECRET: randomBytes(32).toString('hex'),
    STORAGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
    // Request logging is a deployment choice; the baseline logs nothing either.
    LOG_LEVEL: 'warn',
    EXPORT_WORKER_IN_API: String(args['worker-in-api']),
    ...RAISED_RATE_LIMITS,
  });
  const baseline = await startProcess('baseline', baselineScript, baselinePort, {
    PORT: String(baselinePort),
    DATABASE_URL: databaseUrl,
    POOL_SIZE: String(config.database.poolSize),
  });
  const serviceUrl = `http://127.0.0.1:${servicePort}`;
  const baselineUrl = `http://127.0.0.1:${baselinePort}`;

  const org = orgs.main!;
  const auth = (org: SeededOrganization) => ({ authorization: `Bearer ${org.token}` });
  const load = (spec: Omit<LoadSpec, 'connections' | 'durationSeconds'>, seconds = duration) => runLoad({ ...spec, connections, durationSeconds: seconds });
  const rows: Row[] = [];
  const comparisons: Record<string, Comparison> = {};
  const record = (scenario: string, target: Row['target'], result: LoadResult) => {
    rows.push({ scenario, target, ...result });
    log(
      `${scenario} [${target}] ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms` +
        (result.failures ? `, ${result.failures} FAILED` : ''),
    );
  };

  // Warm both servers up (JIT, pools) before anything is measured.
  await load({ url: `${serviceUrl}/api/games?limit=20`, headers: auth(org), serverPid: service.pid! }, 3);
  await load({ url: `${baselineUrl}/api/games?limit=20&organizationId=${org.id}`, serverPid: baseline.pid! }, 3);

  // (b) and (c) against the baseline in alternating rounds — service, baseline, service,
  // baseline, … — each round's ratio taken from its own adjacent pair, so that other work on the
  // machine weighs on both sides of every ratio; the median of the rounds' ratios is reported.
  const paired: Array<{ scenario: string; service: LoadSpec['url']; baseline: string; nextId?: boolean }> = [
    { scenario: 'b GET /api/games?limit=20', service: `${serviceUrl}/api/games?limit=20`, baseline: `${baselineUrl}/api/games?limit=20&organizationId=${org.id}` },
    { scenario: 'c GET /api/games/{id}', service: serviceUrl, baseline: baselineUrl, nextId: true },
  ];
  for (const pair of paired) {
    const nextPath = pair.nextId ? cycle(org.sampleGameIds.map((id) => `/api/games/${id}`)) : undefined;
    const runs: Record<Row['target'], LoadResult[]> = { service: [], baseline: [] };
    for (let round = 0; round < rounds; round++) {
      for (const target of ['service', 'baseline'] as const) {
        const spec =
          target === 'service'
            ? { url: pair.service, headers: auth(org), nextPath, serverPid: service.pid! }
            : { url: pair.baseline, nextPath, serverPid: baseline.pid! };
        runs[target].push(await load(spec));
      }
      const ratio = runs.service[round]!.requestsPerSecond / runs.baseline[round]!.requestsPerSecond;
      log(
        `${pair.scenario} round ${round + 1}/${rounds}: service ${runs.service[round]!.requestsPerSecond.toFixed(0)}, ` +
          `baseline ${runs.baseline[round]!.requestsPerSecond.toFixed(0)} req/s, ${ratio.toFixed(3)}×`,
      );
    }
    const serviceRow = medianResult(runs.service);
    const baselineRow = medianResult(runs.baseline);
    record(pair.scenario, 'baseline', baselineRow);
    record(pair.scenario, 'service', serviceRow);
    const roundRatios = runs.service.map((r, i) => r.requestsPerSecond / runs.baseline[i]!.requestsPerSecond);
    comparisons[pair.scenario] = {
      requestsPerSecond: { median: median(roundRatios), min: Math.min(...roundRatios), max: Math.max(...roundRatios), rounds: roundRatios },
      peakRss: serviceRow.peakRssMiB / baselineRow.peakRssMiB,
    };
  }

  if (!pairedOnly) await unpairedScenarios();
  async function unpairedScenarios() {
    const measure = async (scenario: string, spec: Omit<LoadSpec, 'connections' | 'durationSeconds' | 'serverPid'>) =>
      record(scenario, 'service', await load({ ...spec, serverPid: service.pid! }));
    await measure('a GET /api/health', { url: `${serviceUrl}/api/health` });
    await measure('d POST /api/storage/urls', {
      url: `${serviceUrl}/api/storage/urls`,
      method: 'POST',
      headers: auth(org),
      body: { fileName: 'hero.png', contentType: 'image/png' },
    });
    await measure('e POST /api/auth/login', { url: `${serviceUrl}/api/auth/login`, method: 'POST', body: BENCH_USER });
  }

  const scale: Row[] = [];
  if (withScale) {
    const small = orgs.small!;
    const large = orgs.large!;
    const scaleRun = async (scenario: string, spec: Omit<LoadSpec, 'connections' | 'durationSeconds' | 'serverPid'>) => {
      const result = await load({ ...spec, serverPid: service.pid! }, scaleDuration);
      scale.push({ scenario, target: 'service', ...result });
      log(`${scenario} ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms` + (result.failures ? `, ${result.failures} FAILED` : ''));
    };
    for (const [label, org] of [
      ['1k', small],
      ['1M', large],
    ] as const) {
      await scaleRun(`list, ${label} games`, { url: `${serviceUrl}/api/games?limit=20`, headers: auth(org) });
      await scaleRun(`get, ${label} games`, {
        url: serviceUrl,
        headers: auth(org),
        nextPath: cycle(org.sampleGameIds.map((id) => `/api/games/${id}`)),
      });
    }
    await scaleRun('list, 1M games, page 40,000', { url: `${serviceUrl}/api/games?limit=20&page=40000`, headers: auth(large) });
    // The same page reached by keyset: the cursor that page 39,999 hands out.
    const before = await fetch(`${serviceUrl}/api/games?limit=20&page=39999&cursor=`, { headers: auth(large) });
    const { meta } = (await before.json()) as { meta: { nextCursor?: string | null } };
    if (meta.nextCursor) {
      await scaleRun('list, 1M games, page 40,000 by cursor', {
        url: `${serviceUrl}/api/games?limit=20&cursor=${encodeURIComponent(meta.nextCursor)}`,
        headers: auth(large),
      });
    }
  }

  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    settings: { duration, scaleDuration, connections, rounds, workerInApi: args['worker-in-api'] },
    scenarios: rows,
    comparisons,
    scale,
    scaleRatios: scaleRatios(scale),
    elapsedSeconds: (Date.now() - started) / 1000,
  };
  printReport(report);
  const resultsDir = path.join(ROOT, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `bench-${report.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(resultsDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  log(`results written to ${path.relative(ROOT, file)}`);
  if ([...rows, ...scale].some((r) => r.failures > 0)) {
    log('some runs had failed requests: their figures are not comparable');
    process.exitCode = 1;
  }
}

/** A fresh database for this run: on DATABASE_URL's server, or on an embedded PostgreSQL. */
async function createDatabase(): Promise<string> {
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    log('starting embedded PostgreSQL');
    // A private directory of its own for the cluster and its password (src/db/embedded.ts).
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pcs-bench-pg-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const embedded = await startEmbeddedPostgres({ directory: dataDir, port: await freePort() });
    cleanups.push(embedded.stop);
    serverUrl = embedded.serverUrl;
  }
  const name = `pcs_bench_${process.pid}`;
  await ensureDatabase(serverUrl, name);
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await client.end();
  });
  const url = withDatabase(serverUrl, name);
  await applyMigrations(url);
  return url;
}

/**
 * bench/baseline.ts as one JavaScript file (its own code and the service's read-queries.ts;
 * packages stay imports), so that it runs on plain Node as the compiled service does — no tsx
 * in either process. Written under bench/results/ (git-ignored), where node_modules resolves.
 */
async function bundleBaseline(): Promise<string> {
  const outfile = path.join(ROOT, 'bench/results/build/baseline.mjs');
  await build({
    entryPoints: [path.join(ROOT, 'bench/baseline.ts')],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return outfile;
}

/** Starts a JavaScript entry point in a plain Node process of its own and waits for it to answer. */
async function startProcess(name: string, script: string, port: number, env: Record<string, string>): Promise<ChildProcess> {
  const profiling = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir, '--cpu-prof-name', `${name}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...profiling, script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    const probe = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null);
    if (probe) break;
    if (Date.now() > deadline) throw new Error(`${name} did not start within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  log(`${name} listening on port ${port} (pid ${child.pid})`);
  return child;
}

function cycle(paths: string[]): () => string {
  let i = 0;
  return () => paths[i++ % paths.length]!;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One side of a paired scenario over its rounds: medians, the highest RSS, all requests and failures. */
function medianResult(results: LoadResult[]): LoadResult {
  const of = (pick: (r: LoadResult) => number) => median(results.map(pick));
  return {
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    requestsPerSecond: of((r) => r.requestsPerSecond),
    p50Ms: of((r) => r.p50Ms),
    p99Ms: of((r) => r.p99Ms),
    peakRssMiB: Math.max(...results.map((r) => r.peakRssMiB)),
    cpuMicrosPerRequest: of((r) => r.cpuMicrosPerRequest),
    failures: results.reduce((sum, r) => sum + r.failures, 0),
  };
}

/** p50 at 1M games ÷ p50 at 1k games, for list and get; and the deep page against page 1. */
function scaleRatios(scale: Row[]): Record<string, number> {
  const p50 = (scenario: string) => scale.find((r) => r.scenario === scenario)?.p50Ms ?? Number.NaN;
  if (scale.length === 0) return {};
  return {
    'list p50, 1M / 1k': p50('list, 1M games') / p50('list, 1k games'),
    'get p50, 1M / 1k': p50('get, 1M games') / p50('get, 1k games'),
    'list p50, page 40,000 / page 1 (1M)': p50('list, 1M games, page 40,000') / p50('list, 1M games'),
    'list p50, page 40,000 by cursor / page 1 (1M)': p50('list, 1M games, page 40,000 by cursor') / p50('list, 1M games'),
  };
}

function printReport(report: {
  date: string;
  machine: Record<string, unknown>;
  settings: Record<string, unknown>;
  scenarios: Row[];
  comparisons: Record<string, Comparison>;
  scale: Row[];
  scaleRatios: Record<string, number>;
}) {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const fmt = (r: Row) => {
    const comparison = r.target === 'service' ? report.comparisons[r.scenario] : undefined;
    return [
      r.scenario,
      r.target,
      r.requestsPerSecond.toFixed(0),
      r.p50Ms.toFixed(2),
      r.p99Ms.toFixed(2),
      r.peakRssMiB.toFixed(0),
      r.cpuMicrosPerRequest.toFixed(0),
      comparison
        ? `${comparison.requestsPerSecond.median.toFixed(2)}× (${comparison.requestsPerSecond.min.toFixed(2)}–${comparison.requestsPerSecond.max.toFixed(2)})`
        : '',
      comparison ? `${comparison.peakRss.toFixed(2)}×` : '',
    ];
  };
  const out = [
    '',
    `Benchmark ${report.date} on ${JSON.stringify(report.machine)}, ${JSON.stringify(report.settings)}`,
    '',
    line([
      'scenario',
      'server',
      'req/s',
      'p50 ms',
      'p99 ms',
      'peak RSS MiB',
      'server CPU µs/req',
      'service/baseline req/s, median (range) of rounds',
      'service/baseline peak RSS',
    ]),
    line(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
    ...report.scenarios.map((r) => line(fmt(r))),
  ];
  if (report.scale.length) {
    out.push(
      '',
      line(['scale scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MiB', 'server CPU µs/req', '', '']),
      line(['---', '---', '---:', '---:', '---:', '---:', '---:', '', '']),
    );
    out.push(...report.scale.map((r) => line(fmt(r))), '');
    for (const [name, value] of Object.entries(report.scaleRatios)) out.push(`${name}: ${value.toFixed(2)}×`);
  }
  out.push('');
  for (const [scenario, { requestsPerSecond: rps, peakRss }] of Object.entries(report.comparisons)) {
    out.push(
      `${scenario}: service at ${rps.median.toFixed(2)}× the baseline's requests/s (median of ${rps.rounds.length} rounds: ` +
        `${rps.rounds.map((r) => r.toFixed(2)).join(', ')}; target ≥ 0.90×), peak RSS ${peakRss.toFixed(2)}× (target ≤ 1.8× on the list)`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n\n`);
}

try {
  await main();
} catch (error) {
  process.exitCode = 1;
  log(`failed: ${(error as Error).stack ?? error}`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e) => log(`cleanup: ${(e as Error).message}`));
}
