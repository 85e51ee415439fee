// Optimized outputs by content hash + step settings, so that exporting one variant to ten
// networks optimizes each file once. In-process and bounded by bytes (least recently used out
// first); a miss only costs the work again. One per process (src/jobs/export-worker.ts), sized by
// EXPORT_OPTIMIZE_CACHE_BYTES.
import { createHash } from 'node:crypto';
import type { StepOutcome } from './types.js';

/** Bookkeeping per entry besides its bytes (key, action text, Map slot). */
const ENTRY_OVERHEAD = 256;

export class OptimizationCache {
  private readonly entries = new Map<string, StepOutcome>();
  private bytes = 0;
  /** Lookups answered from the cache, and steps that had to run. */
  readonly stats = { hits: 0, misses: 0 };

  constructor(readonly maxBytes: number) {}

  /** The outcome of step `step` on `input`, computed by `run` only when not cached. */
  async outcome(step: string, input: Buffer, run: () => Promise<StepOutcome>): Promise<StepOutcome> {
    const key = `${step}:${createHash('sha256').update(input).digest('hex')}`;
    const cached = this.entries.get(key);
    if (cached) {
      this.stats.hits++;
      this.entries.delete(key); // re-inserted: most recently used last
      this.entries.set(key, cached);
      return cached;
    }
    this.stats.misses++;
    const outcome = await run();
    this.remember(key, outcome);
    return outcome;
  }

  private remember(key: string, outcome: StepOutcome): void {
    const size = sizeOf(outcome);
    if (size > this.maxBytes) return;
    this.entries.set(key, outcome);
    this.bytes += size;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= sizeOf(old);
    }
  }
}

const sizeOf = (outcome: StepOutcome) => ENTRY_OVERHEAD + ('bytes' in outcome ? outcome.bytes.length : 0);
