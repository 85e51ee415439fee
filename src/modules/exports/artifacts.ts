import type { Database } from '../../db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { ObjectStore } from '../../storage/types.js';

/**
 * Deletes rows whose removal cascades to the exports matching `exports`, then those exports'
 * artifacts in the object store. Rows go first: a store failure leaves an unreachable object,
 * never an export that points at nothing.
 */
export async function deleteCascadingToArtifacts(
  db: Database,
  store: ObjectStore,
  exports: Prisma.ExportWhereInput,
  deleteRows: () => Promise<void>,
): Promise<void> {
  const artifacts = await db.export.findMany({ where: { ...exports, storageKey: { not: null } }, select: { storageKey: true } });
  await deleteRows();
  await Promise.allSettled(artifacts.map((a) => store.delete(a.storageKey!)));
}
