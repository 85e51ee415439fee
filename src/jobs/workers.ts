// Everything that works off the queue, started together: in the API process by default
// (EXPORT_WORKER_IN_API) and in `npm run worker` (src/jobs/worker.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { BrowserManager } from '../exporters/browser/manager.js';
import type { Metrics } from '../lib/metrics.js';
import type { OptimizationCache } from '../exporters/pipeline.js';
import { finishBatch } from '../modules/export-batches/finish.js';
import type { ResolveHost } from '../modules/webhooks/target.js';
import type { ObjectStore } from '../storage/types.js';
import { startExportWorker } from './export-worker.js';
import { BATCH_FINISH_QUEUE, type BatchFinishJobData, type ExportQueue } from './queue.js';
import { startWebhookWorker } from './webhook-worker.js';

export interface WorkerDeps {
  db: Database;
  store: ObjectStore;
  queue: ExportQueue;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** How webhook hosts are resolved before each delivery (the system resolver unless a test injects one). */
  resolveHost: ResolveHost;
  /** The process's cache of optimized files (one is made from the configuration when absent). */
  optimizeCache?: OptimizationCache;
  /** The browser that validates exports (one per process). */
  browser: BrowserManager;
  metrics: Pick<Metrics, 'exportJobDuration' | 'webhookDeliveries'>;
}

export async function startWorkers(deps: WorkerDeps, config: Config): Promise<void> {
  const downloadUrlTtlSeconds = config.storage.downloadUrlTtlSeconds;
  await startExportWorker({ ...deps, downloadUrlTtlSeconds }, config.exports);
  // One batch's ZIP at a time per process: it streams, but it is the largest thing built here.
  await deps.queue.work<BatchFinishJobData>(
    BATCH_FINISH_QUEUE,
    { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: config.exports.pollIntervalSeconds },
    async ([job]) => {
      if (job) await finishBatch({ ...deps, downloadUrlTtlSeconds }, job.data.batchId);
    },
  );
  await startWebhookWorker({ ...deps, config: config.webhooks });
}
