// The per-export settings a client chooses (CONTRACT §9), stored on the export row and handed
// to the pipeline: how hard to optimize the files, and whether a failed browser check fails
// the export or is only reported; and the names a report uses. Plain constants, so that the
// API's schemas can name them without loading the pipeline (its parsers and image codecs).

/** none: files as uploaded; lossless: minify and re-pack without visible change; fit: lossy steps until the network's limit is met. */
export const OPTIMIZE_MODES = ['none', 'lossless', 'fit'] as const;
export type OptimizeMode = (typeof OPTIMIZE_MODES)[number];
export const DEFAULT_OPTIMIZE: OptimizeMode = 'lossless';

/** enforce: a failed error-severity check fails the export; report: the export succeeds and the report tells. */
export const VALIDATION_MODES = ['enforce', 'report'] as const;
export type ValidationMode = (typeof VALIDATION_MODES)[number];
export const DEFAULT_VALIDATION: ValidationMode = 'enforce';

/** The runtime checks of CONTRACT §9, in report order (./browser/checks.ts). */
export const CHECK_NAMES = ['loads', 'renders', 'no-external-requests', 'no-console-errors', 'cta-reaches-bridge', 'muted-until-interaction'] as const;

/** `report.entry.api` (CONTRACT §14, ./entry-api.ts). */
export const ENTRY_APIS = ['playable', 'mraid', 'luna', 'none'] as const;
