// The gatherer: loads a finished artifact in a fresh browser context that emulates the network's
// container, once per orientation, and collects everything the checks (./checks.ts) judge —
// screenshots, requests, page and console errors, bridge calls, sound, first paint. Nothing here
// decides pass or fail.
//
// The artifact's files are served from https://playable.invalid/ (a ZIP as its own layout), the
// network's scripts (mraid.js, Google's exitapi.js) are answered with the container stub, and
// every other request is blocked and recorded.
import { lookup } from 'mime-types';
import type { BrowserContext, ConsoleMessage, Page, Route } from 'playwright-core';
import { type BridgeCall, CONTAINERS, containerScript, containerScripts, matchesCall } from '../containers/index.js';
import { unzipFiles } from '../package/zip.js';
import type { Network } from '../rules.js';
import { BRIDGE_BINDING, HARNESS_HOST, INSTRUMENT_SCRIPT, type PageNotes } from './instrument.js';

export const ORIGIN = 'https://playable.invalid';

export const ORIENTATIONS = [
  { name: 'portrait', width: 360, height: 640 },
  { name: 'landscape', width: 640, height: 360 },
] as const;
export type Orientation = (typeof ORIENTATIONS)[number];

/** How long the container and the game get to be ready and draw, per orientation. */
export const READY_TIMEOUT_MS = 5_000;
/** How long a tap gets to reach the bridge. */
const TAP_TIMEOUT_MS = 500;
/** How long one orientation may take in all: a page whose main thread never returns (an endless loop) is given up. */
const ORIENTATION_TIMEOUT_MS = READY_TIMEOUT_MS + 5_000;

export interface GatheredOrientation {
  name: Orientation['name'];
  width: number;
  height: number;
  /** PNG of the viewport before the tap; null if the page died first. */
  screenshot: Buffer | null;
  /** First contentful paint, ms after navigation; null if nothing was drawn within the timeout. */
  firstFrameMs: number | null;
  /** When the container let the ad start; null if it never did within the timeout. */
  containerReadyMs: number | null;
  /** Uncaught exceptions and unhandled rejections. */
  pageErrors: string[];
  consoleErrors: string[];
  /** Sounds started before the first input. */
  soundsBeforeInput: string[];
  /** Why gathering stopped early (the page navigated away, crashed or hung), or null. */
  stopped: string | null;
}

export interface GatheredCall extends BridgeCall {
  orientation: Orientation['name'];
  /** Whether the page had had an input (the harness's tap) when the call was made. */
  afterInput: boolean;
}

export interface Gathered {
  network: Network;
  orientations: GatheredOrientation[];
  /** What was requested but is not one of the artifact's files (blocked), in order. */
  requests: string[];
  bridgeCalls: GatheredCall[];
  /** Wall time of each step, ms (summed over orientations), for the benchmark's breakdown. */
  phases: PhaseTimes;
}

export type PhaseTimes = Record<string, number>;

/** `await timed(phases, 'goto', () => page.goto(…))` adds the step's wall time to phases.goto. */
export async function timed<T>(phases: PhaseTimes, name: string, step: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await step();
  } finally {
    phases[name] = (phases[name] ?? 0) + performance.now() - started;
  }
}

/** A finished artifact: its bytes and the path of its entry HTML (one HTML file: its file name). */
export interface ArtifactToLoad {
  output: 'html' | 'zip';
  bytes: Uint8Array;
  entryPath: string;
}

export async function gather(context: BrowserContext, network: Network, artifact: ArtifactToLoad): Promise<Gathered> {
  const files = artifactFiles(artifact);
  const entryDir = artifact.entryPath.slice(0, artifact.entryPath.lastIndexOf('/') + 1);
  const stub = containerScript(network, HARNESS_HOST);
  const stubUrls = new Set(containerScripts(network).map((script) => new URL(script, `${ORIGIN}/${entryDir}`).href));
  const requests: string[] = [];
  const calls: GatheredCall[] = [];
  const phases: PhaseTimes = {};
  const setupStarted = performance.now();
  // One page loads the artifact once per orientation (a second page would cost more than a navigation).
  let current: Orientation['name'] = ORIENTATIONS[0].name;

  const block = (url: string) => {
    if (!requests.includes(url)) requests.push(url);
  };
  await context.route('**/*', (route: Route) => {
    const url = route.request().url();
    if (stubUrls.has(url)) return route.fulfill({ body: stub, contentType: 'text/javascript' });
    const file = url.startsWith(`${ORIGIN}/`) ? files.get(pathOf(url)) : undefined;
    if (file) return route.fulfill({ body: Buffer.from(file), contentType: lookup(pathOf(url)) || 'application/octet-stream' });
    block(url);
    return url.startsWith(`${ORIGIN}/`) ? route.fulfill({ status: 404, body: '' }) : route.abort('blockedbyclient');
  });
  await context.routeWebSocket(/.*/, (socket) => {
    block(socket.url());
    return socket.close();
  });
  await context.exposeBinding(BRIDGE_BINDING, (_source, name: string, args: unknown[], afterInput: boolean) => {
    calls.push({ name: String(name), args: Array.isArray(args) ? args : [], orientation: current, afterInput: Boolean(afterInput) });
  });
  await context.addInitScript(INSTRUMENT_SCRIPT);
  await context.addInitScript(stub);
  phases.setup = performance.now() - setupStarted;

  const orientations: GatheredOrientation[] = [];
  let page = await timed(phases, 'newPage', () => context.newPage());
  try {
    for (const orientation of ORIENTATIONS) {
      current = orientation.name;
      if (page.isClosed()) page = await context.newPage(); // it crashed in the previous orientation
      const ctaReached = () => calls.some((call) => call.orientation === orientation.name && call.afterInput && matchesCall(call, CONTAINERS[network].cta));
      orientations.push(await load(page, orientation, `${ORIGIN}/${encodePath(artifact.entryPath)}`, ctaReached, phases));
    }
  } finally {
    await timed(phases, 'closePage', () => page.close().catch(() => {}));
  }
  return { network, orientations, requests, bridgeCalls: calls, phases };
}

/** One orientation: load, wait for the container and a first paint, screenshot, tap the centre. */
async function load(page: Page, orientation: Orientation, entryUrl: string, ctaReached: () => boolean, phases: PhaseTimes): Promise<GatheredOrientation> {
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  const onPageError = (error: Error) => pageErrors.push(`${error.name}: ${error.message}`);
  const onCrash = () => pageErrors.push('the page crashed');
  const onConsole = (message: ConsoleMessage) => {
    // The browser's own "Failed to load resource" lines are requests, reported as such.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) consoleErrors.push(message.text());
  };
  page.on('pageerror', onPageError).on('crash', onCrash).on('console', onConsole);
  await timed(phases, 'viewport', () => page.setViewportSize({ width: orientation.width, height: orientation.height }));

  const deadline = Date.now() + READY_TIMEOUT_MS;
  // Filled in step by step; what was seen before the page stopped still counts.
  const seen: { screenshot: Buffer | null; notes: PageNotes | null } = { screenshot: null, notes: null };
  let stopped: string | null = null;
  // In-page code is passed as strings: a transpiler's helpers would not exist in the page.
  const steps = (async () => {
    await timed(phases, 'goto', () => page.goto(entryUrl, { waitUntil: 'commit', timeout: READY_TIMEOUT_MS }));
    const readyStarted = performance.now();
    await page
      .waitForFunction('window.__pcsHarness && window.__pcsHarness.readyAt !== null && window.__pcsHarness.firstPaintAt !== null', undefined, {
        timeout: Math.max(deadline - Date.now(), 1),
        polling: 'raf',
      })
      .catch(() => {}); // not ready or nothing drawn: the checks say so
    phases.ready = (phases.ready ?? 0) + performance.now() - readyStarted;
    // Two frames, so that what the game did on "ready" is on screen.
    seen.notes = (await timed(phases, 'frames', () =>
      page.evaluate(
        'new Promise(function (resolve) { requestAnimationFrame(function () { requestAnimationFrame(function () { resolve(window.__pcsHarness); }); }); })',
      ),
    )) as PageNotes;
    seen.screenshot = await timed(phases, 'screenshot', () => page.screenshot({ type: 'png' }));
    await timed(phases, 'tap', () => page.touchscreen.tap(orientation.width / 2, orientation.height / 2));
    const tapDeadline = Date.now() + TAP_TIMEOUT_MS;
    await timed(phases, 'cta', async () => {
      while (!ctaReached() && Date.now() < tapDeadline) await page.waitForTimeout(25);
    });
    seen.notes = (await timed(phases, 'notes', () => page.evaluate('window.__pcsHarness'))) as PageNotes;
  })();
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the page did not respond within ${ORIENTATION_TIMEOUT_MS / 1000} s`)), ORIENTATION_TIMEOUT_MS);
  });
  try {
    await Promise.race([steps, hung]);
  } catch (error) {
    // The page navigated away, crashed or hung: what was gathered so far stands. A hung page is
    // closed (the caller opens a new one), which also ends the steps still waiting on it.
    stopped = (error as Error).message.split('\n')[0]!;
    if (stopped.startsWith('the page did not respond')) await page.close().catch(() => {});
  } finally {
    clearTimeout(timer);
    steps.catch(() => {});
    page.off('pageerror', onPageError).off('crash', onCrash).off('console', onConsole);
  }
  return {
    name: orientation.name,
    width: orientation.width,
    height: orientation.height,
    screenshot: seen.screenshot,
    firstFrameMs: seen.notes?.firstPaintAt ?? null,
    containerReadyMs: seen.notes?.readyAt ?? null,
    pageErrors,
    consoleErrors,
    soundsBeforeInput: seen.notes?.sounds ?? [],
    stopped,
  };
}

/** The artifact's files by path (one HTML file: under its entry path). */
function artifactFiles(artifact: ArtifactToLoad): Map<string, Uint8Array> {
  if (artifact.output === 'html') return new Map([[artifact.entryPath, artifact.bytes]]);
  return unzipFiles(artifact.bytes);
}

function pathOf(url: string): string {
  const { pathname } = new URL(url);
  try {
    return decodeURIComponent(pathname.slice(1));
  } catch {
    return pathname.slice(1);
  }
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');
