import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { DEFAULT_OPTIMIZE, DEFAULT_VALIDATION, type OptimizeMode, type ValidationMode } from '../../exporters/options.js';
import { type Network, NETWORKS } from '../../exporters/rules.js';
import type { ExportBatch } from '../../generated/prisma/client.js';
import { envelope, type PageRequest, pageArgs } from '../../lib/pagination.js';
import { isUuid } from '../../lib/uuid.js';
import type { Caller } from '../../plugins/auth.js';
import { downloadSigner } from '../../storage/index.js';
import type { ExportServiceDeps } from '../exports/service.js';
import { assertId, assertVisible, canSee, visibleOrganizationIds } from '../organizations/access.js';
import { batchExportFields, toBatchCreatedDto, toBatchDto } from './dto.js';
import { ALL_NETWORKS } from './schemas.js';

export interface BatchRequestBody {
  variantIds: string[];
  networks: Array<Network | typeof ALL_NETWORKS>;
  optimize?: OptimizeMode;
  validation?: ValidationMode;
}

export interface ExportBatchServiceDeps extends ExportServiceDeps {
  /** Most exports one batch may create. */
  maxExports: number;
}

const withExports = { exports: { select: batchExportFields } } as const;

export function createExportBatchService({ db, store, queue, downloadUrlTtlSeconds, maxExports }: ExportBatchServiceDeps) {
  const signDownload = downloadSigner(store, downloadUrlTtlSeconds);

  /** The variants, which must all be visible to the caller (404 otherwise) and of one organization. */
  async function findVariants(caller: Caller, variantIds: string[]): Promise<string> {
    const found = await db.variant.findMany({ where: { id: { in: variantIds.filter(isUuid) } }, select: { id: true, organizationId: true } });
    const visible = found.filter((v) => canSee(caller, v.organizationId));
    if (visible.length !== variantIds.length) throw new NotFoundError('Variant');
    const organizationIds = new Set(visible.map((v) => v.organizationId));
    if (organizationIds.size > 1) {
      throw new ValidationError('variantIds must all be variants of one organization', [
        { in: 'body', path: 'variantIds', message: 'names variants of several organizations' },
      ]);
    }
    return visible[0]!.organizationId;
  }

  /** The batch an Idempotency-Key already made, which must be for the same request. */
  async function byIdempotencyKey(organizationId: string, key: string, request: Pick<ExportBatch, 'variantIds' | 'networks' | 'optimize' | 'validation'>) {
    const existing = await db.exportBatch.findUnique({ where: { organizationId_idempotencyKey: { organizationId, idempotencyKey: key } }, include: withExports });
    const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));
    if (
      existing &&
      !(
        sameSet(existing.variantIds, request.variantIds) &&
        sameSet(existing.networks, request.networks) &&
        existing.optimize === request.optimize &&
        existing.validation === request.validation
      )
    ) {
      throw new ConflictError('This Idempotency-Key was already used for another export batch request');
    }
    return existing;
  }

  return {
    async create(caller: Caller, body: BatchRequestBody, idempotencyKey: string | undefined) {
      const networks = body.networks[0] === ALL_NETWORKS ? [...NETWORKS] : (body.networks as Network[]);
      const count = body.variantIds.length * networks.length;
      if (count > maxExports) {
        throw new ValidationError(`A batch makes at most ${maxExports} exports; ${body.variantIds.length} variants × ${networks.length} networks make ${count}`, [
          { in: 'body', path: '', message: `variantIds × networks must be at most ${maxExports} exports` },
        ]);
      }
      const organizationId = await findVariants(caller, body.variantIds);
      const request = { variantIds: body.variantIds, networks, optimize: body.optimize ?? DEFAULT_OPTIMIZE, validation: body.validation ?? DEFAULT_VALIDATION };
      if (idempotencyKey) {
        const existing = await byIdempotencyKey(organizationId, idempotencyKey, request);
        if (existing) return toBatchCreatedDto(existing);
      }
      const batchId = randomUUID();
      const exports = request.variantIds.flatMap((variantId) =>
        networks.map((network) => ({ id: randomUUID(), organizationId, batchId, variantId, network, optimize: request.optimize, validation: request.validation })),
      );
      try {
        // The batch, its exports and their jobs: all or nothing.
        const created = await db.$transaction(async (tx) => {
          await tx.exportBatch.create({ data: { id: batchId, organizationId, ...request, idempotencyKey: idempotencyKey ?? null } });
          await tx.export.createMany({ data: exports });
          await queue.enqueueExports(
            tx,
            exports.map((e) => e.id),
          );
          return tx.exportBatch.findUniqueOrThrow({ where: { id: batchId }, include: withExports });
        });
        return toBatchCreatedDto(created);
      } catch (error) {
        // Two requests with the same key at once: the second returns what the first created.
        if ((error as { code?: string }).code === 'P2002' && idempotencyKey) {
          const existing = await byIdempotencyKey(organizationId, idempotencyKey, request);
          if (existing) return toBatchCreatedDto(existing);
        }
        throw error;
      }
    },

    async get(caller: Caller, id: string) {
      assertId(id, 'Export batch');
      const batch = assertVisible(caller, await db.exportBatch.findUnique({ where: { id }, include: withExports }), 'Export batch');
      return toBatchDto(batch, signDownload);
    },

    async list(caller: Caller, query: PageRequest<'createdAt' | 'finishedAt'> & { organizationId?: string }) {
      const where = { organizationId: { in: visibleOrganizationIds(caller, query.organizationId) } };
      const [rows, total] = await Promise.all([db.exportBatch.findMany({ where, include: withExports, ...pageArgs(query) }), db.exportBatch.count({ where })]);
      return envelope(await Promise.all(rows.map((batch) => toBatchDto(batch, signDownload))), total, query);
    },
  };
}
