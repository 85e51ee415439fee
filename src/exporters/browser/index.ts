// The browser stage of an export (CONTRACT §9): after the static checks, the finished artifact
// runs in headless Chromium inside the network's emulated container (./gather.ts), each check
// judges what was gathered (./checks.ts), and the result becomes `report.runtime`.
//
//   validateInBrowser({ network, validation, browser, artifact: { output, bytes, entryPath } })
//     → { report: RuntimeReport, screenshots: [{ orientation, png }], failure: string | null }
// `failure` is the export's error when validation is "enforce" and an error-severity check
// failed, or when EXPORT_BROWSER=required and there is no browser; the pipeline throws it.
import type { BridgeCall } from '../containers/index.js';
import type { ValidationMode } from '../options.js';
import type { Network } from '../rules.js';
import { type CheckResult, runChecks } from './checks.js';
import { type ArtifactToLoad, gather, type Orientation, type PhaseTimes, timed } from './gather.js';
import { BrowserLaunchError, type BrowserManager } from './manager.js';

export interface RuntimeOrientation {
  name: Orientation['name'];
  width: number;
  height: number;
  /** Signed when the export is read (GET /exports); null in the pipeline's own report. */
  screenshotUrl: string | null;
  firstFrameMs: number | null;
}

/** `report.runtime`, exactly as CONTRACT §9 names it. */
export interface RuntimeReport {
  status: 'passed' | 'failed' | 'skipped';
  reason?: string;
  /** e.g. "Chromium 156.0.8078.79"; null when skipped. */
  browser: string | null;
  orientations: RuntimeOrientation[];
  checks: CheckResult[];
  /** What the page requested besides the artifact's own files (all blocked). */
  requests: string[];
  consoleErrors: string[];
  bridgeCalls: BridgeCall[];
}

export interface Screenshot {
  orientation: Orientation['name'];
  png: Buffer;
}

export interface BrowserValidation {
  report: RuntimeReport;
  screenshots: Screenshot[];
  failure: string | null;
  /** Wall time of each step, ms: the context (with any wait for a free slot), gather's steps, closing, the checks. */
  phases: PhaseTimes;
}

export interface BrowserValidationInput {
  network: Network;
  validation?: ValidationMode;
  /** The worker's browser; absent (e.g. a unit test of the pipeline) skips the stage. */
  browser?: BrowserManager;
  artifact: ArtifactToLoad;
}

const skipped = (reason: string): RuntimeReport => ({
  status: 'skipped',
  reason,
  browser: null,
  orientations: [],
  checks: [],
  requests: [],
  consoleErrors: [],
  bridgeCalls: [],
});

export async function validateInBrowser(input: BrowserValidationInput): Promise<BrowserValidation> {
  if (!input.browser) return { report: skipped('browser validation was not requested'), screenshots: [], failure: null, phases: {} };
  const started = performance.now();
  let gatherEnded = started;
  let result;
  try {
    result = await input.browser.withContext(async (context, info) => {
      const contextReady = performance.now();
      const value = { gathered: await gather(context, input.network, input.artifact), info };
      value.gathered.phases.context = contextReady - started;
      gatherEnded = performance.now();
      return value;
    });
  } catch (error) {
    // A browser that is there but will not start: retry the export if it is required, else skip.
    if (!(error instanceof BrowserLaunchError) || input.browser.mode === 'required') throw error;
    result = { ok: false as const, reason: error.message, mode: input.browser.mode };
  }
  if (!result.ok) {
    const failure = result.mode === 'required' ? `runtime validation needs a browser (EXPORT_BROWSER=required), but ${result.reason}` : null;
    return { report: skipped(result.reason), screenshots: [], failure, phases: {} };
  }

  const { gathered, info } = result.value;
  const phases = gathered.phases;
  phases.closeContext = performance.now() - gatherEnded;
  const checks = await timed(phases, 'checks', async () => runChecks(gathered));
  const failed = checks.filter((check) => check.severity === 'error' && !check.passed);
  const report: RuntimeReport = {
    status: failed.length ? 'failed' : 'passed',
    browser: info.name,
    orientations: gathered.orientations.map((o) => ({ name: o.name, width: o.width, height: o.height, screenshotUrl: null, firstFrameMs: o.firstFrameMs })),
    checks,
    requests: gathered.requests,
    consoleErrors: [...new Set(gathered.orientations.flatMap((o) => o.consoleErrors))],
    bridgeCalls: gathered.bridgeCalls.map(({ name, args }) => ({ name, args })),
  };
  const screenshots = gathered.orientations.flatMap((o) => (o.screenshot ? [{ orientation: o.name, png: o.screenshot }] : []));
  const enforced = (input.validation ?? 'enforce') === 'enforce';
  const failure = enforced && failed.length ? failed.map((check) => `runtime check ${check.name} failed: ${check.message}`).join('; ') : null;
  return { report, screenshots, failure, phases };
}
