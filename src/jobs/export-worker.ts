// The export worker: takes export jobs off the queue and runs the pipeline of src/exporters on
// them. Runs inside the API process by default (EXPORT_WORKER_IN_API) and on its own with
// `npm run worker` (src/jobs/worker.ts).
//
// An export moves queued → processing → succeeded | failed. A failure the user must fix
// (ExportFailure: a missing file, over the size limit…) fails the export at once; anything else
// (store or database trouble) is thrown so that pg-boss retries it, and the last attempt records
// the error.
import type { FastifyBaseLogger } from 'fastify';
import type PgBoss from 'pg-boss';
import type { Config } from '../config.js';
import type { Database, Prisma } from '../db/client.js';
import { NotFoundError } from '../errors.js';
import type { BrowserManager } from '../exporters/browser/manager.js';
import {
  type Artifact,
  buildArtifact,
  ExportFailure,
  type ExportReport,
  OptimizationCache,
  type PipelineDeps,
  type SourceFile,
  warmUpOptimizers,
} from '../exporters/pipeline.js';
import type { ExportOutcome, Metrics } from '../lib/metrics.js';
import type { OptimizeMode, ValidationMode } from '../exporters/options.js';
import type { Network } from '../exporters/rules.js';
import type { ExportStatus } from '../generated/prisma/client.js';
import { exportOfBatchFinished } from '../modules/export-batches/finish.js';
import type { StoredOrientation } from '../modules/exports/artifacts.js';
import { toExportDto } from '../modules/exports/service.js';
import { recordEvent } from '../modules/webhooks/events.js';
import { downloadSigner } from '../storage/index.js';
import type { ObjectStore } from '../storage/types.js';
import { BATCH_FINISH_QUEUE, EXPORT_DEAD_LETTER_QUEUE, EXPORT_QUEUE, type ExportJobData, type ExportQueue } from './queue.js';

export interface ExportWorkerDeps {
  db: Database;
  store: ObjectStore;
  queue: ExportQueue;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** The process's cache of optimized files (one is made from the configuration when absent). */
  optimizeCache?: OptimizationCache;
  /** Lifetime of the downloadUrl in an export.succeeded event. */
  downloadUrlTtlSeconds: number;
  /** The worker's validation browser (src/exporters/browser/manager.ts). */
  browser: BrowserManager;
  metrics: Pick<Metrics, 'exportJobDuration'>;
}

/** Where an export's artifact is stored. */
export const artifactKey = (organizationId: string, exportId: string, fileName: string) => `orgs/${organizationId}/exports/${exportId}/${fileName}`;

/** Where the screenshot of an export in one orientation is stored. */
export const screenshotKey = (organizationId: string, exportId: string, orientation: string) =>
  `orgs/${organizationId}/exports/${exportId}/screenshots/${orientation}.png`;

const MAX_ERROR_LENGTH = 1000;

/**
 * The one place an export becomes succeeded or failed (if it is still in one of `from`). In the
 * same transaction, the hooks of what follows from it: its batch is told (a finishing job, see
 * src/modules/export-batches/finish.ts) and its webhook event is recorded (src/modules/webhooks/
 * events.ts), so a crash right after the commit loses neither. Returns false if the export was
 * not in `from` (already finished, or deleted).
 */
async function finishExport(deps: ExportWorkerDeps, exportId: string, from: ExportStatus[], data: Prisma.ExportUpdateManyMutationInput) {
  const { db, queue } = deps;
  const signDownload = downloadSigner(deps.store, deps.downloadUrlTtlSeconds);
  const finished = await db.$transaction(async (tx) => {
    const [row] = await tx.export.updateManyAndReturn({ where: { id: exportId, status: { in: from } }, data });
    if (!row) return null;
    if (row.batchId) await exportOfBatchFinished(tx, queue, row.batchId);
    const type = row.status === 'succeeded' ? 'export.succeeded' : 'export.failed';
    const wakeDeliveries = await recordEvent(tx, queue, { organizationId: row.organizationId, type, data: await toExportDto(row, signDownload) });
    return { wakeDeliveries, inBatch: row.batchId !== null };
  });
  if (!finished) return false;
  // Committed: this process's workers take the new jobs now rather than at their next poll.
  finished.wakeDeliveries();
  if (finished.inBatch) queue.wake(BATCH_FINISH_QUEUE);
  return true;
}

async function markFailed(deps: ExportWorkerDeps, exportId: string, error: string, report?: ExportReport): Promise<void> {
  await finishExport(deps, exportId, ['queued', 'processing'], {
    status: 'failed',
    error: error.slice(0, MAX_ERROR_LENGTH),
    finishedAt: new Date(),
    ...(report ? { report: report as unknown as Prisma.InputJsonObject } : {}),
  });
}

/** Stores the artifact's screenshots; returns its report with their keys, which GET /exports signs. */
async function storeScreenshots(store: ObjectStore, row: { id: string; organizationId: string }, artifact: Artifact): Promise<ExportReport> {
  const keys = new Map<string, string>();
  for (const { orientation, png } of artifact.screenshots) {
    const key = screenshotKey(row.organizationId, row.id, orientation);
    await store.write(key, png, { contentType: 'image/png' });
    keys.set(orientation, key);
  }
  const { runtime } = artifact.report;
  const orientations: StoredOrientation[] = runtime.orientations.map((o) => (keys.has(o.name) ? { ...o, screenshotKey: keys.get(o.name) } : o));
  return { ...artifact.report, runtime: { ...runtime, orientations } };
}

/** Builds one export. Throws only for failures worth retrying. */
export async function processExport(deps: ExportWorkerDeps & { pipeline: PipelineDeps }, exportId: string, attempt: { isLast: boolean; number: number }) {
  const { db, store } = deps;
  // Claim: a finished (or deleted) export is left alone, so a repeated job does nothing.
  const claimed = await db.export.updateMany({
    where: { id: exportId, status: { in: ['queued', 'processing'] } },
    data: { status: 'processing', startedAt: new Date(), attempts: { increment: 1 } },
  });
  if (claimed.count === 0) return;
  const row = await db.export.findUnique({
    where: { id: exportId },
    include: { variant: { include: { entryAsset: true, assets: { include: { asset: true } } } } },
  });
  if (!row) return;
  const { variant } = row;
  const startedAt = performance.now();
  const observe = (outcome: ExportOutcome) => deps.metrics.exportJobDuration.observe({ network: row.network, outcome }, (performance.now() - startedAt) / 1000);

  const source = (asset: { fileName: string; contentType: string; storageKey: string; size: bigint | null }): SourceFile => ({
    fileName: asset.fileName,
    contentType: asset.contentType,
    size: Number(asset.size ?? 0),
    open: async () => {
      try {
        return await store.read(asset.storageKey);
      } catch (error) {
        if (error instanceof NotFoundError) throw new ExportFailure(`The file ${asset.fileName} is missing from storage; upload it again`);
        throw error;
      }
    },
  });

  try {
    const artifact = await buildArtifact(
      {
        network: row.network as Network,
        name: variant.name,
        entry: source(variant.entryAsset),
        assets: variant.assets.map((a) => source(a.asset)),
        config: variant.config as Record<string, unknown>,
        optimize: row.optimize as OptimizeMode,
        validation: row.validation as ValidationMode,
        browser: deps.browser,
      },
      deps.pipeline,
    );
    const key = artifactKey(row.organizationId, row.id, artifact.fileName);
    await store.write(key, artifact.bytes, { contentType: artifact.contentType });
    const report = await storeScreenshots(store, row, artifact);
    const succeeded = await finishExport(deps, exportId, ['processing'], {
      status: 'succeeded',
      storageKey: key,
      fileName: artifact.fileName,
      size: BigInt(artifact.size),
      checksum: artifact.checksum,
      report: report as unknown as Prisma.InputJsonObject,
      error: null,
      finishedAt: new Date(),
    });
    // The variant (and with it the export) was deleted meanwhile: do not leave its artifact behind.
    if (!succeeded && !(await db.export.findUnique({ where: { id: exportId }, select: { id: true } }))) {
      await Promise.all([key, ...artifact.screenshots.map((s) => screenshotKey(row.organizationId, row.id, s.orientation))].map((k) => store.delete(k)));
    }
    observe('succeeded');
    deps.log.info({ exportId, network: row.network, size: artifact.size, timings: artifact.timings }, 'export built');
  } catch (error) {
    observe(error instanceof ExportFailure ? 'failed' : 'error');
    if (error instanceof ExportFailure) {
      // A build that failed its runtime checks keeps its report and screenshots, to show why.
      const report = error.artifact ? await storeScreenshots(store, row, error.artifact) : undefined;
      await markFailed(deps, exportId, error.message, report);
      deps.log.info({ exportId, network: row.network, reason: error.message }, 'export failed');
      return;
    }
    deps.log.error({ err: error, exportId, attempt: attempt.number }, 'export attempt failed');
    if (attempt.isLast) {
      await markFailed(deps, exportId, `Export failed after ${attempt.number} attempts: ${(error as Error).message}`);
      return;
    }
    throw error;
  }
}

/** Starts `concurrency` workers on the export queue, and one on its dead-letter queue. */
export async function startExportWorker(deps: ExportWorkerDeps, config: Config['exports']): Promise<void> {
  const { boss } = deps.queue;
  const pipeline: PipelineDeps = { cache: deps.optimizeCache ?? new OptimizationCache(config.optimizeCacheBytes), ffmpegPath: config.ffmpegPath };
  await warmUpOptimizers();
  const options = { batchSize: 1, includeMetadata: true as const, pollingIntervalSeconds: config.pollIntervalSeconds };
  const handler = async ([job]: PgBoss.JobWithMetadata<ExportJobData>[]) => {
    if (!job) return;
    await processExport({ ...deps, pipeline }, job.data.exportId, { isLast: job.retryCount >= job.retryLimit, number: job.retryCount + 1 });
  };
  for (let i = 0; i < config.concurrency; i++) await boss.work<ExportJobData>(EXPORT_QUEUE, options, handler);

  // Jobs end here when their last attempt timed out (the worker kept crashing or hanging).
  await boss.work<ExportJobData>(EXPORT_DEAD_LETTER_QUEUE, options, async ([job]) => {
    if (!job) return;
    await markFailed(
      deps,
      job.data.exportId,
      `Export did not finish after ${config.maxAttempts} attempts: the worker stopped or took longer than ${config.jobTimeoutSeconds} s`,
    );
  });
}
