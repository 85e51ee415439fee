// The real server as a child process for the memory benchmarks (scripts/bench-*.ts): on a scratch
// database created on DATABASE_URL's server (dropped afterwards) and a temporary DATA_DIR, with
// a registered user to call the API as, and its resident memory read from /proc.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const MEGABYTE = 1024 * 1024;
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const root = path.resolve(import.meta.dirname, '../..');

export function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error('no VmRSS');
  return Number(match[1]) * 1024;
}

/** Samples a process's RSS every 20 ms while `work` runs; returns the peak. */
export async function peakRssDuring(pid: number, work: () => Promise<void>): Promise<number> {
  let peak = rssBytes(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssBytes(pid));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface BenchServer {
  baseUrl: string;
  pid: number;
  /** A JSON request to /api as the registered user. */
  api(method: string, url: string, body?: unknown): Promise<Response>;
  stop(): Promise<void>;
}

export async function startBenchServer(env: Record<string, string>): Promise<BenchServer> {
  const database = `pcs_bench_${process.pid}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pcs-bench-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  await adminQuery(`CREATE DATABASE ${database}`);
  const databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${database}`;
  // `node --import tsx` keeps the server in this one process, so its PID is the one to measure.
  const server: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: baseUrl,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl.toString(),
      ARGON2_MEMORY_KIB: '1024',
      ...env,
    },
  });
  const stop = async () => {
    if (server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {
      const ready = await fetch(`${baseUrl}/api/health/ready`).catch(() => null);
      if (ready?.ok) break;
      if (i > 600) throw new Error('server did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    const registered = await fetch(`${baseUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench password', name: 'Bench' }),
    });
    const cookie = registered.headers
      .getSetCookie()
      .find((c) => c.startsWith('session='))!
      .split(';')[0]!;
    const api = (method: string, url: string, body?: unknown) =>
      fetch(`${baseUrl}/api${url}`, {
        method,
        headers: { cookie, origin: baseUrl, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : null,
      });
    return { baseUrl, pid: server.pid!, api, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
