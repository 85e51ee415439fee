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
import { buildArtifact, ExportFailure, type SourceFile } from '../exporters/pipeline.js';
import type { Network } from '../exporters/rules.js';
import type { ObjectStore } from '../storage/types.js';
import { EXPORT_DEAD_LETTER_QUEUE, EXPORT_QUEUE, type ExportJobData, type ExportQueue } from './queue.js';

export interface ExportWorkerDeps {
  db: Database;
  store: ObjectStore;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

/** Where an export's artifact is stored. */
export const artifactKey = (organizationId: string, exportId: string, fileName: string) =>
  `orgs/${organizationId}/exports/${exportId}/${fileName}`;

const MAX_ERROR_LENGTH = 1000;

async function markFailed(db: Database, exportId: string, error: string): Promise<void> {
  await db.export.updateMany({
    where: { id: exportId, status: { in: ['queued', 'processing'] } },
    data: { status: 'failed', error: error.slice(0, MAX_ERROR_LENGTH), finishedAt: new Date() },
  });
}

/** Builds one export. Throws only for failures worth retrying. */
export async function processExport(deps: ExportWorkerDeps, exportId: string, attempt: { isLast: boolean; number: number }) {
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

  const source = (asset: { fileName: string; contentType: string; storageKey: string }): SourceFile => ({
    fileName: asset.fileName,
    contentType: asset.contentType,
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
    const artifact = await buildArtifact({
      network: row.network as Network,
      name: variant.name,
      entry: source(variant.entryAsset),
      assets: variant.assets.map((a) => source(a.asset)),
      config: variant.config as Record<string, unknown>,
    });
    const key = artifactKey(row.organizationId, row.id, artifact.fileName);
    await store.write(key, artifact.bytes, { contentType: artifact.contentType });
    const { count } = await db.export.updateMany({
      where: { id: exportId, status: 'processing' },
      data: {
        status: 'succeeded',
        storageKey: key,
        fileName: artifact.fileName,
        size: BigInt(artifact.size),
        checksum: artifact.checksum,
        report: artifact.report as unknown as Prisma.InputJsonObject,
        error: null,
        finishedAt: new Date(),
      },
    });
    // The variant (and with it the export) was deleted meanwhile: do not leave its artifact behind.
    if (count === 0 && !(await db.export.findUnique({ where: { id: exportId }, select: { id: true } }))) await store.delete(key);
    deps.log.info({ exportId, network: row.network, size: artifact.size }, 'export built');
  } catch (error) {
    if (error instanceof ExportFailure) {
      await markFailed(db, exportId, error.message);
      deps.log.info({ exportId, network: row.network, reason: error.message }, 'export failed');
      return;
    }
    deps.log.error({ err: error, exportId, attempt: attempt.number }, 'export attempt failed');
    if (attempt.isLast) {
      await markFailed(db, exportId, `Export failed after ${attempt.number} attempts: ${(error as Error).message}`);
      return;
    }
    throw error;
  }
}

/** Starts `concurrency` workers on the export queue, and one on its dead-letter queue. */
export async function startExportWorker(queue: ExportQueue, deps: ExportWorkerDeps, config: Config['exports']): Promise<void> {
  const { boss } = queue;
  const options = { batchSize: 1, includeMetadata: true as const, pollingIntervalSeconds: config.pollIntervalSeconds };
  const handler = async ([job]: PgBoss.JobWithMetadata<ExportJobData>[]) => {
    if (!job) return;
    await processExport(deps, job.data.exportId, { isLast: job.retryCount >= job.retryLimit, number: job.retryCount + 1 });
  };
  for (let i = 0; i < config.concurrency; i++) await boss.work<ExportJobData>(EXPORT_QUEUE, options, handler);

  // Jobs end here when their last attempt timed out (the worker kept crashing or hanging).
  await boss.work<ExportJobData>(EXPORT_DEAD_LETTER_QUEUE, options, async ([job]) => {
    if (!job) return;
    await markFailed(
      deps.db,
      job.data.exportId,
      `Export did not finish after ${config.maxAttempts} attempts: the worker stopped or took longer than ${config.jobTimeoutSeconds} s`,
    );
  });
}
