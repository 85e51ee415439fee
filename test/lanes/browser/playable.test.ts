// End to end: the sample game exported for AppLovin through the API, downloaded from its
// downloadUrl, and opened in headless Chromium with a stub `mraid` object. The game must render
// (title from the variant config, level from level.json, logo image) and its CTA must reach
// mraid.open with the store URL — and the page must make no request to anywhere. And a variant
// with a 3.5 MB photo-like PNG exported to meta (2 MB) with optimize "fit": the re-encoded photo
// is displayed under its own name (naturalWidth > 0) and the game still runs.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../helpers/chromium.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { createSampleVariant, downloadArtifact, exportSampleGame, waitForExport } from '../../helpers/exports.js';
import { photoPng } from '../../helpers/photo.js';
import { artifactFiles, SAMPLE_CONFIG } from '../../helpers/sample-game.js';

const ORIGIN = 'http://playable.test';

/** MRAID as a container provides it: "loading" first, then a ready event; open() is recorded. */
const MRAID_STUB = `
  window.mraidOpened = [];
  window.mraid = (function () {
    var state = 'loading', listeners = {};
    setTimeout(function () { state = 'default'; (listeners.ready || []).forEach(function (fn) { fn(); }); }, 100);
    return {
      getState: function () { return state; },
      addEventListener: function (event, fn) { (listeners[event] = listeners[event] || []).push(fn); },
      removeEventListener: function (event, fn) { listeners[event] = (listeners[event] || []).filter(function (f) { return f !== fn; }); },
      isViewable: function () { return true; },
      open: function (url) { window.mraidOpened.push(url); }
    };
  })();`;

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5' });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('an AppLovin export in Chromium', () => {
  it('renders the game and sends the CTA to mraid.open', async () => {
    const { artifact } = await exportSampleGame(t, 'applovin');
    const page = await browser.newPage();
    const requests: string[] = [];
    await page.route('**/*', async (route) => {
      const url = route.request().url();
      requests.push(url);
      if (url === `${ORIGIN}/index.html`) return route.fulfill({ body: artifact, contentType: 'text/html' });
      if (url === `${ORIGIN}/mraid.js`) return route.fulfill({ body: MRAID_STUB, contentType: 'text/javascript' });
      return route.abort();
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(`${ORIGIN}/index.html`);
    await page.waitForSelector('body[data-game-ready="true"]', { timeout: 10_000 });
    expect(await page.textContent('#title')).toBe(SAMPLE_CONFIG.title);
    expect(await page.textContent('#level')).toBe('Level: Meadow');
    expect(await page.$eval('#logo', (img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(16);
    await page.screenshot({ path: path.join(tmpdir(), 'pcs-applovin-playable.png') });

    await page.click('#cta');
    expect(await page.evaluate(() => (globalThis as unknown as { mraidOpened: string[] }).mraidOpened)).toEqual([SAMPLE_CONFIG.storeUrl]);
    // Only the page itself and the container's mraid.js: nothing else was loaded (data: URIs are not requests).
    expect(requests).toEqual([`${ORIGIN}/index.html`, `${ORIGIN}/mraid.js`]);
    expect(errors).toEqual([]);
  });
});

describe('a Mintegral export in Chromium', () => {
  it("defines gameReady, gameStart and gameClose when opened alone, and keeps and calls the container's own gameReady", async () => {
    const { artifact } = await exportSampleGame(t, 'mintegral');
    const files = artifactFiles(artifact);
    const entry = [...files.keys()].find((name) => name.endsWith('.html'))!;
    const open = async (containerScript?: string) => {
      const page = await browser.newPage();
      if (containerScript) await page.addInitScript(containerScript);
      await page.route('**/*', (route) => {
        const file = files.get(route.request().url().slice(`${ORIGIN}/`.length));
        return file ? route.fulfill({ body: file, contentType: route.request().url().endsWith('.html') ? 'text/html' : undefined }) : route.abort();
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${ORIGIN}/${entry}`);
      await page.waitForSelector('body[data-game-ready="true"]', { timeout: 10_000 });
      return { page, errors };
    };
    const hooks = () => ['gameReady', 'gameStart', 'gameClose'].map((name) => typeof (globalThis as unknown as Record<string, unknown>)[name]);

    const alone = await open();
    expect(await alone.page.evaluate(hooks)).toEqual(['function', 'function', 'function']);
    expect(alone.errors).toEqual([]);
    await alone.page.close();

    const contained = await open('window.readyCalls = 0; window.gameReady = function () { window.readyCalls++; };');
    expect(await contained.page.evaluate(() => (globalThis as unknown as { readyCalls: number }).readyCalls)).toBe(1);
    expect(contained.errors).toEqual([]);
    await contained.page.close();
  });
});

describe('a meta export made to fit', () => {
  it('shows the re-encoded photo and runs the game', async () => {
    const user = await t.register();
    const photo = { fileName: 'photo.png', contentType: 'image/png', bytes: await photoPng(1420, 1120) };
    const sample = await createSampleVariant(t, user, {
      change: (game) => {
        game.entry = { ...game.entry, bytes: Buffer.from(game.entry.bytes.toString().replace('</body>', '<img id="photo" src="photo.png"></body>')) };
        game.assets.push(photo);
      },
    });
    const queued = await t.as(user).post('/export', { variantId: sample.variant.id, network: 'meta', optimize: 'fit' });
    const exported = await waitForExport(t, user, queued.json().id, 60_000);
    expect(exported.status, exported.error).toBe('succeeded');
    expect(exported.size).toBeLessThanOrEqual(2_000_000);
    const artifact = await downloadArtifact(t, exported);

    const page = await browser.newPage();
    await page.route('**/*', (route) =>
      route.request().url() === `${ORIGIN}/index.html` ? route.fulfill({ body: artifact, contentType: 'text/html' }) : route.abort(),
    );
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${ORIGIN}/index.html`);
    await page.waitForSelector('body[data-game-ready="true"]', { timeout: 10_000 });
    const size = await page.$eval('#photo', (img) => {
      const image = img as unknown as { complete: boolean; naturalWidth: number; naturalHeight: number };
      return { complete: image.complete, width: image.naturalWidth, height: image.naturalHeight };
    });
    expect(size).toEqual({ complete: true, width: 1420, height: 1120 });
    expect(errors).toEqual([]);
    await page.close();
  });
});
