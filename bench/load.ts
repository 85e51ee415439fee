// One load run: autocannon against a server on loopback, latencies kept at full precision
// (autocannon's own histogram rounds to whole milliseconds) and the server's RSS sampled.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  /** Called before each request for a path that varies (e.g. a different game each time). */
  nextPath?: () => string;
  connections: number;
  durationSeconds: number;
  /** The process whose resident memory is sampled. */
  serverPid: number;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  peakRssMiB: number;
  /** The server process's CPU time (user + system) per request: steadier than req/s on a shared machine. */
  cpuMicrosPerRequest: number;
  /** Responses that were not 2xx, and socket errors/timeouts: any of these voids the run. */
  failures: number;
}

const RSS_SAMPLE_MS = 100;

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  let peakRssKiB = residentKiB(spec.serverPid);
  const cpuBefore = cpuMillis(spec.serverPid);
  const sampler = setInterval(() => {
    peakRssKiB = Math.max(peakRssKiB, residentKiB(spec.serverPid));
  }, RSS_SAMPLE_MS);

  let instance!: autocannon.Instance;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: spec.url,
        method: spec.method ?? 'GET',
        connections: spec.connections,
        duration: spec.durationSeconds,
        headers: { ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }), ...spec.headers },
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        requests: spec.nextPath ? [{ setupRequest: (request) => ({ ...request, path: spec.nextPath!() }) }] : undefined,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await finished;
  clearInterval(sampler);
  const cpuUsed = cpuMillis(spec.serverPid) - cpuBefore;

  latencies.sort((a, b) => a - b);
  return {
    requests: result.requests.total,
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    peakRssMiB: peakRssKiB / 1024,
    cpuMicrosPerRequest: (cpuUsed * 1000) / Math.max(1, result.requests.total),
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Clock ticks per second of /proc/<pid>/stat; 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** user + system CPU time of a process from /proc (Linux), in milliseconds. */
function cpuMillis(pid: number): number {
  try {
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th of them.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** VmRSS of a process from /proc (Linux), in KiB; 0 once it is gone. */
function residentKiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
