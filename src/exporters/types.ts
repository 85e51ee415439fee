// The shapes the export stages pass along: what goes in (ExportInput), the variant's files once
// loaded, and what comes out (Artifact with its report). ExportFailure is the one error a stage
// throws for something the user must fix.
import type { Readable } from 'node:stream';
import type { RuntimeReport, Screenshot } from './browser/index.js';
import type { BrowserManager } from './browser/manager.js';
import type { EntryApi } from './entry-api.js';
import type { VariantConfig } from './networks/types.js';
import type { OptimizeMode, ValidationMode } from './options.js';
import type { OptimizationReport } from './optimize/types.js';
import type { Network } from './rules.js';

/** A file of the variant, read from the object store on demand. */
export interface SourceFile {
  fileName: string;
  contentType: string;
  /** Bytes, as recorded when the upload completed: known before anything is read. */
  size: number;
  open(): Promise<Readable>;
}

export interface ExportInput {
  network: Network;
  /** The variant's name; artifact and ZIP folder names are derived from it. */
  name: string;
  entry: SourceFile;
  assets: SourceFile[];
  config: VariantConfig;
  /** How hard to optimize the files (default lossless). */
  optimize?: OptimizeMode;
  /** Whether a failed browser check fails the export (default enforce). */
  validation?: ValidationMode;
  /** The worker's browser for the runtime checks; without it they are skipped. */
  browser?: BrowserManager;
}

/** A variant file in memory. */
export interface LoadedFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/** The entry HTML and the other files, by file name (the entry is not among them). */
export interface LoadedVariant {
  entry: LoadedFile;
  files: Map<string, LoadedFile>;
}

export interface AssetReport {
  fileName: string;
  contentType: string;
  /** The file's own size. */
  size: number;
  /** How it ended up in the artifact. */
  placement: 'data-uri' | 'inline-text' | 'file' | 'asset-map';
  /** What it adds to the artifact: data-URI or text length, or its compressed size in the ZIP. */
  bytesInArtifact: number;
}

export interface ExportReport {
  network: Network;
  size: number;
  sizeLimitBytes: number;
  /** `api`: the convention the entry is written for (CONTRACT §14). */
  entry: { fileName: string; size: number; api: EntryApi };
  /** Bytes of the injected runtime (window.playable and the adapters this build needs). */
  runtimeBytes: number;
  assets: AssetReport[];
  /** The checks the validation step ran, all passed. */
  checks: string[];
  /** What the optimize stage did (CONTRACT §9). */
  optimization: OptimizationReport;
  /** The run in a real browser (CONTRACT §9). */
  runtime: RuntimeReport;
}

/** Milliseconds each stage of one export took (for `npm run bench:export`; not in the API report). */
export type StageTimings = Partial<Record<'load' | 'optimize' | 'package' | 'fit' | 'checks' | 'browser', number>>;

export interface Artifact {
  bytes: Buffer;
  fileName: string;
  contentType: string;
  size: number;
  /** SHA-256, hex. */
  checksum: string;
  report: ExportReport;
  /** PNGs of the artifact in each orientation, from the browser stage. */
  screenshots: Screenshot[];
  timings: StageTimings;
}

/**
 * A failure the user must fix (a missing file, over the limit…): retrying cannot help. A build
 * that failed its runtime checks comes with its artifact, whose report and screenshots are kept.
 */
export class ExportFailure extends Error {
  constructor(
    message: string,
    readonly artifact?: Artifact,
  ) {
    super(message);
    this.name = 'ExportFailure';
  }
}
