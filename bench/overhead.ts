// `npx tsx bench/overhead.ts`: the CPU each request spends on what issue #12's operability adds
// to every request — its X-Request-Id (kept or generated), the duration histogram's
// observation (onResponse), and the health-socket test of the HTTPS check — each timed alone
// over many calls, in µs per request. README "Benchmarks".
import type { IncomingMessage } from 'node:http';
import { createMetrics } from '../src/lib/metrics.js';
import { isHealthSocketRequest } from '../src/modules/health/socket.js';
import { requestIdOf } from '../src/plugins/request-id.js';

const ROUNDS = 5;
const CALLS = 200_000;

function time(name: string, fn: (i: number) => unknown): { name: string; micros: number } {
  const runs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) fn(i);
    runs.push(Number(process.hrtime.bigint() - started) / 1000 / CALLS);
  }
  return { name, micros: runs.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]! };
}

const withId = { headers: { 'x-request-id': 'f47ac10b-58cc-4372-a567-0e02b2c3d479' } } as unknown as IncomingMessage;
const withoutId = { headers: {} } as unknown as IncomingMessage;
const metrics = createMetrics();
const routes = ['/api/games', '/api/games/:id', '/api/assets', '/api/exports/:id'];
const statuses = [200, 200, 200, 404];

const results = [
  time('X-Request-Id kept (a well-formed id sent)', () => requestIdOf(withId)),
  time('X-Request-Id generated (none sent)', () => requestIdOf(withoutId)),
  time('http_request_duration_seconds observation', (i) =>
    metrics.httpRequestDuration.observe({ method: 'GET', route: routes[i % 4]!, status_code: statuses[i % 4]! }, 0.004),
  ),
  time('health-socket test in the HTTPS check', () => isHealthSocketRequest(withId)),
];
process.stdout.write(`Node ${process.version}, median of ${ROUNDS} × ${CALLS.toLocaleString('en')} calls\n\n| per request | µs |\n| --- | ---: |\n`);
for (const { name, micros } of results) process.stdout.write(`| ${name} | ${micros.toFixed(3)} |\n`);
