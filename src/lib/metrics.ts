// The process's Prometheus metrics (prom-client), served by GET /metrics (src/plugins/metrics.ts)
// and, in a separate export worker, on WORKER_METRICS_PORT. One Metrics object per app or
// worker: modules record through it (deps.metrics, or app.metrics in routes) and register
// metrics of their own with counter()/gauge()/histogram(). Per-request work is one histogram
// observation; everything read from elsewhere (pool, queue) is read when scraped.
import type pg from 'pg';
import {
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  Registry,
} from 'prom-client';

/** How one attempt at an export ended: built, failed for a reason the user must fix, or an error (retried unless it was the last attempt). */
export type ExportOutcome = 'succeeded' | 'failed' | 'error';
/** How one webhook delivery attempt ended: a 2xx answer, or anything else (status, timeout, refused). */
export type WebhookOutcome = 'delivered' | 'failed';

export interface QueueCount {
  queue: string;
  state: string;
  count: number;
}

export interface MetricSources {
  /** The service's connection pool (db_pool_* gauges). */
  pool?: pg.Pool;
  /** Jobs per queue and state (export_queue_jobs); read at each scrape. */
  queueCounts?: () => Promise<QueueCount[]>;
  /** Where a failing source is reported (the scrape still answers, without that metric). */
  onCollectError?: (error: unknown, metric: string) => void;
}

export interface Metrics {
  /** http_request_duration_seconds{method, route, status_code}: route is the route's pattern, never the raw URL. */
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status_code'>;
  /** export_job_duration_seconds{network, outcome}: one observation per export attempt. */
  readonly exportJobDuration: Histogram<'network' | 'outcome'>;
  /** webhook_deliveries_total{event, outcome}: one increment per delivery attempt. */
  readonly webhookDeliveries: Counter<'event' | 'outcome'>;
  /** A counter of another module on this registry; asking again for the same name returns the same counter. */
  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L>;
  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L>;
  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L>;
  /** Everything, in the Prometheus text format. */
  render(): Promise<string>;
  readonly contentType: string;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const EXPORT_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** pg-boss's job states, so that a state with no job reads 0 rather than vanishing. */
const JOB_STATES = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'];

/** Process metrics (CPU, memory, event loop, GC) are the process's, whatever the number of apps in it: registered once. */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createMetrics(sources: MetricSources = {}): Metrics {
  const registry = new Registry();
  const reportError = sources.onCollectError ?? (() => {});

  function getOrCreate<M>(name: string, create: () => M): M {
    return (registry.getSingleMetric(name) as M | undefined) ?? create();
  }
  const counter: Metrics['counter'] = (config) => getOrCreate(config.name, () => new Counter({ ...config, registers: [registry] }));
  const gauge: Metrics['gauge'] = (config) => getOrCreate(config.name, () => new Gauge({ ...config, registers: [registry] }));
  const histogram: Metrics['histogram'] = (config) => getOrCreate(config.name, () => new Histogram({ ...config, registers: [registry] }));

  const { pool, queueCounts } = sources;
  if (pool) {
    gauge({
      name: 'db_pool_connections',
      help: 'Connections of the service pool to PostgreSQL, by state (in_use, idle), and its maximum (max)',
      labelNames: ['state'],
      collect() {
        this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'max' }, pool.options.max);
      },
    });
    gauge({
      name: 'db_pool_waiting_requests',
      help: 'Queries waiting for a free connection of the service pool',
      collect() {
        this.set(pool.waitingCount);
      },
    });
  }
  if (queueCounts) {
    gauge({
      name: 'export_queue_jobs',
      help: 'Jobs of the export queues by state (created and retry are waiting, active are being built)',
      labelNames: ['queue', 'state'],
      async collect() {
        try {
          const counts = await queueCounts();
          this.reset();
          for (const queue of new Set(counts.map((c) => c.queue))) for (const state of JOB_STATES) this.set({ queue, state }, 0);
          for (const { queue, state, count } of counts) this.set({ queue, state }, count);
        } catch (error) {
          this.reset();
          reportError(error, 'export_queue_jobs');
        }
      },
    });
  }

  return {
    httpRequestDuration: histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: DURATION_BUCKETS,
    }),
    exportJobDuration: histogram({
      name: 'export_job_duration_seconds',
      help: 'Export attempts by network and outcome (succeeded, failed: the user must fix the input, error: retried unless last)',
      labelNames: ['network', 'outcome'],
      buckets: EXPORT_BUCKETS,
    }),
    webhookDeliveries: counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by event type and outcome (delivered: a 2xx answer, failed: anything else)',
      labelNames: ['event', 'outcome'],
    }),
    counter,
    gauge,
    histogram,
    contentType: registry.contentType,
    async render() {
      const [own, process] = await Promise.all([registry.metrics(), processMetrics().metrics()]);
      return `${own}\n${process}`;
    },
  };
}
