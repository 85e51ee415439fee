import { z } from 'zod';
import { NETWORKS, networkRulesMarkdown } from '../../exporters/rules.js';
import { listQuery } from '../../lib/pagination.js';
import { timestamp } from '../../lib/schemas.js';

export const EXPORT_STATUSES = ['queued', 'processing', 'succeeded', 'failed'] as const;

const network = z.enum(NETWORKS, {
  error: () => `network must be one of: ${NETWORKS.join(', ')}`,
});

export const createExportBody = z.strictObject({
  variantId: z.string().max(200),
  network,
});

export const createExportDescription = `Queues the build of a variant for one ad network; poll GET /exports/{id} for the result.
Send an \`Idempotency-Key\` header (1..255 characters) to make a retried request return the same export.

Each network's packaging rules (also at GET /exports/networks):

${networkRulesMarkdown()}`;

export const idempotencyHeaders = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().describe('A retried request with the same key returns the same export'),
});

export const exportCreatedSchema = z.object({
  id: z.string(),
  variantId: z.string(),
  network,
  status: z.enum(EXPORT_STATUSES),
  createdAt: timestamp,
});

const assetReportSchema = z.object({
  fileName: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  placement: z.enum(['data-uri', 'inline-text', 'file', 'asset-map']),
  bytesInArtifact: z.number().int(),
});

export const exportSchema = exportCreatedSchema.extend({
  organizationId: z.string(),
  size: z.number().int().nullable().describe('Bytes of the artifact (a ZIP: compressed)'),
  fileName: z.string().nullable(),
  checksum: z.string().nullable().describe('SHA-256 of the artifact, hex'),
  downloadUrl: z.string().nullable().describe('Short-lived URL of the artifact, when succeeded'),
  error: z.string().nullable().describe('Why the export failed, in words'),
  report: z
    .object({
      sizeLimitBytes: z.number().int(),
      entry: z.object({ fileName: z.string(), size: z.number().int() }),
      assets: z.array(assetReportSchema).describe('Per-asset size report'),
      checks: z.array(z.string()).describe('Validation checks the artifact passed'),
    })
    .nullable(),
  attempts: z.number().int(),
  startedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
});

export const listExportsQuery = listQuery(['createdAt', 'finishedAt', 'network', 'status']).extend({
  variantId: z.string().max(200).optional(),
  gameId: z.string().max(200).optional(),
  status: z.enum(EXPORT_STATUSES).optional(),
});

export const networkSchema = z.object({
  network,
  title: z.string(),
  output: z.enum(['html', 'zip']),
  sizeLimitBytes: z.number().int(),
  artifactName: z.string(),
  entryPath: z.string(),
  bridge: z.string(),
  mraid: z.enum(['required', 'forbidden', 'none']),
  networkScripts: z.array(z.string()),
  allowedExtensions: z.array(z.string()).optional(),
  forbiddenContentTypes: z.array(z.string()).optional(),
  maxFiles: z.number().int().optional(),
  notes: z.string(),
});
