import type { Database } from '../../db/client.js';
import type { ExportQueue } from '../../jobs/queue.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { Asset, Prisma, Variant } from '../../generated/prisma/client.js';
import { envelope, type PageRequest, pageArgs } from '../../lib/pagination.js';
import { iso } from '../../lib/schemas.js';
import { uniqueOr409 } from '../../lib/unique.js';
import { isUuid } from '../../lib/uuid.js';
import type { Caller } from '../../plugins/auth.js';
import type { ObjectStore } from '../../storage/types.js';
import { deleteCascadingToArtifacts } from '../exports/artifacts.js';
import { createGameService } from '../games/service.js';
import { assertId, assertVisible } from '../organizations/access.js';

type VariantWithAssets = Variant & { assets: Array<{ assetId: string }> };

export const toVariantDto = (v: VariantWithAssets) => ({
  id: v.id,
  gameId: v.gameId,
  organizationId: v.organizationId,
  name: v.name,
  entryAssetId: v.entryAssetId,
  assetIds: v.assets.map((a) => a.assetId),
  config: v.config as Record<string, unknown>,
  createdAt: iso(v.createdAt),
  updatedAt: iso(v.updatedAt),
});

const withAssets = { assets: { select: { assetId: true }, orderBy: { assetId: 'asc' } } } as const;
const duplicateName = (name: string) => `A variant named "${name}" already exists in this game`;

interface VariantInput {
  name?: string;
  entryAssetId?: string;
  assetIds?: string[];
  config?: Record<string, unknown>;
}

export function createVariantService(db: Database, store: ObjectStore, queue: ExportQueue) {
  const games = createGameService(db, store, queue);

  /** A variant the caller can see, or 404. */
  async function find(caller: Caller, id: string): Promise<VariantWithAssets> {
    assertId(id, 'Variant');
    return assertVisible(caller, await db.variant.findUnique({ where: { id }, include: withAssets }), 'Variant');
  }

  /**
   * The entry must be a ready HTML asset and every other asset ready, all of the variant's
   * organization; file names must be unique, since the entry page names its files by them.
   */
  async function checkAssets(organizationId: string, entryAssetId: string, assetIds: string[]): Promise<void> {
    const ids = [...new Set([entryAssetId, ...assetIds])];
    const found = await db.asset.findMany({ where: { id: { in: ids.filter(isUuid) }, organizationId, status: 'ready' } });
    const byId = new Map<string, Asset>(found.map((a) => [a.id, a]));
    const entry = byId.get(entryAssetId);
    if (!entry || !entry.contentType.toLowerCase().startsWith('text/html')) {
      throw new ValidationError('entryAssetId must name a ready text/html asset of the organization', [
        { in: 'body', path: 'entryAssetId', message: 'is not a ready text/html asset of this organization' },
      ]);
    }
    const unknown = assetIds.filter((id) => !byId.has(id));
    if (unknown.length) {
      throw new ValidationError(
        `assetIds must name ready assets of the organization; not usable: ${unknown.join(', ')}`,
        unknown.map((id) => ({ in: 'body', path: 'assetIds', message: `${id} is not a ready asset of this organization` })),
      );
    }
    const fileNames = ids.map((id) => byId.get(id)!.fileName);
    const clashes = [...new Set(fileNames.filter((name, i) => fileNames.indexOf(name) !== i))];
    if (clashes.length) {
      throw new ValidationError(`Several assets of the variant share a file name, so references to it would be ambiguous: ${clashes.join(', ')}`, [
        { in: 'body', path: 'assetIds', message: 'file names must be unique within a variant' },
      ]);
    }
  }

  const assetRows = (assetIds: string[]) => [...new Set(assetIds)].map((assetId) => ({ assetId }));

  return {
    find,

    async create(caller: Caller, gameId: string, input: Required<Pick<VariantInput, 'name' | 'entryAssetId'>> & VariantInput) {
      const game = await games.find(caller, gameId);
      const assetIds = input.assetIds ?? [];
      await checkAssets(game.organizationId, input.entryAssetId, assetIds);
      const variant = await uniqueOr409(
        db.variant.create({
          data: {
            organizationId: game.organizationId,
            gameId: game.id,
            name: input.name,
            entryAssetId: input.entryAssetId,
            config: (input.config ?? {}) as Prisma.InputJsonObject,
            assets: { create: assetRows(assetIds) },
          },
          include: withAssets,
        }),
        duplicateName(input.name),
      );
      return toVariantDto(variant);
    },

    async list(caller: Caller, gameId: string, query: PageRequest<'createdAt' | 'updatedAt' | 'name'>) {
      const game = await games.find(caller, gameId);
      const where = { gameId: game.id };
      const [rows, total] = await Promise.all([db.variant.findMany({ where, include: withAssets, ...pageArgs(query) }), db.variant.count({ where })]);
      return envelope(rows.map(toVariantDto), total, query);
    },

    async get(caller: Caller, id: string) {
      return toVariantDto(await find(caller, id));
    },

    async update(caller: Caller, id: string, input: VariantInput) {
      const variant = await find(caller, id);
      if (input.entryAssetId !== undefined || input.assetIds !== undefined) {
        await checkAssets(variant.organizationId, input.entryAssetId ?? variant.entryAssetId, input.assetIds ?? variant.assets.map((a) => a.assetId));
      }
      const updated = await uniqueOr409(
        db.variant.update({
          where: { id: variant.id },
          data: {
            name: input.name,
            entryAssetId: input.entryAssetId,
            config: input.config as Prisma.InputJsonObject | undefined,
            ...(input.assetIds ? { assets: { deleteMany: {}, create: assetRows(input.assetIds) } } : {}),
          },
          include: withAssets,
        }),
        duplicateName(input.name ?? variant.name),
      );
      return toVariantDto(updated);
    },

    /** Deletes the variant, its exports and their artifacts. */
    async remove(caller: Caller, id: string) {
      const variant = await find(caller, id);
      await deleteCascadingToArtifacts({ db, store, queue }, { variantId: variant.id }, async (tx) => {
        const { count } = await tx.variant.deleteMany({ where: { id: variant.id } });
        if (count === 0) throw new NotFoundError('Variant');
      });
    },
  };
}
