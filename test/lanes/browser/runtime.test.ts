// Runtime validation (CONTRACT §9) end to end: exports made through the API run in headless
// Chromium inside each network's emulated container. The sample game passes on every network
// with its CTA reaching that network's bridge; broken games fail the check that names what broke;
// validation "report" keeps the export; the shared browser comes back after it dies.
import { execFileSync } from 'node:child_process';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTAINERS, matchesCall } from '../../../src/exporters/containers/index.js';
import { type Network, NETWORKS } from '../../../src/exporters/rules.js';
import { createTestApp, type RegisteredUser, type TestApp } from '../../helpers/app.js';
import { createSampleVariant, waitForExport } from '../../helpers/exports.js';
import { SAMPLE_CONFIG, type sampleGame } from '../../helpers/sample-game.js';

let t: TestApp;
let user: RegisteredUser;
const EXPORT_TIMEOUT_MS = 120_000;

beforeAll(async () => {
  // The browser is found on PATH, as in production; required, so a missing one fails loudly.
  t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5', EXPORT_BROWSER: 'required', PATH: process.env.PATH ?? '' });
  user = await t.register();
});
afterAll(() => t?.close());

type Game = ReturnType<typeof sampleGame>;
/** The sample game with `code` run at the top of game.js (before the runtime's ready callback). */
const withScript = (code: string) => (game: Game) => {
  const js = game.assets.find((a) => a.fileName === 'game.js')!;
  js.bytes = Buffer.concat([Buffer.from(`${code}\n`), js.bytes]);
};

async function exportVariant(variantId: string, network: Network, extra: Record<string, string> = {}) {
  const queued = await t.as(user).post('/export', { variantId, network, ...extra });
  expect(queued.statusCode, queued.body).toBe(202);
  return queued.json().id as string;
}
const finished = (id: string) => waitForExport(t, user, id, EXPORT_TIMEOUT_MS);

async function fetchPng(url: string) {
  const res = await t.fetchUrl(url);
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('image/png');
  return PNG.sync.read(res.body);
}

describe('the sample game on every network', () => {
  it("passes every runtime check, and a tap reaches the network's CTA bridge", { timeout: 300_000 }, async () => {
    const sample = await createSampleVariant(t, user);
    const ids = await Promise.all(NETWORKS.map((network) => exportVariant(sample.variant.id, network)));
    for (const [i, network] of NETWORKS.entries()) {
      const exported = await finished(ids[i]!);
      expect(exported.status, `${network}: ${exported.error}`).toBe('succeeded');
      const runtime = exported.report.runtime;
      expect(runtime, network).toMatchObject({ status: 'passed', browser: expect.stringMatching(/^Chromium \d+\./), requests: [], consoleErrors: [] });
      expect(runtime.reason).toBeUndefined();
      expect(
        runtime.checks.filter((c: { passed: boolean }) => !c.passed),
        network,
      ).toEqual([]);
      expect(runtime.orientations.map((o: { name: string; width: number; height: number }) => [o.name, o.width, o.height])).toEqual([
        ['portrait', 360, 640],
        ['landscape', 640, 360],
      ]);
      for (const o of runtime.orientations) expect(o.firstFrameMs, network).toBeGreaterThan(0);

      const ctas = runtime.bridgeCalls.filter((call: { name: string; args: unknown[] }) => matchesCall(call, CONTAINERS[network].cta));
      expect(ctas.length, `${network}: ${JSON.stringify(runtime.bridgeCalls)}`).toBe(2); // one tap per orientation
      if (CONTAINERS[network].cta.name === 'mraid.open') {
        expect(ctas[0].args).toEqual([network === 'snapchat' ? '{{ .ClickTrackingUrl }}' : SAMPLE_CONFIG.storeUrl]);
      }
      expect(runtime.checks.find((c: { name: string }) => c.name === 'cta-reaches-bridge').message).toMatch(/^a tap reached /);
    }

    // Screenshots are PNGs of each orientation behind short-lived signed URLs.
    const { orientations } = (await finished(ids[NETWORKS.indexOf('applovin')]!)).report.runtime;
    for (const o of orientations) {
      const image = await fetchPng(o.screenshotUrl);
      expect([image.width, image.height]).toEqual([o.width, o.height]);
    }
  });
});

describe('Vungle: download or complete, never both at once', () => {
  /** The sample game with its button calling `calls` instead of window.playable.cta() alone. */
  const onTap = (calls: string) => (game: Game) => {
    const js = game.assets.find((a) => a.fileName === 'game.js')!;
    js.bytes = Buffer.from(js.bytes.toString().replace('window.playable.cta();', calls));
  };
  const messages = (exported: { report: { runtime: { bridgeCalls: Array<{ name: string; args: unknown[] }> } } }) =>
    exported.report.runtime.bridgeCalls.filter((call) => call.name === 'parent.postMessage').map((call) => call.args[0]);

  it("a tap calling cta() and end() posts only 'download', in either order; end() alone still posts 'complete'", { timeout: 180_000 }, async () => {
    const [ctaThenEnd, endThenCta, endOnly] = await Promise.all([
      createSampleVariant(t, user, { name: 'CTA then end', change: onTap('window.playable.cta(); window.playable.end();') }),
      createSampleVariant(t, user, { name: 'End then CTA', change: onTap('window.playable.end(); window.playable.cta();') }),
      createSampleVariant(t, user, { name: 'End only', change: onTap('window.playable.end();') }),
    ]);
    const exported = await Promise.all([ctaThenEnd, endThenCta, endOnly].map(async (sample) => finished(await exportVariant(sample.variant.id, 'vungle'))));
    for (const e of exported) expect(e.status, e.error).toBe('succeeded');
    // One tap per orientation.
    expect(messages(exported[0])).toEqual(['download', 'download']);
    expect(messages(exported[1])).toEqual(['download', 'download']);
    expect(messages(exported[2])).toEqual(['complete', 'complete']);
  });
});

describe('a build that loads its script with defer in <head>', () => {
  /** game.js moved to <head> as a deferred script, and reading the page's button as soon as it runs. */
  const deferred = (game: Game) => {
    game.entry.bytes = Buffer.from(
      game.entry.bytes.toString().replace('<script src="js/game.js"></script>', '').replace('</head>', '<script defer src="js/game.js"></script></head>'),
    );
    withScript("document.getElementById('cta').setAttribute('data-deferred', 'ran');")(game);
  };

  it('runs after the page is parsed, inlined (AppLovin) or as a file of the ZIP (Google)', { timeout: 180_000 }, async () => {
    const sample = await createSampleVariant(t, user, { name: 'Deferred', change: deferred });
    for (const network of ['applovin', 'google'] as const) {
      const exported = await finished(await exportVariant(sample.variant.id, network));
      expect(exported.status, `${network}: ${exported.error}`).toBe('succeeded');
      expect(exported.report.runtime, network).toMatchObject({ status: 'passed', consoleErrors: [] });
    }
  });
});

describe('games that break', () => {
  it('fails each export naming the check and what it saw; validation "report" keeps the export', { timeout: 180_000 }, async () => {
    const [throwing, tracking, blank, noisy, loud, endless] = await Promise.all([
      createSampleVariant(t, user, { name: 'Throws', change: withScript("throw new Error('boom on load');") }),
      createSampleVariant(t, user, { name: 'Tracks', change: withScript("fetch('https://tracker.example/p').catch(function () {});") }),
      createSampleVariant(t, user, {
        name: 'Blank',
        change: (game) => {
          game.entry = { ...game.entry, bytes: Buffer.from('<!doctype html><html><head><title>Blank</title></head><body></body></html>') };
          game.assets = [];
        },
      }),
      createSampleVariant(t, user, { name: 'Noisy', change: withScript("console.error('level missing');") }),
      createSampleVariant(t, user, {
        name: 'Loud',
        change: withScript('var beep = new AudioContext().createOscillator(); beep.connect(beep.context.destination); beep.start();'),
      }),
      createSampleVariant(t, user, { name: 'Endless', change: withScript('while (true) {}') }),
    ]);
    const ids = await Promise.all([
      exportVariant(throwing.variant.id, 'applovin'),
      exportVariant(tracking.variant.id, 'tiktok'),
      exportVariant(blank.variant.id, 'meta'),
      exportVariant(noisy.variant.id, 'vungle'),
      exportVariant(noisy.variant.id, 'applovin'),
      exportVariant(throwing.variant.id, 'unity', { validation: 'report' }),
      exportVariant(loud.variant.id, 'liftoff'),
      exportVariant(endless.variant.id, 'moloco'),
    ]);
    const [thrown, tracked, blanked, noisyVungle, noisyApplovin, reported, loudLiftoff, hung] = await Promise.all(ids.map(finished));

    expect(thrown).toMatchObject({ status: 'failed', downloadUrl: null, attempts: 1 });
    expect(thrown.error).toBe('runtime check loads failed: uncaught Error: boom on load (portrait, landscape)');
    // A failed export keeps its report and screenshots, to show why.
    expect(thrown.report.runtime).toMatchObject({ status: 'failed', browser: expect.stringMatching(/^Chromium/) });
    await fetchPng(thrown.report.runtime.orientations[0].screenshotUrl);

    expect(tracked.status).toBe('failed');
    expect(tracked.error).toBe('runtime check no-external-requests failed: requested https://tracker.example/p');
    expect(tracked.report.runtime.requests).toEqual(['https://tracker.example/p']);

    expect(blanked.status).toBe('failed');
    expect(blanked.error).toBe(
      'runtime check renders failed: the portrait screenshot is one flat colour (#ffffff); the landscape screenshot is one flat colour (#ffffff)',
    );

    expect(noisyVungle.status).toBe('failed');
    expect(noisyVungle.error).toBe('runtime check no-console-errors failed: console.error: level missing (portrait, landscape)');
    // Elsewhere a console error is a warning: the export succeeds and the report tells.
    expect(noisyApplovin.status).toBe('succeeded');
    expect(noisyApplovin.report.runtime.status).toBe('passed');
    expect(noisyApplovin.report.runtime.consoleErrors).toEqual(['level missing']);
    expect(noisyApplovin.report.runtime.checks.find((c: { name: string }) => c.name === 'no-console-errors')).toEqual({
      name: 'no-console-errors',
      severity: 'warning',
      passed: false,
      message: 'console.error: level missing (portrait, landscape)',
    });

    expect(reported).toMatchObject({ status: 'succeeded', validation: 'report', error: null, downloadUrl: expect.any(String) });
    expect(reported.report.runtime.status).toBe('failed');
    expect(reported.report.runtime.checks.find((c: { name: string }) => c.name === 'loads')).toMatchObject({ passed: false, severity: 'error' });

    expect(loudLiftoff.status).toBe('succeeded');
    expect(loudLiftoff.report.runtime.checks.find((c: { name: string }) => c.name === 'muted-until-interaction')).toEqual({
      name: 'muted-until-interaction',
      severity: 'warning',
      passed: false,
      message: 'sound started before the first input: OscillatorNode.start() (portrait, landscape)',
    });

    // An endless loop does not hang the worker: each orientation is given up after 10 s.
    expect(hung.status).toBe('failed');
    expect(hung.error).toBe(
      'runtime check loads failed: the page did not come up: the page did not respond within 10 s (portrait, landscape); ' +
        'runtime check renders failed: no portrait screenshot; no landscape screenshot',
    );
  });
});

describe('the shared browser', () => {
  it('is started again for the next export after it died', { timeout: 120_000 }, async () => {
    const sample = await createSampleVariant(t, user, { name: 'After a crash' });
    expect((await finished(await exportVariant(sample.variant.id, 'google'))).report.runtime.status).toBe('passed');
    // The browser this process launched (and only it): the processes under this one running
    // chromium — Debian's /usr/bin/chromium-headless-shell is a script that does not exec.
    const processes = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((line) => line.trim().split(/\s+/))
      .map(([pid, ppid, ...args]) => ({ pid: Number(pid), ppid: Number(ppid), args: args.join(' ') }));
    const mine = [process.pid];
    for (let i = 0; i < mine.length; i++) mine.push(...processes.filter((p) => p.ppid === mine[i]).map((p) => p.pid));
    const browser = processes.filter((p) => mine.includes(p.pid) && /chrom/i.test(p.args));
    expect(browser.length).toBeGreaterThan(0);
    for (const { pid } of browser) process.kill(pid, 'SIGKILL');

    const after = await finished(await exportVariant(sample.variant.id, 'google'));
    expect(after.status).toBe('succeeded');
    expect(after.report.runtime.status).toBe('passed');
  });
});
