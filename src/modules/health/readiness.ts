// Readiness: which dependencies answer. A required check that fails makes the instance unready
// (503, so a load balancer sends it nothing); an advisory one is only reported — Redis, say,
// whose outage the rate limits survive by failing open, so pulling every instance out of
// service for it would turn a degraded service into an outage.

/** Checks a dependency; resolves when it is reachable. */
export type ReadinessCheck = () => Promise<unknown>;

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'ok' | 'unavailable'>;
  /** Required checks that failed. */
  down: string[];
  failures: Array<{ check: string; error: unknown }>;
}

const CHECK_TIMEOUT_MS = 3_000;

export async function checkReadiness(required: Record<string, ReadinessCheck>, advisory: Record<string, ReadinessCheck> = {}): Promise<ReadinessReport> {
  const all = { ...advisory, ...required };
  const names = Object.keys(all);
  const results = await Promise.allSettled(names.map((name) => withTimeout(all[name]!(), CHECK_TIMEOUT_MS)));
  const checks: ReadinessReport['checks'] = {};
  const failures: ReadinessReport['failures'] = [];
  results.forEach((result, i) => {
    checks[names[i]!] = result.status === 'fulfilled' ? 'ok' : 'unavailable';
    if (result.status === 'rejected') failures.push({ check: names[i]!, error: result.reason });
  });
  const down = Object.keys(required).filter((name) => checks[name] !== 'ok');
  return { ready: down.length === 0, checks, down, failures };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);
}
