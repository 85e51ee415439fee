// Memory check of the local store (issue 3, "Must show" 3): starts the real server as a child
// process, uploads a 200 MB file through a signed upload URL, completes it (which hashes the
// whole object), and reports the growth of the server's resident memory over its baseline.
// Exits 1 if the growth reaches 64 MB.
//
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx scripts/bench-upload.ts [megabytes]
//
// DATABASE_URL names a PostgreSQL server; a scratch database is created on it and dropped after.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const MEGABYTE = 1024 * 1024;
const sizeMb = Number(process.argv[2] ?? 200);
const LIMIT_MB = 64;
const serverUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const root = path.resolve(import.meta.dirname, '..');

function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error('no VmRSS');
  return Number(match[1]) * 1024;
}

/** Samples a process's RSS every 20 ms while `work` runs; returns the peak. */
async function peakRssDuring(pid: number, work: () => Promise<void>): Promise<number> {
  let peak = rssBytes(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssBytes(pid));
}

async function freePort(): Promise<number> {
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

/** PUTs `bytes` bytes in 1 MiB chunks, generated as they are sent (the client holds one chunk). */
function putStreamed(url: string, contentType: string, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-type': contentType, 'content-length': bytes } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(MEGABYTE, 'playable ');
    let sent = 0;
    const write = () => {
      while (sent < bytes) {
        const piece = chunk.subarray(0, Math.min(MEGABYTE, bytes - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

async function main() {
  const database = `pcs_bench_${process.pid}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pcs-bench-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  await adminQuery(`CREATE DATABASE ${database}`);
  const databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${database}`;

  let server: ChildProcess | undefined;
  try {
    // `node --import tsx` keeps the server in this one process, so its PID is the one to measure.
    server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
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
        MAX_UPLOAD_BYTES: String(sizeMb * MEGABYTE),
        ARGON2_MEMORY_KIB: '1024',
      },
    });
    const pid = server.pid!;
    for (let i = 0; ; i++) {
      const ready = await fetch(`${baseUrl}/api/health/ready`).catch(() => null);
      if (ready?.ok) break;
      if (i > 300) throw new Error('server did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }

    const registered = await fetch(`${baseUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench password', name: 'Bench' }),
    });
    const cookie = registered.headers.getSetCookie().find((c) => c.startsWith('session='))!.split(';')[0]!;
    const api = (url: string, body?: unknown) =>
      fetch(`${baseUrl}/api${url}`, {
        method: 'POST',
        headers: { cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : null,
      });
    const issued = await api('/storage/urls', { fileName: 'big.json', contentType: 'application/json', size: sizeMb * MEGABYTE });
    const upload = (await issued.json()) as { assetId: string; uploadUrl: string };

    await new Promise((r) => setTimeout(r, 500));
    const baseline = rssBytes(pid);
    let status = 0;
    const started = Date.now();
    const uploadPeak = await peakRssDuring(pid, async () => {
      status = await putStreamed(upload.uploadUrl, 'application/json', sizeMb * MEGABYTE);
    });
    const seconds = (Date.now() - started) / 1000;
    let completed: { status?: string; size?: number } = {};
    const completePeak = await peakRssDuring(pid, async () => {
      completed = (await (await api(`/assets/${upload.assetId}/complete`)).json()) as typeof completed;
    });

    const mb = (n: number) => (n / MEGABYTE).toFixed(1);
    const growth = Math.max(uploadPeak, completePeak) - baseline;
    console.log(`upload:   ${sizeMb} MB PUT → HTTP ${status} in ${seconds.toFixed(1)} s`);
    console.log(`complete: status=${completed.status} size=${completed.size}`);
    console.log(`server RSS: baseline ${mb(baseline)} MB, peak during upload ${mb(uploadPeak)} MB, during complete ${mb(completePeak)} MB`);
    console.log(`growth: ${mb(growth)} MB (limit ${LIMIT_MB} MB) → ${growth < LIMIT_MB * MEGABYTE ? 'PASS' : 'FAIL'}`);
    if (status !== 200 || completed.status !== 'ready' || growth >= LIMIT_MB * MEGABYTE) process.exitCode = 1;
  } finally {
    if (server?.pid && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
