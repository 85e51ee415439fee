// The browser manager and the browser stage where no browser runs: finding the executable, off,
// not found, and a "browser" that does not start. Runs with a real browser are the browser lane's.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateInBrowser } from '../../src/exporters/browser/index.js';
import { type BrowserManager, createBrowserManager, findBrowser } from '../../src/exporters/browser/manager.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pcs-browser-'));
/** An executable file that is no browser: it exits at once. */
const fake = (name: string, into = dir) => {
  const file = path.join(into, name);
  writeFileSync(file, '#!/bin/sh\nexit 1\n');
  chmodSync(file, 0o755);
  return file;
};
const artifact = { output: 'html' as const, bytes: Buffer.from('<html></html>'), entryPath: 'a.html' };
const managers: BrowserManager[] = [];
const manager = (options: Parameters<typeof createBrowserManager>[0]) => {
  managers.push(createBrowserManager(options));
  return managers.at(-1)!;
};
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

describe('findBrowser', () => {
  it('takes BROWSER_EXECUTABLE_PATH when it is an executable file, else says so', () => {
    const chrome = fake('my-chrome');
    expect(findBrowser({ executablePath: chrome, searchPath: [] })).toEqual({ path: chrome });
    expect(findBrowser({ executablePath: dir, searchPath: [] })).toEqual({
      reason: `no browser found: BROWSER_EXECUTABLE_PATH=${dir} is not an executable file`,
    });
  });

  it('looks for chromium-headless-shell, chromium, chromium-browser, google-chrome… on PATH, in that order', () => {
    const other = mkdtempSync(path.join(tmpdir(), 'pcs-browser-'));
    const chrome = fake('google-chrome');
    writeFileSync(path.join(other, 'chromium'), 'not executable');
    expect(findBrowser({ searchPath: [other, dir] })).toEqual({ path: chrome });
    expect(findBrowser({ searchPath: [other] })).toEqual({
      reason:
        'no browser found: none of chromium-headless-shell, chromium, chromium-browser, google-chrome, google-chrome-stable, chrome is on PATH, and BROWSER_EXECUTABLE_PATH is not set',
    });
    // The headless shell before the full browser, wherever each is on PATH.
    const both = [mkdtempSync(path.join(tmpdir(), 'pcs-browser-')), mkdtempSync(path.join(tmpdir(), 'pcs-browser-'))];
    fake('chromium', both[0]);
    const shell = fake('chromium-headless-shell', both[1]);
    expect(findBrowser({ searchPath: both })).toEqual({ path: shell });
  });
});

describe('the browser stage without a working browser', () => {
  it('is skipped with EXPORT_BROWSER=off, without looking for a browser', async () => {
    const browser = manager({ mode: 'off', executablePath: '/nonexistent', searchPath: [], concurrency: 1 });
    expect(await browser.withContext(async () => 1)).toEqual({ ok: false, reason: 'browser validation is off (EXPORT_BROWSER=off)', mode: 'off' });
    const { report, failure } = await validateInBrowser({ network: 'meta', browser, artifact });
    expect(report).toMatchObject({ status: 'skipped', reason: 'browser validation is off (EXPORT_BROWSER=off)' });
    expect(failure).toBeNull();
  });

  it('skips (auto) or fails (required) when a browser is there but does not start', async () => {
    const executablePath = fake('broken-chromium');
    const auto = await validateInBrowser({ network: 'meta', browser: manager({ mode: 'auto', executablePath, searchPath: [], concurrency: 1 }), artifact });
    expect(auto.failure).toBeNull();
    expect(auto.report.status).toBe('skipped');
    expect(auto.report.reason).toMatch(new RegExp(`^the browser ${executablePath} did not start: `));

    const required = validateInBrowser({ network: 'meta', browser: manager({ mode: 'required', executablePath, searchPath: [], concurrency: 1 }), artifact });
    // Not an ExportFailure: the export is retried, as a browser that failed once may start next time.
    await expect(required).rejects.toMatchObject({ name: 'BrowserLaunchError' });
  });
});
