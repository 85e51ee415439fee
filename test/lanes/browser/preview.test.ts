// CONTRACT §11 in a real browser: a preview link opened in headless Chromium with no
// credentials. The playable runs sandboxed in the phone frame inside the network's emulated
// container; a tap on its call to action inside the frame adds the bridge call to
// [data-preview-log]; the orientation switch resizes the frame; the QR code decodes to the page's
// own address; nothing on the page breaks its CSP; a revoked link answers 403.
import { tmpdir } from 'node:os';
import path from 'node:path';
import jsqr from 'jsqr';
import type { Browser, Frame, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTAINERS, formatBridgeCall } from '../../../src/exporters/containers/index.js';
import { type Network, NETWORKS } from '../../../src/exporters/rules.js';
import { launchChromium } from '../../helpers/chromium.js';
import { createTestApp, type RegisteredUser, type TestApp } from '../../helpers/app.js';
import { exportSampleGame } from '../../helpers/exports.js';
import { SAMPLE_CONFIG } from '../../helpers/sample-game.js';

let t: TestApp;
let owner: RegisteredUser;
let browser: Browser;

beforeAll(async () => {
  t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5' }, { listen: true });
  owner = await t.register();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function previewOf(network: Network) {
  const { exported } = await exportSampleGame(t, network, owner);
  const res = await t.as(owner).post(`/exports/${exported.id}/previews`, {});
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; url: string };
}

/** Opens the page in a fresh context; collects page errors and console errors (CSP violations are console errors). */
async function openPage(url: string, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  const response = await page.goto(url);
  return { page, response, problems, close: () => context.close() };
}

/** The framed playable, once its game has loaded its level (a fetch from inside the sandbox). */
async function gameFrame(page: Page): Promise<Frame> {
  await page.waitForSelector('[data-preview-status][data-ready="true"]', { timeout: 10_000 });
  const frame = (await (await page.$('[data-preview-frame]'))!.contentFrame())!;
  await frame.waitForSelector('body[data-game-ready="true"]', { timeout: 10_000 });
  return frame;
}

const logLines = (page: Page) => page.$$eval('[data-preview-log] li', (items) => items.map((item) => item.textContent));

describe('a preview link in Chromium', () => {
  it('runs the playable sandboxed, logs the CTA tapped inside the frame, switches orientation and shows a QR code of its URL', async () => {
    const preview = await previewOf('applovin');
    const { page, response, problems, close } = await openPage(preview.url);
    expect(response!.status()).toBe(200);
    expect(await page.getAttribute('[data-preview-frame]', 'sandbox')).toBe('allow-scripts');
    const frame = await gameFrame(page);
    expect(await frame.textContent('#title')).toBe(SAMPLE_CONFIG.title);

    // The frame runs in an opaque origin: no way to the page, its cookies or its storage.
    expect(await frame.evaluate('(function () { try { return String(parent.document.title); } catch (e) { return e.name; } })()')).toBe('SecurityError');
    expect(await frame.evaluate('(function () { try { return document.cookie; } catch (e) { return e.name; } })()')).toBe('SecurityError');

    await frame.click('#cta');
    const expected = formatBridgeCall({ name: 'mraid.open', args: [SAMPLE_CONFIG.storeUrl] });
    await expect.poll(() => logLines(page)).toContain(expected);
    expect(expected).toBe(`mraid.open("${SAMPLE_CONFIG.storeUrl}")`);

    await page.screenshot({ path: path.join(tmpdir(), 'pcs-preview-desktop.png') });
    await page.click('[data-preview-orientation="landscape"]');
    expect(await page.getAttribute('[data-preview-orientation="landscape"]', 'aria-pressed')).toBe('true');
    await expect.poll(() => frame.evaluate('[innerWidth, innerHeight]')).toEqual([640, 360]);
    await page.screenshot({ path: path.join(tmpdir(), 'pcs-preview-landscape.png') });
    await page.click('[data-preview-orientation="portrait"]');
    await expect.poll(() => frame.evaluate('[innerWidth, innerHeight]')).toEqual([360, 640]);

    // The QR code is an SVG drawn by the server; read back from its pixels it is the page's URL.
    expect(await page.$eval('[data-preview-qr] svg', (svg) => svg.tagName)).toBe('svg');
    await page.setViewportSize({ width: 1280, height: 1000 });
    const qr = PNG.sync.read(await (await page.$('[data-preview-qr] svg'))!.screenshot());
    // jsqr is CommonJS: under NodeNext its function is typed at .default, where it also is at run time.
    expect(jsqr.default(new Uint8ClampedArray(qr.data), qr.width, qr.height)?.data).toBe(preview.url);

    expect(problems).toEqual([]);
    await close();
  });

  it("fits a phone screen and reaches a ZIP network's bridge (Vungle's postMessage to the parent frame)", async () => {
    const preview = await previewOf('vungle');
    const { page, problems, close } = await openPage(preview.url, { width: 390, height: 844 });
    const frame = await gameFrame(page);
    await frame.tap('#cta');
    await expect.poll(() => logLines(page)).toContain('parent.postMessage("download")');
    const box = (await page.$('[data-preview-device]'))!;
    const bounds = (await box.boundingBox())!;
    expect(bounds.x).toBeGreaterThanOrEqual(0);
    expect(bounds.x + bounds.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(tmpdir(), 'pcs-preview-phone.png'), fullPage: true });
    expect(problems).toEqual([]);
    await close();
  });

  it("reaches each network's CTA bridge through its emulated container", { timeout: 300_000 }, async () => {
    for (const network of NETWORKS) {
      const preview = await previewOf(network);
      const { page, problems, close } = await openPage(preview.url);
      const frame = await gameFrame(page);
      await frame.click('#cta');
      const { name, args } = CONTAINERS[network].cta;
      // The CTA's name and, where the network's pattern names them (Vungle's "download"), its first arguments.
      const expected = args ? formatBridgeCall({ name, args }).slice(0, -1) : `${name}(`;
      await expect
        .poll(() => logLines(page), { message: network })
        .toContainEqual(expect.stringMatching(new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)));
      expect(problems, network).toEqual([]);
      await close();
    }
  });

  it('answers a revoked link with 403', async () => {
    const preview = await previewOf('unity');
    expect((await t.as(owner).delete(`/previews/${preview.id}`)).statusCode).toBe(204);
    const { response, close } = await openPage(preview.url);
    expect(response!.status()).toBe(403);
    expect(await response!.json()).toMatchObject({ statusCode: 403, error: 'INSUFFICIENT_PERMISSIONS' });
    await close();
  });
});
