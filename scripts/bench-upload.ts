// Memory check of the local store (issue 3, "Must show" 3): starts the real server as a child
// process, uploads a 200 MB file through a signed upload URL, completes it (which hashes the
// whole object), and reports the growth of the server's resident memory over its baseline.
// Exits 1 if the growth reaches 64 MB.
//
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx scripts/bench-upload.ts [megabytes]
//
// DATABASE_URL names a PostgreSQL server; a scratch database is created on it and dropped after.
import { request } from 'node:http';
import { MEGABYTE, peakRssDuring, rssBytes, startBenchServer } from './lib/bench-server.js';

const sizeMb = Number(process.argv[2] ?? 200);
const LIMIT_MB = 64;

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
  const server = await startBenchServer({ MAX_UPLOAD_BYTES: String(sizeMb * MEGABYTE) });
  const { pid } = server;
  const api = (url: string, body?: unknown) => server.api('POST', url, body);
  try {
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
    await server.stop();
  }
}

await main();
