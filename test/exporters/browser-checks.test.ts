// The runtime checks as pure functions of gathered artifacts (no browser), and the container data
// they judge bridge calls by.
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { flatColour, runChecks } from '../../src/exporters/browser/checks.js';
import { CHECK_NAMES } from '../../src/exporters/options.js';
import type { Gathered, GatheredOrientation } from '../../src/exporters/browser/gather.js';
import { CONTAINERS, containerScript, containerScripts, formatBridgeCall, matchesCall } from '../../src/exporters/containers/index.js';
import { GOOGLE_EXIT_API_URL, type Network, NETWORKS } from '../../src/exporters/rules.js';

/** A PNG of `width`×`height` in one colour, with a `mark`-coloured pixel in its centre if given. */
function png(width: number, height: number, colour: [number, number, number], mark?: [number, number, number]): Buffer {
  const image = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) image.data.set([...colour, 255], i * 4);
  if (mark) image.data.set([...mark, 255], (Math.floor(height / 2) * width + Math.floor(width / 2)) * 4);
  return PNG.sync.write(image);
}

const drawn = png(36, 64, [29, 43, 83], [255, 255, 255]);
const orientation = (name: 'portrait' | 'landscape', extra: Partial<GatheredOrientation> = {}): GatheredOrientation => ({
  name,
  width: name === 'portrait' ? 360 : 640,
  height: name === 'portrait' ? 640 : 360,
  screenshot: drawn,
  firstFrameMs: 120,
  containerReadyMs: 110,
  pageErrors: [],
  consoleErrors: [],
  soundsBeforeInput: [],
  stopped: null,
  ...extra,
});
const STORE_URL = 'https://apps.apple.com/app/id1';
const gathered = (network: Network, extra: Partial<Gathered> = {}): Gathered => ({
  network,
  orientations: [orientation('portrait'), orientation('landscape')],
  requests: [],
  bridgeCalls: [{ name: 'mraid.open', args: [STORE_URL], orientation: 'portrait', afterInput: true }],
  phases: {},
  ...extra,
});
const check = (g: Gathered, name: string) => runChecks(g).find((c) => c.name === name)!;

describe('runtime checks', () => {
  it('passes a playable that loads, draws, stays offline and silent, and whose tap reaches the bridge', () => {
    expect(runChecks(gathered('applovin'))).toEqual([
      { name: 'loads', severity: 'error', passed: true, message: 'no uncaught exception or unhandled rejection in either orientation' },
      {
        name: 'renders',
        severity: 'error',
        passed: true,
        message: 'both orientations drew something (portrait first paint at 120 ms, landscape first paint at 120 ms)',
      },
      { name: 'no-external-requests', severity: 'error', passed: true, message: "nothing was requested but the artifact's own files" },
      { name: 'no-console-errors', severity: 'warning', passed: true, message: 'no console.error' },
      { name: 'cta-reaches-bridge', severity: 'warning', passed: true, message: `a tap reached mraid.open("${STORE_URL}")` },
      { name: 'muted-until-interaction', severity: 'warning', passed: true, message: 'no sound before the first input' },
    ]);
    expect(runChecks(gathered('applovin')).map((c) => c.name)).toEqual([...CHECK_NAMES]);
  });

  it('loads: names each uncaught error once, with the orientations it happened in', () => {
    const g = gathered('unity', {
      orientations: [
        orientation('portrait', { pageErrors: ['Error: boom', 'TypeError: x is undefined'] }),
        orientation('landscape', { pageErrors: ['Error: boom'] }),
      ],
    });
    expect(check(g, 'loads')).toMatchObject({ passed: false, message: 'uncaught Error: boom (portrait, landscape); uncaught TypeError: x is undefined (portrait)' });
    const dead = gathered('unity', { orientations: [orientation('portrait', { screenshot: null, stopped: 'Target crashed' }), orientation('landscape')] });
    expect(check(dead, 'loads').message).toBe('the page did not come up: Target crashed (portrait)');
  });

  it('renders: fails a screenshot of one flat colour, or none', () => {
    const white = png(36, 64, [255, 255, 255]);
    expect(flatColour(white)).toBe('#ffffff');
    expect(flatColour(drawn)).toBeNull();
    const g = gathered('meta', { orientations: [orientation('portrait', { screenshot: white }), orientation('landscape', { screenshot: null })] });
    expect(check(g, 'renders')).toMatchObject({
      severity: 'error',
      passed: false,
      message: 'the portrait screenshot is one flat colour (#ffffff); no landscape screenshot',
    });
  });

  it('no-external-requests: names every URL requested', () => {
    const g = gathered('tiktok', { requests: ['https://tracker.example/p', 'wss://live.example/socket'] });
    expect(check(g, 'no-external-requests')).toMatchObject({
      severity: 'error',
      passed: false,
      message: 'requested https://tracker.example/p, wss://live.example/socket',
    });
  });

  it('no-console-errors: an error for Vungle, a warning elsewhere', () => {
    const orientations = [orientation('portrait', { consoleErrors: ['level not found'] }), orientation('landscape', { consoleErrors: ['level not found'] })];
    expect(check(gathered('vungle', { orientations }), 'no-console-errors')).toEqual({
      name: 'no-console-errors',
      severity: 'error',
      passed: false,
      message: 'console.error: level not found (portrait, landscape)',
    });
    expect(check(gathered('applovin', { orientations }), 'no-console-errors')).toMatchObject({ severity: 'warning', passed: false });
  });

  it('cta-reaches-bridge: only a call the network counts as its CTA, made after the tap', () => {
    const complete = [{ name: 'parent.postMessage', args: ['complete'], orientation: 'portrait' as const, afterInput: true }];
    expect(check(gathered('vungle', { bridgeCalls: complete }), 'cta-reaches-bridge')).toMatchObject({
      severity: 'warning',
      passed: false,
      message: 'a tap at the centre of the screen reached no parent.postMessage(…) call',
    });
    const download = [{ name: 'parent.postMessage', args: ['download'], orientation: 'landscape' as const, afterInput: true }];
    expect(check(gathered('vungle', { bridgeCalls: download }), 'cta-reaches-bridge').message).toBe('a tap reached parent.postMessage("download")');
    const early = [{ name: 'mraid.open', args: [STORE_URL], orientation: 'portrait' as const, afterInput: false }];
    expect(check(gathered('applovin', { bridgeCalls: early }), 'cta-reaches-bridge').message).toBe(
      `a tap at the centre of the screen reached no mraid.open(…) call; mraid.open("${STORE_URL}") was called before any input`,
    );
  });

  it('muted-until-interaction: names the sounds started before the first input', () => {
    const orientations = [orientation('portrait', { soundsBeforeInput: ['AudioBufferSourceNode.start()', '<audio autoplay>'] }), orientation('landscape')];
    expect(check(gathered('liftoff', { orientations }), 'muted-until-interaction')).toMatchObject({
      severity: 'warning',
      passed: false,
      message: 'sound started before the first input: AudioBufferSourceNode.start() (portrait); <audio autoplay> (portrait)',
    });
  });
});

describe('container data', () => {
  it('describes every network, with the scripts it serves itself', () => {
    for (const network of NETWORKS) {
      expect(CONTAINERS[network].apis.length).toBeGreaterThan(0);
      expect(containerScript(network, 'host')).toContain('function readyOnce()');
    }
    expect(containerScripts('google')).toEqual([GOOGLE_EXIT_API_URL]);
    expect(containerScripts('unity')).toEqual(['mraid.js']);
    expect(containerScripts('meta')).toEqual([]);
    expect(CONTAINERS.unity).toMatchObject({ mraid: { version: '3.0' }, readiness: 'mraid-viewable' });
    expect(CONTAINERS.chartboost).toMatchObject({ mraid: { version: '2.0', startsReady: true } });
  });

  it('formats and matches bridge calls', () => {
    expect(formatBridgeCall({ name: 'mraid.open', args: ['https://x.test/a', 2] })).toBe('mraid.open("https://x.test/a", 2)');
    expect(formatBridgeCall({ name: 'ExitApi.exit', args: [] })).toBe('ExitApi.exit()');
    expect(matchesCall({ name: 'parent.postMessage', args: ['download', '*'] }, CONTAINERS.vungle.cta)).toBe(true);
    expect(matchesCall({ name: 'parent.postMessage', args: ['complete'] }, CONTAINERS.vungle.cta)).toBe(false);
    expect(matchesCall({ name: 'mraid.open', args: [] }, CONTAINERS.snapchat.cta)).toBe(true);
  });
});
