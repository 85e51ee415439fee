// `npm run bench:startup`: how long the server takes from `node …` to its first answer, and its
// resident memory once idle, compiled (`node dist/server.js`, what the image runs) against
// TypeScript through tsx (`npm start`). Builds first; rounds alternate the two so that a busy
// machine weighs on both alike. README "Benchmarks" has the table and the decision it backs.
//
//   DATABASE_URL=postgresql://… npm run bench:startup -- [--rounds 5] [--idle 5]
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ensureDatabase } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { freePort, withDatabase } from '../test/global-setup.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, idle: { type: 'string', default: '5' } } });
const VARIANTS = { 'node dist/server.js': ['dist/server.js'], 'tsx (npm start)': ['--import', 'tsx', 'src/server.ts'] };

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('Set DATABASE_URL to a PostgreSQL server (the embedded one would dominate the start time)');

/** Milliseconds to the first 200 from /api/health, and VmRSS (MiB) after `idleSeconds`. */
async function measure(nodeArgs: string[], env: Record<string, string>): Promise<{ startMs: number; rssMiB: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, nodeArgs, { cwd: ROOT, env: { ...env, PATH: process.env.PATH ?? '', PORT: String(port) }, stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${nodeArgs.join(' ')} exited with ${child.exitCode}`);
      if ((await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.ok) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const startMs = performance.now() - started;
    await new Promise((r) => setTimeout(r, Number(args.idle) * 1000));
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]);
    return { startMs, rssMiB: rssKiB / 1024 };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
  const name = `pcs_bench_startup_${process.pid}`;
  await ensureDatabase(serverUrl!, name);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pcs-bench-startup-'));
  const databaseUrl = withDatabase(serverUrl!, name);
  try {
    await applyMigrations(databaseUrl);
    const env = {
      NODE_ENV: 'production',
      HTTPS_ENFORCE: 'false',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(32).toString('hex'),
      STORAGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    };
    const results: Record<string, Array<{ startMs: number; rssMiB: number }>> = {};
    for (let round = 1; round <= Number(args.rounds); round++) {
      const order = round % 2 ? Object.entries(VARIANTS) : Object.entries(VARIANTS).reverse();
      for (const [variant, nodeArgs] of order) (results[variant] ??= []).push(await measure(nodeArgs, env));
      process.stdout.write(`round ${round} done\n`);
    }
    process.stdout.write(`\nNode ${process.version}, ${args.rounds} rounds, medians\n\n| server | start (to first 200) | idle RSS |\n| --- | ---: | ---: |\n`);
    for (const [variant, runs] of Object.entries(results)) {
      const start = median(runs.map((r) => r.startMs)) / 1000;
      const rss = median(runs.map((r) => r.rssMiB));
      process.stdout.write(`| ${variant} | ${start.toFixed(2)} s | ${rss.toFixed(0)} MiB |\n`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await client.end();
  }
}

await main();
