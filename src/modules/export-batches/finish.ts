// How a batch finishes, and what deleting exports does to it.
//
// Every export that finishes queues a finishing job for its batch, in the transaction that
// finishes it (src/jobs/export-worker.ts). The job checks, under the batch row's lock, whether
// every export has finished; children finishing meanwhile wait for that lock, then queue another
// check, so the last one is never missed. When all have finished, the job streams the ZIP from
// the store into the store, then stores it and records export_batch.finished in one transaction
// — unless the batch changed in between (a variant deleted), in which case its own ZIP is
// discarded and the job the change queued builds a new one. pg-boss retries the job if it
// fails or its worker dies, so a crash at any point loses nothing.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';
import type { Export } from '../../generated/prisma/client.js';
import type { ExportQueue, Transaction } from '../../jobs/queue.js';
import { downloadSigner } from '../../storage/index.js';
import type { ObjectStore } from '../../storage/types.js';
import { recordEvent } from '../webhooks/events.js';
import { type ArchivedExport, batchArchive } from './archive.js';
import { batchExportFields, inRequestOrder, toBatchDto } from './dto.js';

export interface BatchFinishDeps {
  db: Database;
  store: ObjectStore;
  queue: ExportQueue;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  downloadUrlTtlSeconds: number;
}

const zipKey = (organizationId: string, batchId: string) => `orgs/${organizationId}/batches/${batchId}/${randomUUID()}.zip`;

/** Takes the batch row's lock until `tx` ends; null if the batch is gone. */
async function lockBatch(tx: Transaction, batchId: string) {
  await tx.$queryRaw`SELECT 1 FROM export_batches WHERE id = ${batchId}::uuid FOR UPDATE`;
  return tx.exportBatch.findUnique({ where: { id: batchId } });
}

const unfinished = (e: { status: string }) => e.status === 'queued' || e.status === 'processing';

/** Called in the transaction that finishes one of the batch's exports. */
export async function exportOfBatchFinished(tx: Transaction, queue: ExportQueue, batchId: string): Promise<void> {
  await lockBatch(tx, batchId);
  await queue.enqueueBatchFinish(tx, batchId);
}

/** The finishing job: builds and stores the ZIP once every export of the batch has finished. */
export async function finishBatch(deps: BatchFinishDeps, batchId: string): Promise<void> {
  const { db, store, queue } = deps;
  const snapshot = await db.$transaction(async (tx) => {
    const batch = await lockBatch(tx, batchId);
    if (!batch || batch.finishedAt) return null;
    const exports = await tx.export.findMany({ where: { batchId }, include: { variant: { select: { name: true } } } });
    if (exports.some(unfinished)) return null;
    return { batch, exports: inRequestOrder(batch, exports) };
  });
  if (!snapshot) return;

  const { batch } = snapshot;
  const key = zipKey(batch.organizationId, batch.id);
  const archive = batchArchive(store, batch, snapshot.exports.map(toArchived));
  try {
    await store.writeStream(key, archive.stream, { contentType: 'application/zip' });
  } catch (error) {
    archive.stream.destroy();
    throw error;
  }

  const signDownload = downloadSigner(store, deps.downloadUrlTtlSeconds);
  const stored = await db.$transaction(async (tx) => {
    const current = await lockBatch(tx, batchId);
    const ids = current && !current.finishedAt ? await tx.export.findMany({ where: { batchId }, select: { id: true } }) : null;
    if (!ids || !sameIds(ids, snapshot.exports)) return null;
    const finished = await tx.exportBatch.update({
      where: { id: batchId },
      data: { storageKey: key, size: BigInt(archive.bytes()), finishedAt: new Date() },
      include: { exports: { select: batchExportFields } },
    });
    return recordEvent(tx, queue, { organizationId: finished.organizationId, type: 'export_batch.finished', data: await toBatchDto(finished, signDownload) });
  });
  if (!stored) {
    await store.delete(key);
    return;
  }
  stored();
  deps.log.info({ batchId, exports: snapshot.exports.length, zipBytes: archive.bytes() }, 'export batch finished');
}

const toArchived = (e: Export & { variant: { name: string } }): ArchivedExport => ({
  id: e.id,
  variantId: e.variantId,
  variantName: e.variant.name,
  network: e.network,
  status: e.status,
  fileName: e.fileName,
  storageKey: e.storageKey,
  size: e.size === null ? null : Number(e.size),
  checksum: e.checksum,
  error: e.error,
});

function sameIds(a: Array<{ id: string }>, b: Array<{ id: string }>): boolean {
  const ids = new Set(a.map((e) => e.id));
  return a.length === b.length && b.every((e) => ids.has(e.id));
}

/**
 * Called in the transaction that deleted some of these batches' exports (their variant or game
 * was deleted): a batch left without exports is deleted; a finished one loses its ZIP, which
 * still holds the deleted artifacts, and is finished again from what remains; an unfinished one
 * gets a check, as the deleted exports may have been the last ones it waited for. Returns the
 * keys of the ZIPs to delete from the store once the transaction has committed.
 */
export async function shrinkBatches(tx: Transaction, queue: ExportQueue, batchIds: string[]): Promise<string[]> {
  const staleZips: string[] = [];
  for (const batchId of batchIds) {
    const batch = await lockBatch(tx, batchId);
    if (!batch) continue;
    if (batch.storageKey) staleZips.push(batch.storageKey);
    if ((await tx.export.count({ where: { batchId } })) === 0) {
      await tx.exportBatch.delete({ where: { id: batchId } });
      continue;
    }
    await tx.exportBatch.update({ where: { id: batchId }, data: { storageKey: null, size: null, finishedAt: null } });
    await queue.enqueueBatchFinish(tx, batchId);
  }
  return staleZips;
}
