// The per-export settings a client chooses (CONTRACT §9), stored on the export row and handed
// to the pipeline: how hard to optimize the files, and whether a failed browser check fails
// the export or is only reported.

/** none: files as uploaded; lossless: minify and re-pack without visible change; fit: lossy steps until the network's limit is met. */
export const OPTIMIZE_MODES = ['none', 'lossless', 'fit'] as const;
export type OptimizeMode = (typeof OPTIMIZE_MODES)[number];
export const DEFAULT_OPTIMIZE: OptimizeMode = 'lossless';

/** enforce: a failed error-severity check fails the export; report: the export succeeds and the report tells. */
export const VALIDATION_MODES = ['enforce', 'report'] as const;
export type ValidationMode = (typeof VALIDATION_MODES)[number];
export const DEFAULT_VALIDATION: ValidationMode = 'enforce';
