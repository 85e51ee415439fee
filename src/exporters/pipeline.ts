// One export, stage by stage. Each stage lives in its own file or folder; this file only orders
// them and times them:
//   load      ./load.ts        can the files fit at all? then read them from the object store
//   optimize  ./optimize/      lossless steps per file kind (one file per kind)
//   package   ./entry-api.ts   which API the build is written for (window.playable, mraid, Luna),
//             ./shims/         hence the adapters the runtime gets;
//             ./package/       rewrite the entry HTML, inline or lay out the files, HTML or ZIP;
//             with optimize "fit", ./optimize/fit.ts packages as often as its lossy steps,
//             largest asset first, need to get under the limit (its time includes theirs)
//   size      ./package/size.ts  the network's limit, on the final bytes
//   checks    ./validate.ts    static checks of the finished artifact against the network's rules
//   browser   ./browser/       the artifact run in headless Chromium inside the network's emulated
//             container (./containers/): screenshots, bridge calls, the runtime checks
// Storing the artifact is the caller's (src/jobs/export-worker.ts).
import { createHash } from 'node:crypto';
import { validateInBrowser } from './browser/index.js';
import { detectEntryApi } from './entry-api.js';
import { loadVariant } from './load.js';
import { DEFAULT_OPTIMIZE } from './options.js';
import { fitToLimit } from './optimize/fit.js';
import { canShrink, type OptimizeDeps, optimizeVariant } from './optimize/index.js';
import { packageArtifact } from './package/index.js';
import { checkSize } from './package/size.js';
import { rulesOf } from './rules.js';
import { shimsFor } from './shims/index.js';
import { type Artifact, type ExportInput, ExportFailure, type StageTimings } from './types.js';
import { validateArtifact } from './validate.js';

export { ExportFailure } from './types.js';
export type { Artifact, AssetReport, ExportInput, ExportReport, SourceFile, StageTimings } from './types.js';
export { OptimizationCache } from './optimize/cache.js';
export { warmUpOptimizers } from './optimize/index.js';

/** What the pipeline uses besides its input: see OptimizeDeps. */
export type PipelineDeps = OptimizeDeps;

/** Runs `run` as the stage `name`, adding its wall time to `timings`. */
async function timed<T>(timings: StageTimings, name: keyof StageTimings, run: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    timings[name] = (timings[name] ?? 0) + (performance.now() - started);
  }
}

/** Builds, optimizes, size-checks and validates the artifact for one network. Throws ExportFailure. */
export async function buildArtifact(input: ExportInput, deps: PipelineDeps = {}): Promise<Artifact> {
  const rules = rulesOf(input.network);
  const mode = input.optimize ?? DEFAULT_OPTIMIZE;
  const timings: StageTimings = {};
  const entrySize = input.entry.size;

  const loaded = await timed(timings, 'load', async () => loadVariant(input, rules, mode, await canShrink(mode, deps)));
  const optimized = await timed(timings, 'optimize', () => optimizeVariant(loaded, mode, deps));
  const usage = await timed(timings, 'package', () => detectEntryApi(optimized.variant));
  const shims = shimsFor(input.network, usage);
  const repackage = () => timed(timings, 'package', () => packageArtifact(optimized.variant, input, rules, shims));
  const packaged = mode === 'fit' ? await timed(timings, 'fit', () => fitToLimit(optimized, rules, repackage, deps)) : await repackage();
  checkSize(packaged.bytes.length, rules, input.network, packaged.assets);

  const validation = await timed(timings, 'checks', () => validateArtifact(input.network, packaged.bytes));
  if (validation.problems.length) {
    throw new ExportFailure(`The ${input.network} artifact does not pass the network's rules: ${validation.problems.join('; ')}`);
  }

  const runtime = await timed(timings, 'browser', () =>
    validateInBrowser({ ...input, artifact: { output: rules.output, bytes: packaged.bytes, entryPath: packaged.entryPath } }),
  );
  const artifact: Artifact = {
    bytes: packaged.bytes,
    fileName: packaged.fileName,
    contentType: packaged.contentType,
    size: packaged.bytes.length,
    checksum: createHash('sha256').update(packaged.bytes).digest('hex'),
    report: {
      network: input.network,
      size: packaged.bytes.length,
      sizeLimitBytes: rules.sizeLimitBytes,
      entry: { fileName: input.entry.fileName, size: entrySize, api: usage.api },
      runtimeBytes: packaged.runtimeBytes,
      assets: packaged.assets,
      checks: validation.checks,
      optimization: optimized.report,
      runtime: runtime.report,
    },
    screenshots: runtime.screenshots,
    timings,
  };
  if (runtime.failure) throw new ExportFailure(runtime.failure, artifact);
  return artifact;
}
