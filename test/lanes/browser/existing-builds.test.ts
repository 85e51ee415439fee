// CONTRACT §14 in a real browser: an MRAID-native build (test/fixtures/mraid-native) and a Luna
// Playground build (test/fixtures/luna-api), each exported through the API to every network. In
// the export's own browser check (report.runtime) each passes every check, with no page or
// console error, and the harness's tap reaches that network's CTA bridge with the right URL. The
// downloaded artifacts, opened in the network's emulated container, show what the report cannot:
// the Luna build's title read from the variant config through Playground.get, its luna:* events,
// and the mraid shim's answers where the network has no MRAID. A build of none of the APIs
// exports with its cta-reaches-bridge check warning.
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTAINERS, matchesCall } from '../../../src/exporters/containers/index.js';
import { type Network, NETWORKS } from '../../../src/exporters/rules.js';
import { createTestApp, type RegisteredUser, type TestApp } from '../../helpers/app.js';
import { openArtifact } from '../../helpers/artifact-page.js';
import { createSampleVariant, downloadArtifact, waitForExport } from '../../helpers/exports.js';
import { fixtureGame, LUNA_CONFIG, MRAID_NATIVE_STORE_URL } from '../../helpers/sample-game.js';

let t: TestApp;
let user: RegisteredUser;
let browser: Browser;

beforeAll(async () => {
  t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5', EXPORT_BROWSER: 'required', PATH: process.env.PATH ?? '', RATE_LIMIT_EXPORT_MAX: '500' });
  user = await t.register();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

interface Exported {
  network: Network;
  exported: any;
  bytes: Buffer;
}

/** The fixture `dir` as a variant, exported to every network; each export must succeed. */
async function exportEverywhere(dir: string, config: Record<string, unknown>): Promise<Exported[]> {
  const variant = await createSampleVariant(t, user, { name: dir, config, change: (game) => Object.assign(game, fixtureGame(dir)) });
  const ids = await Promise.all(
    NETWORKS.map(async (network) => {
      const res = await t.as(user).post('/export', { variantId: variant.variant.id, network });
      expect(res.statusCode, res.body).toBe(202);
      return res.json().id as string;
    }),
  );
  const results: Exported[] = [];
  for (const [i, network] of NETWORKS.entries()) {
    const exported = await waitForExport(t, user, ids[i]!, 180_000);
    expect(exported.status, `${network}: ${exported.error}`).toBe('succeeded');
    results.push({ network, exported, bytes: await downloadArtifact(t, exported) });
  }
  return results;
}

/** report.runtime passed every check, and the taps (one per orientation) reached the CTA with `url` where the bridge takes one. */
function expectRuntimeReachesCta({ network, exported }: Exported, url: string) {
  const runtime = exported.report.runtime;
  expect(runtime, network).toMatchObject({ status: 'passed', requests: [], consoleErrors: [] });
  expect(
    runtime.checks.filter((c: { passed: boolean }) => !c.passed),
    network,
  ).toEqual([]);
  const ctas = runtime.bridgeCalls.filter((call: { name: string; args: unknown[] }) => matchesCall(call, CONTAINERS[network].cta));
  expect(ctas.length, `${network}: ${JSON.stringify(runtime.bridgeCalls)}`).toBe(2);
  if (CONTAINERS[network].cta.name === 'mraid.open') {
    for (const cta of ctas) expect(cta.args, network).toEqual([network === 'snapchat' ? '{{ .ClickTrackingUrl }}' : url]);
  }
}

/** Taps the centre of the page (pointer events, then click) and waits for the CTA to reach the container. */
async function tapAndAwaitCta(opened: Awaited<ReturnType<typeof openArtifact>>, network: Network) {
  await opened.page.mouse.click(180, 320);
  await expect.poll(async () => (await opened.calls()).filter((call) => matchesCall(call, CONTAINERS[network].cta)).length, { timeout: 5_000 }).toBe(1);
}

describe('an MRAID-native build on every network', () => {
  it("runs unchanged: the tap reaches each network's CTA bridge with the store URL", { timeout: 400_000 }, async () => {
    for (const result of await exportEverywhere('mraid-native', {})) {
      const { network, exported, bytes } = result;
      expect(exported.report.entry.api, network).toBe('mraid');
      expectRuntimeReachesCta(result, MRAID_NATIVE_STORE_URL);

      const opened = await openArtifact(browser, network, bytes);
      await opened.page.waitForSelector('body[data-game-ready="true"]', { timeout: 10_000 });
      // The network's own mraid, or the shim: MRAID 2.0 answers either way (Unity's is 3.0).
      const version = await opened.page.getAttribute('body', 'data-mraid-version');
      expect(version, network).toBe(CONTAINERS[network].mraid?.version ?? '2.0');
      expect(await opened.page.getAttribute('body', 'data-placement'), network).toBe('interstitial');
      await tapAndAwaitCta(opened, network);
      expect(opened.errors, network).toEqual([]);
      expect(opened.blocked, network).toEqual([]);
      await opened.close();
    }
  });
});

describe('a Luna Playground build on every network', () => {
  it('runs unchanged: Playground.get reads the variant config, luna:* events come, InstallFullGame is the CTA', { timeout: 400_000 }, async () => {
    for (const result of await exportEverywhere('luna-api', LUNA_CONFIG)) {
      const { network, exported, bytes } = result;
      expect(exported.report.entry.api, network).toBe('luna');
      expectRuntimeReachesCta(result, LUNA_CONFIG.storeUrl);

      const opened = await openArtifact(browser, network, bytes);
      await opened.page.waitForSelector('body[data-game-ready="true"]', { timeout: 10_000 });
      // config.GameConfig.title is set; GameConfig.lives is not, so its default stands.
      expect(await opened.page.textContent('#stage'), network).toBe('Castle Siege (3 lives)');
      expect(await opened.page.getAttribute('body', 'data-luna-events'), network).toBe('luna:build');
      await tapAndAwaitCta(opened, network);
      expect(await opened.page.getAttribute('body', 'data-luna-events'), network).toBe('luna:build luna:unmute');
      if (network === 'vungle') {
        // Vungle pauses and resumes the ad with messages.
        await opened.page.evaluate("window.postMessage('ad-event-pause', '*'); window.postMessage('ad-event-resume', '*');");
        await expect.poll(() => opened.page.getAttribute('body', 'data-luna-events')).toBe('luna:build luna:unmute luna:pause luna:resume');
      }
      expect(opened.errors, network).toEqual([]);
      expect(opened.blocked, network).toEqual([]);
      await opened.close();
    }
  });
});

describe('a build that calls no known API', () => {
  it('exports, and its cta-reaches-bridge check warns', { timeout: 120_000 }, async () => {
    const html = '<!doctype html><html><head><title>Own</title></head><body><button onclick="location.hash = \'tapped\'">Install</button></body></html>';
    const variant = await createSampleVariant(t, user, {
      name: 'Own API',
      change: (game) => {
        game.entry = { fileName: 'index.html', contentType: 'text/html', bytes: Buffer.from(html) };
        game.assets = [];
      },
    });
    const res = await t.as(user).post('/export', { variantId: variant.variant.id, network: 'meta' });
    const exported = await waitForExport(t, user, res.json().id, 120_000);
    expect(exported.status, exported.error).toBe('succeeded');
    expect(exported.report.entry.api).toBe('none');
    expect(exported.report.runtime.checks.find((c: { name: string }) => c.name === 'cta-reaches-bridge')).toMatchObject({ severity: 'warning', passed: false });
  });
});
