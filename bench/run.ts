// `npm run bench`: the service and a bare baseline server, each in its own process against the
// same PostgreSQL (embedded unless DATABASE_URL), driven by autocannon from this process over
// loopback. Prints one table and writes it to bench/results/. See README.md "Benchmarks".
//
//   npm run bench -- [--duration 8] [--connections 10] [--rounds 2] [--no-scale]
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
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
    duration: { type: 'string', default: '8' },
    'scale-duration': { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    'no-scale': { type: 'boolean', default: false },
  },
});
const duration = Number(args.duration);
const scaleDuration = Number(args['scale-duration']);
const connections = Number(args.connections);
const rounds = Number(args.rounds);
const withScale = !args['no-scale'];

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

const started = Date.now();
const log = (message: string) => process.stdout.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s] ${message}\n`);
const cleanups: Array<() => Promise<unknown>> = [];

async function main() {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'pcs-bench-'));
  cleanups.push(async () => rmSync(workDir, { recursive: true, force: true }));

  const databaseUrl = await createDatabase();
  log('seeding 10,000 games' + (withScale ? ' (and 1,000 / 1,000,000 for the scale runs)' : ''));
  const config = loadConfig({ DATA_DIR: workDir, JWT_SECRET: 'x'.repeat(32) });
  const orgs = await seed(databaseUrl, config.auth.argon2, {
    main: 10_000,
    ...(withScale ? { small: 1_000, large: 1_000_000 } : {}),
  });

  const servicePort = await freePort();
  const baselinePort = await freePort();
  const service = await startProcess('service', ['src/server.ts'], servicePort, {
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
    ...RAISED_RATE_LIMITS,
  });
  const baseline = await startProcess('baseline', ['bench/baseline.ts'], baselinePort, {
    PORT: String(baselinePort),
    DATABASE_URL: databaseUrl,
    POOL_SIZE: String(config.database.poolSize),
  });
  const serviceUrl = `http://127.0.0.1:${servicePort}`;
  const baselineUrl = `http://127.0.0.1:${baselinePort}`;

  const org = orgs.main!;
  const auth = (org: SeededOrganization) => ({ authorization: `Bearer ${org.token}` });
  const load = (spec: Omit<LoadSpec, 'connections' | 'durationSeconds'>, seconds = duration) =>
    runLoad({ ...spec, connections, durationSeconds: seconds });
  const rows: Row[] = [];
  const record = (scenario: string, target: Row['target'], result: LoadResult) => {
    rows.push({ scenario, target, ...result });
    log(`${scenario} [${target}] ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms` +
      (result.failures ? `, ${result.failures} FAILED` : ''));
  };

  // Warm both servers up (JIT, pools) before anything is measured.
  await load({ url: `${serviceUrl}/api/games?limit=20`, headers: auth(org), serverPid: service.pid! }, 2);
  await load({ url: `${baselineUrl}/api/games?limit=20&organizationId=${org.id}`, serverPid: baseline.pid! }, 2);

  // (b) and (c) against the baseline, alternating which goes first, so that noise from other
  // work on the machine falls on both sides.
  const paired: Array<{ scenario: string; service: LoadSpec['url']; baseline: string; nextId?: boolean }> = [
    { scenario: 'b GET /api/games?limit=20', service: `${serviceUrl}/api/games?limit=20`, baseline: `${baselineUrl}/api/games?limit=20&organizationId=${org.id}` },
    { scenario: 'c GET /api/games/{id}', service: serviceUrl, baseline: baselineUrl, nextId: true },
  ];
  for (const pair of paired) {
    const nextPath = pair.nextId ? cycle(org.sampleGameIds.map((id) => `/api/games/${id}`)) : undefined;
    const runs: Record<Row['target'], LoadResult[]> = { service: [], baseline: [] };
    for (let round = 0; round < rounds; round++) {
      const order: Row['target'][] = round % 2 === 0 ? ['baseline', 'service'] : ['service', 'baseline'];
      for (const target of order) {
        const spec = target === 'service'
          ? { url: pair.service, headers: auth(org), nextPath, serverPid: service.pid! }
          : { url: pair.baseline, nextPath, serverPid: baseline.pid! };
        runs[target].push(await load(spec));
      }
    }
    record(pair.scenario, 'baseline', average(runs.baseline));
    record(pair.scenario, 'service', average(runs.service));
  }

  record('a GET /api/health', 'service', await load({ url: `${serviceUrl}/api/health`, serverPid: service.pid! }));
  if (await routeExists(`${serviceUrl}/api/storage/urls`, auth(org))) {
    record('d POST /api/storage/urls', 'service', await load({
      url: `${serviceUrl}/api/storage/urls`,
      method: 'POST',
      headers: auth(org),
      body: { fileName: 'hero.png', contentType: 'image/png' },
      serverPid: service.pid!,
    }));
  } else {
    log('d POST /api/storage/urls: route not in this build, skipped');
  }
  record('e POST /api/auth/login', 'service', await load({
    url: `${serviceUrl}/api/auth/login`,
    method: 'POST',
    body: BENCH_USER,
    serverPid: service.pid!,
  }));

  const scale: Row[] = [];
  if (withScale) {
    const small = orgs.small!;
    const large = orgs.large!;
    const scaleRun = async (scenario: string, spec: Omit<LoadSpec, 'connections' | 'durationSeconds' | 'serverPid'>) => {
      const result = await load({ ...spec, serverPid: service.pid! }, scaleDuration);
      scale.push({ scenario, target: 'service', ...result });
      log(`${scenario} ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms` +
        (result.failures ? `, ${result.failures} FAILED` : ''));
    };
    for (const [label, org] of [['1k', small], ['1M', large]] as const) {
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
    settings: { duration, scaleDuration, connections, rounds },
    scenarios: rows,
    ratios: ratios(rows),
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

/** Starts a TypeScript entry point in its own Node process and waits for it to answer. */
async function startProcess(name: string, entry: string[], port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...entry], {
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

async function routeExists(url: string, headers: Record<string, string>): Promise<boolean> {
  const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
  const body = (await res.json().catch(() => ({}))) as { message?: string };
  return !(res.status === 404 && /^Route /.test(body.message ?? ''));
}

function cycle(paths: string[]): () => string {
  let i = 0;
  return () => paths[i++ % paths.length]!;
}

function average(results: LoadResult[]): LoadResult {
  const mean = (pick: (r: LoadResult) => number) => results.reduce((sum, r) => sum + pick(r), 0) / results.length;
  return {
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    requestsPerSecond: mean((r) => r.requestsPerSecond),
    p50Ms: mean((r) => r.p50Ms),
    p99Ms: mean((r) => r.p99Ms),
    peakRssMiB: Math.max(...results.map((r) => r.peakRssMiB)),
    cpuMicrosPerRequest: mean((r) => r.cpuMicrosPerRequest),
    failures: results.reduce((sum, r) => sum + r.failures, 0),
  };
}

/** service ÷ baseline requests/s, per scenario that has both. */
function ratios(rows: Row[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of rows.filter((r) => r.target === 'service')) {
    const floor = rows.find((r) => r.target === 'baseline' && r.scenario === row.scenario);
    if (floor) out[row.scenario] = row.requestsPerSecond / floor.requestsPerSecond;
  }
  return out;
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

function printReport(report: { date: string; machine: Record<string, unknown>; scenarios: Row[]; ratios: Record<string, number>; scale: Row[]; scaleRatios: Record<string, number> }) {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const fmt = (r: Row) => [
    r.scenario,
    r.target,
    r.requestsPerSecond.toFixed(0),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    r.peakRssMiB.toFixed(0),
    r.cpuMicrosPerRequest.toFixed(0),
    r.target === 'service' && report.ratios[r.scenario] !== undefined ? `${report.ratios[r.scenario]!.toFixed(2)}×` : '',
  ];
  const out = [
    '',
    `Benchmark ${report.date} on ${JSON.stringify(report.machine)}`,
    '',
    line(['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MiB', 'server CPU µs/req', 'service/baseline req/s']),
    line(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:']),
    ...report.scenarios.map((r) => line(fmt(r))),
  ];
  if (report.scale.length) {
    out.push('', line(['scale scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MiB', 'server CPU µs/req', '']), line(['---', '---', '---:', '---:', '---:', '---:', '---:', '']));
    out.push(...report.scale.map((r) => line(fmt(r))), '');
    for (const [name, value] of Object.entries(report.scaleRatios)) out.push(`${name}: ${value.toFixed(2)}×`);
  }
  const list = report.ratios['b GET /api/games?limit=20'];
  if (list !== undefined) out.push('', `(b) authenticated list at ${list.toFixed(2)}× the baseline's requests/s (target ≥ 0.80×)`);
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
