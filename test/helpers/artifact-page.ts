// Opens an exported artifact in a Playwright page inside its network's emulated container (the
// same stubs as the export's browser check, src/exporters/containers/), so a test can look at the
// game's DOM and the container calls it made. Files are served from https://playable.invalid/;
// anything else is blocked.
import { lookup } from 'mime-types';
import type { Browser, Page } from 'playwright-core';
import { type BridgeCall, containerScript, containerScripts } from '../../src/exporters/containers/index.js';
import type { Network } from '../../src/exporters/rules.js';
import { artifactFiles } from './sample-game.js';

const ORIGIN = 'https://playable.invalid';
const HOST = `{ call: function (name, args) { window.__containerCalls.push({ name: name, args: args }); }, ready: function () {} }`;

export interface ArtifactPage {
  page: Page;
  /** The calls the game made to the container so far. */
  calls(): Promise<BridgeCall[]>;
  /** Uncaught errors, and what was requested outside the artifact. */
  errors: string[];
  blocked: string[];
  close(): Promise<void>;
}

export async function openArtifact(browser: Browser, network: Network, bytes: Buffer): Promise<ArtifactPage> {
  const files = artifactFiles(bytes);
  // One HTML file is served under its own name; the test builds' ZIPs hold one HTML file each.
  const entryPath = [...files.keys()].find((path) => path.endsWith('.html'))!;
  const entryDir = entryPath.slice(0, entryPath.lastIndexOf('/') + 1);
  const stub = containerScript(network, HOST);
  const stubUrls = new Set(containerScripts(network).map((script) => new URL(script, `${ORIGIN}/${entryDir}`).href));
  const context = await browser.newContext({ viewport: { width: 360, height: 640 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const blocked: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (stubUrls.has(url)) return route.fulfill({ body: stub, contentType: 'text/javascript' });
    const file = url.startsWith(`${ORIGIN}/`) ? files.get(decodeURIComponent(new URL(url).pathname.slice(1))) : undefined;
    if (file) return route.fulfill({ body: file, contentType: lookup(url) || 'application/octet-stream' });
    blocked.push(url);
    return route.abort();
  });
  await page.addInitScript(`window.__containerCalls = []; ${stub}`);
  await page.goto(`${ORIGIN}/${entryPath}`);
  return { page, errors, blocked, calls: () => page.evaluate('window.__containerCalls') as Promise<BridgeCall[]>, close: () => context.close() };
}
