// Assets and the two-step upload flow (CONTRACT §5): an upload URL creates a pending asset; once
// the object is in the store, completing it (or reading it) records size and SHA-256 → ready.
import { createHash, randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../../db/client.js';
import { ConflictError, NotFoundError, PayloadTooLargeError } from '../../errors.js';
import type { Asset, AssetStatus } from '../../generated/prisma/client.js';
import { envelope, type PageRequest, pageArgs } from '../../lib/pagination.js';
import { iso, isoOrNull } from '../../lib/schemas.js';
import type { Caller } from '../../plugins/auth.js';
import type { ObjectStore } from '../../storage/types.js';
import { assertId, assertVisible, resolveOrganizationId, visibleOrganizationIds } from '../organizations/access.js';
import { assertGameIn } from '../organizations/filters.js';
import { assertFits, lockOrganizationStorage, storageUsage } from './quota.js';

export interface AssetSettings {
  uploadUrlTtlSeconds: number;
  downloadUrlTtlSeconds: number;
  maxUploadBytes: number;
  orgQuotaBytes: number;
}

/** Object keys are namespaced by organization and asset id, never by the file name. */
export const assetObjectKey = (organizationId: string, assetId: string) => `orgs/${organizationId}/assets/${assetId}`;

export const toAssetDto = (a: Asset) => ({
  id: a.id,
  organizationId: a.organizationId,
  gameId: a.gameId,
  fileName: a.fileName,
  contentType: a.contentType,
  status: a.status,
  size: a.size === null ? null : Number(a.size),
  checksum: a.checksum,
  uploadExpiresAt: iso(a.uploadExpiresAt),
  completedAt: isoOrNull(a.completedAt),
  createdAt: iso(a.createdAt),
  updatedAt: iso(a.updatedAt),
});

/**
 * The status of the asset whose object lives under `storageKey`, or null once it is deleted.
 * The local store's upload route asks it (src/app.ts), so that the store needs no database.
 */
export async function assetStatusByKey(db: Database, storageKey: string): Promise<AssetStatus | null> {
  return (await db.asset.findUnique({ where: { storageKey }, select: { status: true } }))?.status ?? null;
}

export function createAssetService(db: Database, store: ObjectStore, settings: AssetSettings) {
  async function find(caller: Caller, id: string): Promise<Asset> {
    assertId(id, 'Asset');
    return assertVisible(caller, await db.asset.findUnique({ where: { id } }), 'Asset');
  }

  /**
   * Looks for the uploaded object; when it is there, records its size and checksum and marks
   * the asset ready. Returns the asset as it now is, or null when nothing was uploaded yet.
   * An object over MAX_UPLOAD_BYTES or the organization's quota is deleted (413).
   */
  async function confirmUpload(asset: Asset): Promise<Asset | null> {
    const object = await store.head(asset.storageKey);
    if (!object) return null;
    // An S3 URL without a declared size cannot cap the body; the limit is enforced here instead.
    if (object.size > settings.maxUploadBytes) {
      await store.delete(asset.storageKey);
      throw new PayloadTooLargeError(`The uploaded file (${object.size} bytes) is over the ${settings.maxUploadBytes}-byte limit and was deleted`);
    }
    const hash = createHash('sha256');
    await pipeline(await store.read(asset.storageKey), hash);
    const checksum = hash.digest('hex');
    try {
      await db.$transaction(async (tx) => {
        await lockOrganizationStorage(tx, asset.organizationId);
        assertFits(settings.orgQuotaBytes, await storageUsage(tx, asset.organizationId, new Date(), asset.id), object.size);
        await tx.asset.updateMany({
          where: { id: asset.id, status: 'pending' },
          data: { status: 'ready', size: object.size, checksum, completedAt: new Date() },
        });
      });
    } catch (error) {
      if (error instanceof PayloadTooLargeError) await store.delete(asset.storageKey);
      throw error;
    }
    return db.asset.findUnique({ where: { id: asset.id } });
  }

  async function withDownloadUrl(asset: Asset) {
    if (asset.status !== 'ready') return toAssetDto(asset);
    const downloadUrl = await store.presignDownload(asset.storageKey, {
      expiresInSeconds: settings.downloadUrlTtlSeconds,
      fileName: asset.fileName,
    });
    return { ...toAssetDto(asset), downloadUrl };
  }

  return {
    find,
    confirmUpload,

    async createUpload(caller: Caller, input: { fileName: string; contentType: string; organizationId?: string; gameId?: string; size?: number }) {
      const organizationId = resolveOrganizationId(caller, input.organizationId);
      if (input.gameId !== undefined) await assertGameIn(db, [organizationId], input.gameId);
      const id = randomUUID();
      const storageKey = assetObjectKey(organizationId, id);
      const upload = await store.presignUpload(storageKey, {
        contentType: input.contentType,
        size: input.size,
        expiresInSeconds: settings.uploadUrlTtlSeconds,
      });
      const data = {
        id,
        organizationId,
        gameId: input.gameId ?? null,
        fileName: input.fileName,
        contentType: input.contentType,
        storageKey,
        declaredSize: input.size ?? null,
        uploadExpiresAt: upload.expiresAt,
      };
      const size = input.size;
      if (size === undefined) await db.asset.create({ data });
      else {
        // The declared size is reserved now, so that open URLs never promise more than the quota.
        await db.$transaction(async (tx) => {
          await lockOrganizationStorage(tx, organizationId);
          assertFits(settings.orgQuotaBytes, await storageUsage(tx, organizationId, new Date()), size);
          await tx.asset.create({ data });
        });
      }
      return { assetId: id, uploadUrl: upload.url, method: upload.method, headers: upload.headers, expiresAt: iso(upload.expiresAt) };
    },

    async complete(caller: Caller, id: string) {
      const asset = await find(caller, id);
      if (asset.status === 'ready') return withDownloadUrl(asset);
      const confirmed = await confirmUpload(asset);
      if (!confirmed) {
        const expired = asset.uploadExpiresAt.getTime() <= Date.now();
        throw new ConflictError(
          expired
            ? 'Nothing was uploaded for this asset and its upload URL has expired; request a new upload URL'
            : 'Nothing has been uploaded for this asset yet; PUT the file to its upload URL first',
        );
      }
      return withDownloadUrl(confirmed);
    },

    async get(caller: Caller, id: string) {
      let asset = await find(caller, id);
      if (asset.status === 'pending') {
        try {
          asset = (await confirmUpload(asset)) ?? asset;
        } catch (error) {
          // An oversized upload was just removed; the asset simply stays pending.
          if (!(error instanceof PayloadTooLargeError)) throw error;
        }
      }
      return withDownloadUrl(asset);
    },

    async list(caller: Caller, query: PageRequest<'createdAt' | 'fileName' | 'size'> & { organizationId?: string; gameId?: string; status?: AssetStatus }) {
      const organizationIds = visibleOrganizationIds(caller, query.organizationId);
      if (query.gameId !== undefined) await assertGameIn(db, organizationIds, query.gameId);
      const where = {
        organizationId: { in: organizationIds },
        ...(query.gameId !== undefined ? { gameId: query.gameId } : {}),
        ...(query.status !== undefined ? { status: query.status } : {}),
      };
      const [rows, total] = await Promise.all([db.asset.findMany({ where, ...pageArgs(query) }), db.asset.count({ where })]);
      return envelope(rows.map(toAssetDto), total, query);
    },

    async remove(caller: Caller, id: string) {
      const asset = await find(caller, id);
      // The object is deleted inside the row's transaction: if the store fails, the row stays
      // and the caller's 503 means nothing changed.
      try {
        await db.$transaction(async (tx) => {
          await tx.asset.delete({ where: { id: asset.id } });
          await store.delete(asset.storageKey);
        });
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'P2025') throw new NotFoundError('Asset');
        if (code === 'P2003') throw new ConflictError('The asset is used by a variant; change or delete the variant first');
        throw error;
      }
    },
  };
}
