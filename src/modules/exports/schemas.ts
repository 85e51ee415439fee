import { z } from 'zod';
import { CHECK_NAMES, ENTRY_APIS, OPTIMIZE_MODES, VALIDATION_MODES } from '../../exporters/options.js';
import { NETWORKS, networkRulesMarkdown } from '../../exporters/rules.js';
import { listQuery } from '../../lib/pagination.js';
import { organizationFilter, timestamp } from '../../lib/schemas.js';

export const EXPORT_STATUSES = ['queued', 'processing', 'succeeded', 'failed'] as const;

const network = z.enum(NETWORKS, {
  error: () => `network must be one of: ${NETWORKS.join(', ')}`,
});

export const optimizeMode = z
  .enum(OPTIMIZE_MODES)
  .describe(
    "none: files as uploaded; lossless (default): minify and re-pack without visible change; fit: also lossy steps, largest asset first, until the network's size limit is met",
  );
export const validationMode = z
  .enum(VALIDATION_MODES)
  .describe('enforce (default): a failed error-severity browser check fails the export; report: the export succeeds and report.runtime tells');

export const createExportBody = z.strictObject({
  variantId: z.string().max(200),
  network,
  optimize: optimizeMode.optional(),
  validation: validationMode.optional(),
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

const optimizationReportSchema = z
  .object({
    mode: optimizeMode,
    bytesBefore: z.number().int().describe("The variant's files (entry included) as uploaded"),
    bytesAfter: z.number().int().describe('The same files as they went into the artifact'),
    steps: z
      .array(
        z.object({
          fileName: z.string(),
          action: z.string().describe('What was done ("minify JS (esbuild)", "palette PNG, 256 colours"…) or why the file was kept as it is'),
          bytesBefore: z.number().int(),
          bytesAfter: z.number().int(),
        }),
      )
      .describe('Per file: its lossless step, then (fit) its last lossy step'),
  })
  .describe('What the optimize stage did (CONTRACT §9)');
/** report.runtime (CONTRACT §9): the artifact run in headless Chromium inside the network's emulated container. */
const runtimeReportSchema = z.object({
  status: z.enum(['passed', 'failed', 'skipped']).describe('failed: an error-severity check failed; skipped: no browser (see reason)'),
  reason: z.string().optional().describe('Why the run was skipped'),
  browser: z.string().nullable().describe('e.g. "Chromium 156.0.8078.79"'),
  orientations: z.array(
    z.object({
      name: z.enum(['portrait', 'landscape']),
      width: z.number().int(),
      height: z.number().int(),
      screenshotUrl: z.string().nullable().describe('Short-lived URL of a PNG of the first screen'),
      firstFrameMs: z.number().int().nullable().describe('First contentful paint, ms after navigation'),
    }),
  ),
  checks: z.array(
    z.object({
      name: z.enum(CHECK_NAMES),
      severity: z.enum(['error', 'warning']),
      passed: z.boolean(),
      message: z.string(),
    }),
  ),
  requests: z.array(z.string()).describe("URLs requested besides the artifact's own files (all blocked)"),
  consoleErrors: z.array(z.string()),
  bridgeCalls: z
    .array(z.object({ name: z.string(), args: z.array(z.unknown()) }))
    .describe('Calls to the network\'s container, e.g. { name: "mraid.open", args: ["https://…"] }'),
});

export const exportSchema = exportCreatedSchema.extend({
  organizationId: z.string(),
  optimize: optimizeMode,
  validation: validationMode,
  size: z.number().int().nullable().describe('Bytes of the artifact (a ZIP: compressed)'),
  fileName: z.string().nullable(),
  checksum: z.string().nullable().describe('SHA-256 of the artifact, hex'),
  downloadUrl: z.string().nullable().describe('Short-lived URL of the artifact, when succeeded'),
  error: z.string().nullable().describe('Why the export failed, in words'),
  report: z
    .object({
      sizeLimitBytes: z.number().int(),
      entry: z.object({
        fileName: z.string(),
        size: z.number().int(),
        api: z
          .enum(ENTRY_APIS)
          .optional()
          .describe(
            "The API the build is written for: window.playable, a container's mraid, Luna Playground, or none (absent on exports built before detection existed)",
          ),
      }),
      runtimeBytes: z.number().int().optional().describe('Bytes of the injected runtime (window.playable and the mraid/Luna adapters this build needs)'),
      assets: z.array(assetReportSchema).describe('Per-asset size report'),
      checks: z.array(z.string()).describe('Validation checks the artifact passed'),
      optimization: optimizationReportSchema.optional().describe('Absent on exports built before optimization existed'),
      runtime: runtimeReportSchema.optional().describe('Absent on exports built before runtime validation existed'),
    })
    .nullable(),
  attempts: z.number().int(),
  startedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
});

export const listExportsQuery = listQuery(['createdAt', 'finishedAt', 'network', 'status']).extend({
  organizationId: organizationFilter,
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
