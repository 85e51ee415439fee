// CONTRACT §13: GET /metrics (outside /api) in Prometheus's text format — request durations by
// method, route pattern and status code, export queue gauges and job durations, webhook
// deliveries, the database pool, process metrics — behind METRICS_TOKEN when it is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/plugins/logging.js';
import { buildWorkerApp } from '../src/jobs/worker-app.js';
import { startExportQueue } from '../src/jobs/queue.js';
import { createMetrics } from '../src/lib/metrics.js';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';
import { exportSampleGame } from './helpers/exports.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const scrape = async (inject: TestApp['inject'] = (options) => t.inject(options)) => {
  const res = await inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode, res.body).toBe(200);
  return res;
};
/** The value of one sample, e.g. sample(text, 'http_request_duration_seconds_count', { route: '/api/games/:id' }). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('serves Prometheus text with request durations labelled by method, route pattern and status code', async () => {
    const alice = await t.register();
    const game = (await t.as(alice).post('/games', { name: 'Metered' })).json();
    await t.as(alice).get(`/games/${game.id}`);
    await t.as(alice).get(`/games/${game.id}`);
    await t.as(alice).get('/games/5f2b8a7e-0000-4000-8000-000000000000');
    await t.inject({ method: 'GET', url: '/api/no-such-route-secret-value' });

    const res = await scrape();
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/games/:id', status_code: '200' })).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/games/:id', status_code: '404' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'POST', route: '/api/games', status_code: '201' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: '/api/games/:id', status_code: '200', le: '+Inf' })).toBe(2);
    // Never the raw URL: no ids, no unknown paths.
    expect(sample(text, 'http_request_duration_seconds_count', { route: 'unmatched', status_code: '404' })).toBe(1);
    expect(text).not.toContain(game.id);
    expect(text).not.toContain('no-such-route-secret-value');
  });

  it('has the export queue by state, export durations by network and outcome, and the database pool', async () => {
    await exportSampleGame(t, 'applovin');
    const text = (await scrape()).body;
    expect(text).toContain('# TYPE export_queue_jobs gauge');
    for (const state of ['created', 'retry', 'active', 'completed', 'failed']) {
      expect(sample(text, 'export_queue_jobs', { queue: 'export', state }), state).toEqual(expect.any(Number));
    }
    expect(sample(text, 'export_queue_jobs', { queue: 'export', state: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'export_job_duration_seconds_count', { network: 'applovin', outcome: 'succeeded' })).toBe(1);
    expect(sample(text, 'db_pool_connections', { state: 'max' })).toBe(5);
    expect(sample(text, 'db_pool_connections', { state: 'idle' })).toEqual(expect.any(Number));
    expect(sample(text, 'db_pool_waiting_requests', {})).toBe(0);
    // Process metrics.
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_heap_size_used_bytes');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('lets other modules count webhook deliveries and register metrics of their own', async () => {
    t.app.metrics.webhookDeliveries.inc({ event: 'export.succeeded', outcome: 'delivered' });
    t.app.metrics.webhookDeliveries.inc({ event: 'export.succeeded', outcome: 'failed' }, 2);
    const batches = t.app.metrics.counter({ name: 'test_batches_total', help: 'Batches', labelNames: ['outcome'] });
    expect(t.app.metrics.counter({ name: 'test_batches_total', help: 'Batches', labelNames: ['outcome'] })).toBe(batches);
    batches.inc({ outcome: 'ok' });
    const text = (await scrape()).body;
    expect(sample(text, 'webhook_deliveries_total', { event: 'export.succeeded', outcome: 'delivered' })).toBe(1);
    expect(sample(text, 'webhook_deliveries_total', { event: 'export.succeeded', outcome: 'failed' })).toBe(2);
    expect(sample(text, 'test_batches_total', { outcome: 'ok' })).toBe(1);
  });

  it('is not rate limited and not in the API document', async () => {
    const limited = await createTestApp({ RATE_LIMIT_STANDARD_MAX: '2', RATE_LIMIT_SENSITIVE_MAX: '2' });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await scrape((options) => limited.inject(options));
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
      const document = (await limited.inject({ method: 'GET', url: '/api/openapi.json' })).json();
      expect(Object.keys(document.paths).filter((path) => path.includes('metrics'))).toEqual([]);
    } finally {
      await limited.close();
    }
  });

  it('still answers when the queue cannot be counted', async () => {
    const metrics = createMetrics({
      queueCounts: async () => {
        throw new Error('database down');
      },
    });
    const text = await metrics.render();
    expect(text).toContain('# TYPE export_queue_jobs gauge');
    expect(sample(text, 'export_queue_jobs', { queue: 'export' })).toBeUndefined();
    expect(text).toContain('http_request_duration_seconds');
  });
});

describe('METRICS_TOKEN', () => {
  let protectedApp: TestApp;
  const token = 'metrics-token-0123456789abcdef';
  beforeAll(async () => {
    protectedApp = await createTestApp({ METRICS_TOKEN: token });
  });
  afterAll(() => protectedApp.close());

  it('refuses /metrics without the bearer token, with the contract error body', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${token}`, `Bearer ${token}x`, token]) {
      const res = await protectedApp.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expectError(res, 401, 'AUTHENTICATION_REQUIRED');
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.body).not.toContain('http_request_duration_seconds');
    }
  });

  it('serves them with it, the scheme in any case as RFC 9110 allows (like the API)', async () => {
    for (const authorization of [`Bearer ${token}`, `bearer ${token}`, `BEARER  ${token}`]) {
      const res = await protectedApp.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
      expect(res.statusCode, authorization).toBe(200);
      expect(res.body).toContain('http_request_duration_seconds');
    }
  });
});

describe('an export worker process', () => {
  it('serves /metrics and its readiness (database and queue) through the same routes', async () => {
    const queue = await startExportQueue(t.databaseUrl, t.config, () => {});
    const metrics = createMetrics({ pool: t.db.pool });
    const app = await buildWorkerApp(t.config, { db: t.db, queue, metrics, logger: createLogger('silent') });
    try {
      metrics.exportJobDuration.observe({ network: 'unity', outcome: 'failed' }, 0.2);
      const text = (await scrape((options) => app.inject(options))).body;
      expect(sample(text, 'export_job_duration_seconds_count', { network: 'unity', outcome: 'failed' })).toBe(1);
      expect(text).toContain('db_pool_connections');
      const ready = await app.inject({ method: 'GET', url: '/api/health/ready' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', queue: 'ok' } });
      expect(ready.headers['x-request-id']).toEqual(expect.any(String));
    } finally {
      await app.close();
      await queue.stop();
    }
  });
});
