// Preview links of succeeded exports (CONTRACT §11): created, listed and revoked through /api
// by callers of the export's organization; opened through the public page by anyone holding an
// unexpired, unrevoked, untampered link (`open`).
import type { Database } from '../../db/client.js';
import { ForbiddenError, ValidationError } from '../../errors.js';
import type { Export, Preview } from '../../generated/prisma/client.js';
import { envelope, type PageRequest, pageArgs } from '../../lib/pagination.js';
import { iso, isoOrNull } from '../../lib/schemas.js';
import type { Caller } from '../../plugins/auth.js';
import { assertId, assertVisible } from '../organizations/access.js';
import type { PreviewLinks } from './link.js';
import { PREVIEW_TTL } from './schemas.js';

export interface PreviewServiceDeps {
  db: Database;
  links: PreviewLinks;
  now?: () => number;
}

/** What the public page needs: the export with its variant's name. */
export type OpenedPreview = Preview & { export: Export & { variant: { name: string } } };

export function createPreviewService({ db, links, now = Date.now }: PreviewServiceDeps) {
  const toPreviewDto = (p: Preview) => ({
    id: p.id,
    exportId: p.exportId,
    url: links.url(p.id, p.expiresAt),
    expiresAt: iso(p.expiresAt),
    revokedAt: isoOrNull(p.revokedAt),
    createdAt: iso(p.createdAt),
  });

  async function findExport(caller: Caller, exportId: string): Promise<Export> {
    assertId(exportId, 'Export');
    return assertVisible(caller, await db.export.findUnique({ where: { id: exportId } }), 'Export');
  }

  return {
    async create(caller: Caller, exportId: string, input: { expiresInSeconds?: number | undefined } | null | undefined) {
      const exported = await findExport(caller, exportId);
      if (exported.status !== 'succeeded' || !exported.storageKey) {
        throw new ValidationError(`Only a succeeded export can be previewed; this one is ${exported.status}`, [
          { in: 'path', path: 'id', message: `export status is ${exported.status}, not succeeded` },
        ]);
      }
      // Whole seconds (the link carries them), rounded up: a link never lives less than asked.
      const expiresAtSeconds = Math.ceil(now() / 1000) + (input?.expiresInSeconds ?? PREVIEW_TTL.default);
      const preview = await db.preview.create({
        data: { organizationId: exported.organizationId, exportId: exported.id, expiresAt: new Date(expiresAtSeconds * 1000) },
      });
      return toPreviewDto(preview);
    },

    async list(caller: Caller, exportId: string, query: PageRequest<'createdAt' | 'expiresAt'>) {
      const exported = await findExport(caller, exportId);
      const where = { exportId: exported.id };
      const [rows, total] = await Promise.all([db.preview.findMany({ where, ...pageArgs(query) }), db.preview.count({ where })]);
      return envelope(rows.map(toPreviewDto), total, query);
    },

    /** Revokes the link; revoking a revoked one again changes nothing. */
    async revoke(caller: Caller, id: string) {
      assertId(id, 'Preview');
      const preview = assertVisible(caller, await db.preview.findUnique({ where: { id } }), 'Preview');
      await db.preview.updateMany({ where: { id: preview.id, revokedAt: null }, data: { revokedAt: new Date(now()) } });
    },

    /** The preview a public link opens, or 403: tampered, expired, revoked, or its export gone. */
    async open(token: string): Promise<OpenedPreview> {
      const id = links.verify(token);
      const preview = await db.preview.findUnique({ where: { id }, include: { export: { include: { variant: { select: { name: true } } } } } });
      if (preview?.revokedAt) throw new ForbiddenError('This preview link has been revoked');
      if (!preview || preview.export.status !== 'succeeded' || !preview.export.storageKey) {
        throw new ForbiddenError('The export of this preview link is no longer available');
      }
      return preview;
    },
  };
}

export type PreviewService = ReturnType<typeof createPreviewService>;
