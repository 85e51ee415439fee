// `fit`, after the lossless steps: while the artifact is over the network's limit, the asset
// that adds the most to it gets its kind's next lossy level (png.ts, jpeg.ts, audio.ts), always
// re-encoded from its lossless bytes. While even the least the files can weigh in the artifact
// (../package/estimate.ts) is over the limit, no artifact is built; after that each step is
// checked by packaging. Stops when the artifact fits or nothing is left to reduce; the pipeline's
// size check then has the last word.
import { minimumBytesInArtifact } from '../package/estimate.js';
import type { Packaged } from '../package/index.js';
import type { NetworkRules } from '../rules.js';
import type { LoadedVariant } from '../types.js';
import { applyOutcome, kindOf, type Optimized, type OptimizeDeps, runStep, totalBytes } from './index.js';
import type { LossyLevel } from './types.js';

export async function fitToLimit(
  optimized: Optimized,
  rules: NetworkRules,
  repackage: (variant: LoadedVariant) => Promise<Packaged>,
  deps: OptimizeDeps,
): Promise<Packaged> {
  const { variant, facts, report } = optimized;
  const limit = rules.sizeLimitBytes;
  const lossless = new Map([...variant.files].map(([name, file]) => [name, file.bytes]));
  const levelsLeft = new Map<string, LossyLevel[]>();
  /** Index in report.steps of each file's lossy step, which a later level replaces. */
  const lossyStep = new Map<string, number>();

  /** Applies the next lossy level that makes `fileName` smaller; false when none is left. */
  const reduce = async (fileName: string): Promise<boolean> => {
    const file = variant.files.get(fileName)!;
    const kind = kindOf(file);
    if (!kind?.lossy) return false;
    if (!levelsLeft.has(fileName)) levelsLeft.set(fileName, kind.lossy(facts, fileName));
    const levels = levelsLeft.get(fileName)!;
    for (let level = levels.shift(); level; level = levels.shift()) {
      const base = lossless.get(fileName)!;
      const outcome = await runStep(deps, kind, `lossy:${level.id}`, base, () => level.run(base));
      if ('skipped' in outcome) continue;
      const { step, bytes } = applyOutcome(file, outcome, base);
      if ('kept' in outcome) {
        report.steps.push(step!); // it cannot be reduced at all (no encoder, unreadable)
        levels.length = 0;
        return false;
      }
      if (!bytes || bytes.length >= file.bytes.length) continue;
      variant.files.set(fileName, { ...file, bytes });
      const at = lossyStep.get(fileName);
      if (at === undefined) lossyStep.set(fileName, report.steps.push(step!) - 1);
      else report.steps[at] = step!;
      return true;
    }
    return false;
  };
  /** Reduces the first file of `largestFirst` that still can be; false when none can. */
  const reduceLargest = async (largestFirst: Array<{ fileName: string; bytes: number }>) => {
    for (const { fileName } of largestFirst.sort((a, b) => b.bytes - a.bytes)) if (await reduce(fileName)) return true;
    return false;
  };

  for (;;) {
    const estimate = [...variant.files.values()].map((f) => ({ fileName: f.fileName, bytes: minimumBytesInArtifact(f, rules) }));
    if (estimate.reduce((sum, f) => sum + f.bytes, 0) > limit && (await reduceLargest(estimate))) continue;
    const packaged = await repackage(variant);
    const fits = packaged.bytes.length <= limit;
    if (fits || !(await reduceLargest(packaged.assets.map((a) => ({ fileName: a.fileName, bytes: a.bytesInArtifact }))))) {
      report.bytesAfter = totalBytes(variant);
      return packaged;
    }
  }
}
