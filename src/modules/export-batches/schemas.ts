import { z } from 'zod';
import { NETWORKS } from '../../exporters/rules.js';
import { listQuery } from '../../lib/pagination.js';
import { organizationFilter, timestamp } from '../../lib/schemas.js';
import { EXPORT_STATUSES, exportCreatedSchema, optimizeMode, validationMode } from '../exports/schemas.js';

export const MAX_BATCH_VARIANTS = 20;
export const ALL_NETWORKS = '*';
export const BATCH_STATUSES = ['queued', 'processing', 'finished'] as const;

const distinct = (values: string[]) => new Set(values).size === values.length;

export const createBatchBody = z.strictObject({
  variantIds: z
    .array(z.string().max(200))
    .min(1)
    .max(MAX_BATCH_VARIANTS)
    .refine(distinct, 'must not name a variant twice')
    .describe(`1..${MAX_BATCH_VARIANTS} variants of one organization`),
  networks: z
    .array(z.enum([ALL_NETWORKS, ...NETWORKS], { error: () => `each network must be "${ALL_NETWORKS}" or one of: ${NETWORKS.join(', ')}` }))
    .min(1)
    .max(NETWORKS.length)
    .refine(distinct, 'must not name a network twice')
    .refine((networks) => !networks.includes(ALL_NETWORKS) || networks.length === 1, `"${ALL_NETWORKS}" stands alone: it means every network`)
    .describe(`Networks to export each variant to, or ["${ALL_NETWORKS}"] for all of them`),
  optimize: optimizeMode.optional(),
  validation: validationMode.optional(),
});

export const createBatchDescription = `Exports every variant to every network given, as one batch: all the exports are created and
queued at once (at most 200; each is an ordinary export, also in GET /exports). Counts as one
request of the export rate-limit tier. Once every export has finished, GET /export-batches/{id}
has a downloadUrl of one ZIP: each succeeded artifact at \`<variant name>/<network>/<fileName>\`
and \`manifest.json\` listing every export. Send an \`Idempotency-Key\` header to make a retried
request return the same batch.`;

const batchExportCreatedSchema = exportCreatedSchema.omit({ createdAt: true });

export const batchCreatedSchema = z.object({
  id: z.string(),
  status: z.enum(BATCH_STATUSES),
  exports: z.array(batchExportCreatedSchema),
  createdAt: timestamp,
});

export const batchSchema = batchCreatedSchema.extend({
  organizationId: z.string(),
  optimize: optimizeMode,
  validation: validationMode,
  counts: z.object(Object.fromEntries(EXPORT_STATUSES.map((s) => [s, z.number().int()])) as Record<(typeof EXPORT_STATUSES)[number], z.ZodNumber>),
  exports: z
    .array(
      batchExportCreatedSchema.extend({
        size: z.number().int().nullable(),
        error: z.string().nullable(),
        finishedAt: timestamp.nullable(),
      }),
    )
    .describe('In the order requested: each variant, then each network; GET /exports/{id} has the rest'),
  downloadUrl: z.string().nullable().describe('Short-lived URL of the ZIP, once finished'),
  size: z.number().int().nullable().describe('Bytes of the ZIP'),
  finishedAt: timestamp.nullable(),
});

export const listBatchesQuery = listQuery(['createdAt', 'finishedAt']).extend({ organizationId: organizationFilter });
