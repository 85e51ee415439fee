import type { OptimizeMode, ValidationMode } from '../../exporters/options.js';
import type { Network } from '../../exporters/rules.js';
import type { Export, ExportBatch, ExportStatus } from '../../generated/prisma/client.js';
import { iso, isoOrNull } from '../../lib/schemas.js';
import type { SignDownload } from '../../storage/index.js';
import { EXPORT_STATUSES } from '../exports/schemas.js';

export type BatchExport = Pick<Export, 'id' | 'variantId' | 'network' | 'status' | 'size' | 'error' | 'finishedAt'>;
export type BatchWithExports = ExportBatch & { exports: BatchExport[] };

/** What a batch's exports need for its DTO. */
export const batchExportFields = { id: true, variantId: true, network: true, status: true, size: true, error: true, finishedAt: true } as const;

/** The batch's exports in the order requested: each variant, then each network. */
export function inRequestOrder<E extends Pick<Export, 'variantId' | 'network'>>(batch: Pick<ExportBatch, 'variantIds' | 'networks'>, exports: E[]): E[] {
  const rank = (e: E) => batch.variantIds.indexOf(e.variantId) * batch.networks.length + batch.networks.indexOf(e.network);
  return [...exports].sort((a, b) => rank(a) - rank(b));
}

/**
 * queued until one of its exports starts, finished once its ZIP is stored; counts and status
 * come from the exports themselves.
 */
function statusOf(batch: BatchWithExports): 'queued' | 'processing' | 'finished' {
  if (batch.finishedAt) return 'finished';
  return batch.exports.every((e) => e.status === 'queued') ? 'queued' : 'processing';
}

export const toBatchCreatedDto = (batch: BatchWithExports) => ({
  id: batch.id,
  status: statusOf(batch),
  exports: inRequestOrder(batch, batch.exports).map((e) => ({ id: e.id, variantId: e.variantId, network: e.network as Network, status: e.status })),
  createdAt: iso(batch.createdAt),
});

/** A batch as GET /export-batches/{id} shows it (and the export_batch.finished event carries it). */
export async function toBatchDto(batch: BatchWithExports, signDownload: SignDownload) {
  const counts = Object.fromEntries(EXPORT_STATUSES.map((s) => [s, 0])) as Record<ExportStatus, number>;
  for (const e of batch.exports) counts[e.status] += 1;
  return {
    id: batch.id,
    organizationId: batch.organizationId,
    status: statusOf(batch),
    counts,
    optimize: batch.optimize as OptimizeMode,
    validation: batch.validation as ValidationMode,
    exports: inRequestOrder(batch, batch.exports).map((e) => ({
      id: e.id,
      variantId: e.variantId,
      network: e.network as Network,
      status: e.status,
      size: e.size === null ? null : Number(e.size),
      error: e.error,
      finishedAt: isoOrNull(e.finishedAt),
    })),
    downloadUrl: batch.finishedAt && batch.storageKey ? await signDownload(batch.storageKey, batchZipName(batch.id)) : null,
    size: batch.size === null ? null : Number(batch.size),
    createdAt: iso(batch.createdAt),
    finishedAt: isoOrNull(batch.finishedAt),
  };
}

/** The ZIP's name when downloaded. */
export const batchZipName = (batchId: string) => `export-batch-${batchId}.zip`;
