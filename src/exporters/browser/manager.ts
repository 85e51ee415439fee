// One headless Chromium per worker process, shared by its exports: launched on first use,
// reused, relaunched when it dies, closed with the worker. Each export gets a fresh context (no
// cookies, storage or cache shared between exports) that looks like a phone's ad web view; at
// most `concurrency` run at once.
//
//   const browser = createBrowserManager({ mode: 'auto', executablePath, searchPath, concurrency: 2 });
//   const result = await browser.withContext((context, info) => gather(context, …));
//   if (!result.ok) … result.reason ("no browser found …", "EXPORT_BROWSER=off")
//   await browser.close();
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import pLimit from 'p-limit';
import type { Browser, BrowserContext } from 'playwright-core';

/** auto: validate when a browser is found, else skip; required: no browser fails the export; off: skip. */
export const BROWSER_MODES = ['auto', 'required', 'off'] as const;
export type BrowserMode = (typeof BROWSER_MODES)[number];

/**
 * Looked for on PATH, in this order, when BROWSER_EXECUTABLE_PATH is not set. Chromium's headless
 * shell first (Debian's chromium-headless-shell, Playwright's own choice for headless): the same
 * Blink without the browser's UI, which in the full browser costs a window with its address bar and
 * a preloaded WebUI renderer per context — a third of the stage's CPU and ~250 MiB (README "Benchmarks").
 */
export const BROWSER_NAMES = ['chromium-headless-shell', 'chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];

/**
 * Headless, no sandbox (containers run without user namespaces), no background traffic of the
 * browser's own (a closed network refuses it, many connections at a time).
 */
export const HEADLESS_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Exports' pages: autoplay allowed as in the networks' web views, so the sound check sees sound. */
const LAUNCH_ARGS = [...HEADLESS_ARGS, '--autoplay-policy=no-user-gesture-required', '--in-process-gpu'];

export interface BrowserManagerOptions {
  mode: BrowserMode;
  /** BROWSER_EXECUTABLE_PATH; otherwise BROWSER_NAMES are looked for in searchPath. */
  executablePath?: string;
  /** The directories of PATH. */
  searchPath: string[];
  /** Validations at once (EXPORT_WORKER_CONCURRENCY). */
  concurrency: number;
  log?: { warn(object: object, message: string): void };
}

export interface BrowserInfo {
  /** e.g. "Chromium 156.0.8078.79" */
  name: string;
}

export type WithContextResult<T> = { ok: true; value: T } | { ok: false; reason: string; mode: BrowserMode };

export interface BrowserManager {
  readonly mode: BrowserMode;
  /** Runs `task` in a fresh context of the shared browser (closed afterwards), or says why there is no browser. */
  withContext<T>(task: (context: BrowserContext, info: BrowserInfo) => Promise<T>): Promise<WithContextResult<T>>;
  close(): Promise<void>;
}

/** Thrown when a browser was found but would not start (worth a retry of the export). */
export class BrowserLaunchError extends Error {
  constructor(executable: string, cause: unknown) {
    super(`the browser ${executable} did not start: ${(cause as Error).message.split('\n')[0]}`);
    this.name = 'BrowserLaunchError';
  }
}

/** The browser's executable, or why there is none. */
export function findBrowser(options: Pick<BrowserManagerOptions, 'executablePath' | 'searchPath'>): { path: string } | { reason: string } {
  if (options.executablePath) {
    return isExecutable(options.executablePath)
      ? { path: options.executablePath }
      : { reason: `no browser found: BROWSER_EXECUTABLE_PATH=${options.executablePath} is not an executable file` };
  }
  for (const name of BROWSER_NAMES) {
    for (const dir of options.searchPath) {
      const candidate = path.join(dir, name);
      if (isExecutable(candidate)) return { path: candidate };
    }
  }
  return { reason: `no browser found: none of ${BROWSER_NAMES.join(', ')} is on PATH, and BROWSER_EXECUTABLE_PATH is not set` };
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

export function createBrowserManager(options: BrowserManagerOptions): BrowserManager {
  const limit = pLimit(options.concurrency);
  let launching: Promise<Browser> | null = null;
  let closed = false;

  async function launch(executable: string): Promise<Browser> {
    try {
      // Imported on first use: playwright-core is slow to load, and most processes never launch it.
      const { chromium } = await import('playwright-core');
      const launched = await chromium.launch({ executablePath: executable, args: LAUNCH_ARGS });
      launched.on('disconnected', () => {
        if (!closed) options.log?.warn({ executable }, 'the validation browser went away; the next export starts a new one');
        launching = null;
      });
      return launched;
    } catch (error) {
      launching = null;
      throw new BrowserLaunchError(executable, error);
    }
  }

  async function run<T>(executable: string, task: (context: BrowserContext, info: BrowserInfo) => Promise<T>): Promise<T> {
    const current = await (launching ??= launch(executable));
    // A phone's ad web view: touch input, its user agent, no service workers.
    const context = await current.newContext({
      hasTouch: true,
      deviceScaleFactor: 1,
      serviceWorkers: 'block',
      userAgent: `Mozilla/5.0 (Linux; Android 14; K; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/${current.version().split('.')[0]}.0.0.0 Mobile Safari/537.36`,
    });
    try {
      return await task(context, { name: `Chromium ${current.version()}` });
    } finally {
      await context.close().catch(() => {});
    }
  }

  return {
    mode: options.mode,
    async withContext(task) {
      if (options.mode === 'off') return { ok: false, reason: 'browser validation is off (EXPORT_BROWSER=off)', mode: options.mode };
      if (closed) return { ok: false, reason: 'the worker is shutting down', mode: options.mode };
      const found = findBrowser(options);
      if (!('path' in found)) return { ok: false, reason: found.reason, mode: options.mode };
      return limit(async () => {
        try {
          return { ok: true as const, value: await run(found.path, task) };
        } catch (error) {
          // The browser died under this export (its 'disconnected' handler forgot it; a page
          // crash is the harness's business): once more with a new one.
          if (error instanceof BrowserLaunchError || launching !== null) throw error;
          return { ok: true as const, value: await run(found.path, task) };
        }
      });
    },
    async close() {
      closed = true;
      const current = launching;
      launching = null;
      await (await current?.catch(() => null))?.close();
    },
  };
}
