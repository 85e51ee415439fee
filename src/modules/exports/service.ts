import type { Database } from '../../db/client.js';
import { ConflictError } from '../../errors.js';
import { DEFAULT_OPTIMIZE, DEFAULT_VALIDATION, type OptimizeMode, type ValidationMode } from '../../exporters/options.js';
import type { ExportReport } from '../../exporters/pipeline.js';
import type { Network } from '../../exporters/rules.js';
import type { Export, ExportStatus } from '../../generated/prisma/client.js';
import type { ExportQueue } from '../../jobs/queue.js';
import { envelope, type PageRequest, pageArgs } from '../../lib/pagination.js';
import { iso, isoOrNull } from '../../lib/schemas.js';
import type { Caller } from '../../plugins/auth.js';
import { downloadSigner, type SignDownload } from '../../storage/index.js';
import type { ObjectStore } from '../../storage/types.js';
import { assertId, assertVisible, visibleOrganizationIds } from '../organizations/access.js';
import { assertGameIn, assertVariantIn } from '../organizations/filters.js';
import type { StoredOrientation } from './artifacts.js';
import { createVariantService } from '../variants/service.js';

export const toExportCreatedDto = (e: Export) => ({
  id: e.id,
  variantId: e.variantId,
  network: e.network as Network,
  status: e.status,
  createdAt: iso(e.createdAt),
});

export interface ExportRequestBody {
  variantId: string;
  network: Network;
  optimize?: OptimizeMode;
  validation?: ValidationMode;
}
type ExportRequest = Required<ExportRequestBody>;

export interface ExportServiceDeps {
  db: Database;
  store: ObjectStore;
  queue: ExportQueue;
  downloadUrlTtlSeconds: number;
}

/** An export as GET /exports/{id} shows it (and webhook events carry it). */
/** The report with its screenshots' storage keys turned into short-lived URLs. */
async function withScreenshotUrls(report: ExportReport | null, signDownload: SignDownload): Promise<ExportReport | null> {
  if (!report?.runtime) return report;
  const orientations = await Promise.all(
    report.runtime.orientations.map(async ({ screenshotKey, ...orientation }: StoredOrientation) => ({
      ...orientation,
      screenshotUrl: screenshotKey ? await signDownload(screenshotKey, `${orientation.name}.png`) : null,
    })),
  );
  return { ...report, runtime: { ...report.runtime, orientations } };
}

export async function toExportDto(e: Export, signDownload: SignDownload) {
  return {
    ...toExportCreatedDto(e),
    organizationId: e.organizationId,
    optimize: e.optimize as OptimizeMode,
    validation: e.validation as ValidationMode,
    size: e.size === null ? null : Number(e.size),
    fileName: e.fileName,
    checksum: e.checksum,
    downloadUrl: e.status === 'succeeded' && e.storageKey ? await signDownload(e.storageKey, e.fileName) : null,
    error: e.error,
    report: await withScreenshotUrls(e.report as ExportReport | null, signDownload),
    attempts: e.attempts,
    startedAt: isoOrNull(e.startedAt),
    finishedAt: isoOrNull(e.finishedAt),
  };
}

export function createExportService({ db, store, queue, downloadUrlTtlSeconds }: ExportServiceDeps) {
  const variants = createVariantService(db, store, queue);
  const signDownload = downloadSigner(store, downloadUrlTtlSeconds);

  /** The export an Idempotency-Key already made, which must be for the same variant, network and settings. */
  async function byIdempotencyKey(organizationId: string, key: string, input: ExportRequest) {
    const existing = await db.export.findUnique({ where: { organizationId_idempotencyKey: { organizationId, idempotencyKey: key } } });
    const same =
      existing?.variantId === input.variantId &&
      existing.network === input.network &&
      existing.optimize === input.optimize &&
      existing.validation === input.validation;
    if (existing && !same) {
      throw new ConflictError('This Idempotency-Key was already used for another export request');
    }
    return existing;
  }

  return {
    async create(caller: Caller, body: ExportRequestBody, idempotencyKey: string | undefined) {
      const input: ExportRequest = { ...body, optimize: body.optimize ?? DEFAULT_OPTIMIZE, validation: body.validation ?? DEFAULT_VALIDATION };
      const variant = await variants.find(caller, input.variantId);
      const organizationId = variant.organizationId;
      if (idempotencyKey) {
        const existing = await byIdempotencyKey(organizationId, idempotencyKey, input);
        if (existing) return toExportCreatedDto(existing);
      }
      let created: Export;
      try {
        created = await db.export.create({
          data: {
            organizationId,
            variantId: variant.id,
            network: input.network,
            optimize: input.optimize,
            validation: input.validation,
            idempotencyKey: idempotencyKey ?? null,
          },
        });
      } catch (error) {
        // Two requests with the same key at once: the second returns what the first created.
        if ((error as { code?: string }).code === 'P2002' && idempotencyKey) {
          const existing = await byIdempotencyKey(organizationId, idempotencyKey, input);
          if (existing) return toExportCreatedDto(existing);
        }
        throw error;
      }
      try {
        await queue.enqueue(created.id);
      } catch (error) {
        await db.export.update({
          where: { id: created.id },
          data: { status: 'failed', error: 'The export could not be queued; please retry', finishedAt: new Date() },
        });
        throw error;
      }
      return toExportCreatedDto(created);
    },

    async get(caller: Caller, id: string) {
      assertId(id, 'Export');
      return toExportDto(assertVisible(caller, await db.export.findUnique({ where: { id } }), 'Export'), signDownload);
    },

    async list(
      caller: Caller,
      query: PageRequest<'createdAt' | 'finishedAt' | 'network' | 'status'> & {
        organizationId?: string;
        variantId?: string;
        gameId?: string;
        status?: ExportStatus;
      },
    ) {
      const organizationIds = visibleOrganizationIds(caller, query.organizationId);
      if (query.variantId !== undefined) await assertVariantIn(db, organizationIds, query.variantId);
      if (query.gameId !== undefined) await assertGameIn(db, organizationIds, query.gameId);
      const where = {
        organizationId: { in: organizationIds },
        ...(query.variantId ? { variantId: query.variantId } : {}),
        ...(query.gameId ? { variant: { gameId: query.gameId } } : {}),
        ...(query.status ? { status: query.status } : {}),
      };
      const [rows, total] = await Promise.all([db.export.findMany({ where, ...pageArgs(query) }), db.export.count({ where })]);
      return envelope(await Promise.all(rows.map((row) => toExportDto(row, signDownload))), total, query);
    },
  };
}
