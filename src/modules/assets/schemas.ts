import { z } from 'zod';
import { listQuery } from '../../lib/pagination.js';
import { optionalOrganizationId, organizationFilter, timestamp } from '../../lib/schemas.js';

/** What a playable is made of (CONTRACT §5). Exact, lower-case media types, as S3 compares them. */
export const ALLOWED_CONTENT_TYPES = [
  // images
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/svg+xml',
  // audio
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'audio/webm',
  'audio/aac',
  'audio/mp4',
  // video
  'video/mp4',
  'video/webm',
  'video/ogg',
  // fonts
  'font/woff',
  'font/woff2',
  'font/ttf',
  'font/otf',
  // code, data and documents
  'application/json',
  'text/javascript',
  'application/javascript',
  'text/css',
  'text/html',
  'application/wasm',
  // 3D models (glTF / GLB)
  'model/gltf+json',
  'model/gltf-binary',
] as const;

const MAX_FILE_NAME_BYTES = 255;

/** A plain file name: no path, no control characters, at most 255 bytes of UTF-8. */
export const fileName = z
  .string()
  .min(1)
  .max(MAX_FILE_NAME_BYTES)
  .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_FILE_NAME_BYTES, `must be at most ${MAX_FILE_NAME_BYTES} bytes`)
  .refine((s) => !/[/\\]/.test(s), 'must be a plain file name without path separators')
  .refine((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s), 'must not contain control characters')
  .refine((s) => s !== '.' && s !== '..', 'must be a file name')
  .describe('Plain file name (no path), up to 255 bytes; the name variants load the asset by');

const contentType = z
  .enum(ALLOWED_CONTENT_TYPES, { error: `must be one of: ${ALLOWED_CONTENT_TYPES.join(', ')}` })
  .describe('Media type of the file; the upload must send exactly this Content-Type');

export const createUploadBody = (maxUploadBytes: number) =>
  z.strictObject({
    fileName,
    contentType,
    organizationId: optionalOrganizationId,
    gameId: z.string().max(200).optional().describe('A game of the same organization the asset belongs to'),
    size: z
      .number()
      .int()
      .min(0)
      .max(maxUploadBytes, `must be at most ${maxUploadBytes} bytes`)
      .optional()
      .describe('Exact size in bytes; when given, the upload URL accepts only a body of this size'),
  });

export const uploadUrlSchema = z.object({
  assetId: z.string(),
  uploadUrl: z.string().describe('PUT the bytes here, without an Authorization header'),
  method: z.literal('PUT'),
  headers: z.record(z.string(), z.string()).describe('Headers the PUT must carry (Content-Type)'),
  expiresAt: timestamp,
});

export const assetSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  gameId: z.string().nullable(),
  fileName: z.string(),
  contentType: z.string(),
  status: z.enum(['pending', 'ready']).describe('pending: upload URL issued; ready: the object is stored'),
  size: z.number().int().nullable().describe('Bytes, once ready'),
  checksum: z.string().nullable().describe('SHA-256 of the bytes (hex), once ready'),
  uploadExpiresAt: timestamp,
  completedAt: timestamp.nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const assetWithDownloadSchema = assetSchema.extend({
  downloadUrl: z.string().optional().describe('Short-lived GET URL, present when the asset is ready'),
});

export const listAssetsQuery = listQuery(['createdAt', 'fileName', 'size']).extend({
  organizationId: organizationFilter,
  gameId: z.string().max(200).optional(),
  status: z.enum(['pending', 'ready']).optional(),
});
