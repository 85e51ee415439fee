// What the optimize stage's per-kind files (js.ts, png.ts, …) provide, and what the stage reports.
// Each kind has one lossless step and, for `fit`, a ladder of lossy levels, mildest first — one
// small codec step per format with its options, as sharp and squoosh compose them.
import type { OptimizeMode } from '../options.js';

/** One thing done to one file (CONTRACT §9). */
export interface OptimizationStep {
  fileName: string;
  action: string;
  bytesBefore: number;
  bytesAfter: number;
}

/** `report.optimization` (CONTRACT §9): files' bytes before and after, and every step. */
export interface OptimizationReport {
  mode: OptimizeMode;
  bytesBefore: number;
  bytesAfter: number;
  steps: OptimizationStep[];
}

/**
 * What a step made of a file: new bytes and what was done; or why the file was kept as it is
 * (reported); or `skipped` when the step does not apply to this file (not reported).
 */
export type StepOutcome = { bytes: Buffer; action: string } | { kept: string } | { skipped: true };

/** Facts about the whole variant a step may depend on (they are part of its cache key). */
export interface VariantFacts {
  /** Some style or script sets `white-space: pre…`, so whitespace in the HTML may be visible. */
  whitespaceMatters: boolean;
  /** The audio encoder (ffmpeg) found for lossy audio steps, or null. */
  ffmpeg: string | null;
}

export interface LossyLevel {
  /** Stable id of the level's settings (cache key), e.g. `palette-128@2048`. */
  id: string;
  run(bytes: Buffer): Promise<StepOutcome>;
}

export interface FileKind {
  /** Short name, also in cache keys: `png`, `js`, … */
  name: string;
  /** Bump when a step's output changes, so cached outputs of the old code are not reused. */
  version: number;
  matches(file: { fileName: string; contentType: string }): boolean;
  lossless?(bytes: Buffer, facts: VariantFacts): Promise<StepOutcome>;
  /** The settings a lossless step depends on besides the bytes (part of its cache key). */
  losslessSettings?(facts: VariantFacts): string;
  /** Lossy levels for `fit`, mildest first; each starts again from the lossless bytes. */
  lossy?(facts: VariantFacts, fileName: string): LossyLevel[];
}
