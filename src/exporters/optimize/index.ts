// Stage 2, optimize: every file through the lossless step of its kind (one file per kind beside
// this one: html, js, css, json, svg, png, jpeg, audio), keeping an output only when it is
// smaller; `fit` then continues in ./fit.ts once the package stage says the artifact is too big.
// Files are done one at a time (bounded memory) and every outcome is cached by content hash +
// step (./cache.ts). File names and formats never change.
import sharp from 'sharp';
import type { OptimizeMode } from '../options.js';
import type { LoadedFile, LoadedVariant } from '../types.js';
import { audio, findEncoder } from './audio.js';
import type { OptimizationCache } from './cache.js';
import { css } from './css.js';
import { html, WHITESPACE_VISIBLE } from './html.js';
import { jpeg } from './jpeg.js';
import { js } from './js.js';
import { json } from './json.js';
import { png } from './png.js';
import { svg } from './svg.js';
import type { FileKind, OptimizationReport, OptimizationStep, StepOutcome, VariantFacts } from './types.js';

export type { OptimizationReport } from './types.js';

const FILE_KINDS: FileKind[] = [html, js, css, json, svg, png, jpeg, audio];

export const kindOf = (file: { fileName: string; contentType: string }) => FILE_KINDS.find((kind) => kind.matches(file));

export interface OptimizeDeps {
  /** Outputs shared across exports (one per process); without it every step runs. */
  cache?: OptimizationCache;
  /** The audio encoder for `fit` (default `ffmpeg`, found on PATH). */
  ffmpegPath?: string;
}

/** The variant with its files optimized, the report so far, and what the steps were told. */
export interface Optimized {
  variant: LoadedVariant;
  report: OptimizationReport;
  facts: VariantFacts;
}

/**
 * Starts what the first export would otherwise wait for: esbuild's service process and libvips.
 * The worker calls it once before taking jobs.
 */
export async function warmUpOptimizers(): Promise<void> {
  await js.lossless!(Buffer.from('var warm = 1;'), { whitespaceMatters: false, ffmpeg: null });
  await png.lossless!(
    await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } })
      .png()
      .toBuffer(),
    { whitespaceMatters: false, ffmpeg: null },
  );
}

/** Whether `mode` has a step that can make this file smaller (the load stage's pre-check asks). */
export async function canShrink(mode: OptimizeMode, deps: OptimizeDeps): Promise<(file: { fileName: string; contentType: string }) => boolean> {
  const ffmpeg = mode === 'fit' ? await findEncoder(deps.ffmpegPath ?? 'ffmpeg') : null;
  return (file) => {
    const kind = kindOf(file);
    if (!kind || mode === 'none') return false;
    if (kind.lossless) return true;
    return mode === 'fit' && kind.lossy !== undefined && (kind !== audio || ffmpeg !== null);
  };
}

/** Runs one step of `kind` on `bytes`, or answers it from the cache. */
export function runStep(deps: OptimizeDeps, kind: FileKind, step: string, bytes: Buffer, run: () => Promise<StepOutcome>): Promise<StepOutcome> {
  return deps.cache ? deps.cache.outcome(`${kind.name}:v${kind.version}:${step}`, bytes, run) : run();
}

/** The step to report for `outcome` on `file`, and the file's new bytes when they are smaller. */
export function applyOutcome(file: LoadedFile, outcome: StepOutcome, before: Buffer): { step?: OptimizationStep; bytes?: Buffer } {
  const step = (action: string, bytesAfter: number) => ({ fileName: file.fileName, action, bytesBefore: before.length, bytesAfter });
  if ('skipped' in outcome) return {};
  if ('kept' in outcome) return { step: step(outcome.kept, before.length) };
  if (outcome.bytes.length >= before.length) return { step: step(`kept as is: ${outcome.action} saved nothing`, before.length) };
  return { step: step(outcome.action, outcome.bytes.length), bytes: outcome.bytes };
}

export const totalBytes = (variant: LoadedVariant) => [variant.entry, ...variant.files.values()].reduce((sum, f) => sum + f.bytes.length, 0);

/** Optimizes the variant's files in place (the originals are not kept: bounded memory). */
export async function optimizeVariant(variant: LoadedVariant, mode: OptimizeMode, deps: OptimizeDeps): Promise<Optimized> {
  const bytesBefore = totalBytes(variant);
  const texts = [variant.entry, ...variant.files.values()].filter((f) => [html, js, css].includes(kindOf(f)!));
  const facts: VariantFacts = {
    whitespaceMatters: texts.some((f) => WHITESPACE_VISIBLE.test(f.bytes.toString('utf8'))),
    ffmpeg: mode === 'fit' ? await findEncoder(deps.ffmpegPath ?? 'ffmpeg') : null,
  };
  const steps: OptimizationStep[] = [];
  const optimizeFile = async (file: LoadedFile): Promise<LoadedFile> => {
    const kind = kindOf(file);
    if (mode === 'none' || !kind?.lossless) return file;
    const settings = kind.losslessSettings?.(facts) ?? '';
    const outcome = await runStep(deps, kind, `lossless${settings && `:${settings}`}`, file.bytes, () => kind.lossless!(file.bytes, facts));
    const { step, bytes } = applyOutcome(file, outcome, file.bytes);
    if (step) steps.push(step);
    return bytes ? { ...file, bytes } : file;
  };

  variant.entry = await optimizeFile(variant.entry);
  for (const [name, file] of variant.files) variant.files.set(name, await optimizeFile(file));
  return { variant, facts, report: { mode, bytesBefore, bytesAfter: totalBytes(variant), steps } };
}
