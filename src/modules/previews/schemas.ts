import { z } from 'zod';
import { listQuery } from '../../lib/pagination.js';
import { timestamp } from '../../lib/schemas.js';

/** CONTRACT §11: a link lives 60 s to 30 days, a week unless asked otherwise. */
export const PREVIEW_TTL = { min: 60, max: 2_592_000, default: 604_800 } as const;

export const createPreviewBody = z
  .strictObject({
    expiresInSeconds: z
      .number()
      .int()
      .min(PREVIEW_TTL.min)
      .max(PREVIEW_TTL.max)
      .optional()
      .describe(`Lifetime of the link in seconds, ${PREVIEW_TTL.min}..${PREVIEW_TTL.max} (default ${PREVIEW_TTL.default}, a week)`),
  })
  // No body at all (which Fastify hands over as null) is the same as {}.
  .nullish();

export const createPreviewDescription = `Makes a shareable link to a page that runs the export's playable in a
phone-sized frame inside the network's emulated container (the same stubs as the export's browser
validation), with a portrait/landscape switch, a live log of the calls the playable makes to the
container (\`[data-preview-log]\`) and a QR code of the page's address (\`[data-preview-qr]\`).
The link opens without credentials until it expires or is revoked (DELETE /previews/{id}); after
that, or if it is altered, it answers 403. The export must have succeeded (400 otherwise).`;

export const previewSchema = z.object({
  id: z.string(),
  exportId: z.string(),
  url: z.string().describe('The public page: opens without credentials until expiresAt or revocation'),
  expiresAt: timestamp,
  revokedAt: timestamp.nullable(),
  createdAt: timestamp,
});

export const listPreviewsQuery = listQuery(['createdAt', 'expiresAt']);
