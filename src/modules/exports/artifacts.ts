import type { Database } from '../../db/client.js';
import type { RuntimeOrientation } from '../../exporters/browser/index.js';
import type { ExportReport } from '../../exporters/pipeline.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { ExportQueue, Transaction } from '../../jobs/queue.js';
import type { ObjectStore } from '../../storage/types.js';
import { shrinkBatches } from '../export-batches/finish.js';

/** An orientation of report.runtime as stored: the key of its screenshot, signed into screenshotUrl when read. */
export type StoredOrientation = RuntimeOrientation & { screenshotKey?: string };

/** The objects an export's report points at besides its artifact (the runtime screenshots). */
export function reportObjectKeys(report: unknown): string[] {
  const orientations = (report as Partial<ExportReport> | null)?.runtime?.orientations ?? [];
  return (orientations as StoredOrientation[]).flatMap((o) => (o.screenshotKey ? [o.screenshotKey] : []));
}

/**
 * Deletes rows whose removal cascades to the exports matching `exports`, then those exports'
 * artifacts and screenshots in the object store. The batches that lose exports are updated in
 * the same transaction (src/modules/export-batches/finish.ts: shrinkBatches). Rows go first: a
 * store failure leaves an unreachable object, never an export that points at nothing.
 */
export async function deleteCascadingToArtifacts(
  { db, store, queue }: { db: Database; store: ObjectStore; queue: ExportQueue },
  exports: Prisma.ExportWhereInput,
  deleteRows: (tx: Transaction) => Promise<void>,
): Promise<void> {
  const { rows, staleZips } = await db.$transaction(async (tx) => {
    const rows = await tx.export.findMany({ where: exports, select: { storageKey: true, report: true, batchId: true } });
    await deleteRows(tx);
    return { rows, staleZips: await shrinkBatches(tx, queue, [...new Set(rows.flatMap((r) => (r.batchId ? [r.batchId] : [])))]) };
  });
  const keys = [...rows.flatMap((r) => [...(r.storageKey ? [r.storageKey] : []), ...reportObjectKeys(r.report)]), ...staleZips];
  await Promise.allSettled(keys.map((key) => store.delete(key)));
}
