// CONTRACT §14 over HTTP, without a browser (test/lanes/browser/existing-builds.test.ts runs the
// same builds): the export report names the API the build is written for (`report.entry.api`),
// parsed from the entry and its scripts — a name in a comment or a string does not count — and
// the artifact carries the adapter that API needs on that network, and only then: an MRAID build
// loses its mraid.js and gets an `mraid` shim where the network has no MRAID (and still passes
// the rules of TikTok, Vungle and Moloco, which forbid mraid.js), keeps the network's mraid.js
// where it has; a Luna build gets the Luna API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Network, NETWORK_RULES } from '../src/exporters/rules.js';
import { validateArtifact } from '../src/exporters/validate.js';
import { createTestApp, type RegisteredUser, type TestApp } from './helpers/app.js';
import { createSampleVariant, downloadArtifact, waitForExport } from './helpers/exports.js';
import { artifactFiles, fixtureGame, LUNA_CONFIG, SAMPLE_CONFIG, type sampleGame } from './helpers/sample-game.js';

let t: TestApp;
let user: RegisteredUser;

beforeAll(async () => {
  t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5', RATE_LIMIT_EXPORT_MAX: '500' });
  user = await t.register();
});
afterAll(() => t?.close());

type Game = ReturnType<typeof sampleGame>;
const MRAID_SHIM = 'window.mraid = {';
const LUNA_SHIM = 'window.Luna = window.Luna ||';
const SNAPCHAT_ADAPTER = 'mraid.open = function () { open.call(mraid, "{{ .ClickTrackingUrl }}"); }';

/** A build whose entry is `html` and whose only other file is game.js holding `script`. */
const build =
  (html: string, script = '') =>
  (game: Game) => {
    game.entry = { fileName: 'index.html', contentType: 'text/html', bytes: Buffer.from(html) };
    game.assets = [{ fileName: 'game.js', contentType: 'text/javascript', bytes: Buffer.from(script) }];
  };
const page = (body: string) => `<!doctype html><html><head><title>t</title></head><body><h1>Hi</h1>${body}</body></html>`;
const fixture = (dir: string) => (game: Game) => Object.assign(game, fixtureGame(dir));

/** Exports a variant made by `change` to each network; returns each export and its entry HTML. */
async function exportBuild(
  name: string,
  change: ((game: Game) => void) | undefined,
  networks: Network[],
  config: Record<string, unknown> = SAMPLE_CONFIG,
  options: { optimize?: string } = {},
) {
  const variant = await createSampleVariant(t, user, { name, config, ...(change ? { change } : {}) });
  const ids = await Promise.all(
    networks.map(async (network) => {
      const res = await t.as(user).post('/export', { variantId: variant.variant.id, network, ...options });
      expect(res.statusCode, res.body).toBe(202);
      return res.json().id as string;
    }),
  );
  const results = new Map<Network, { exported: any; html: string; bytes: Buffer }>();
  for (const [i, network] of networks.entries()) {
    const exported = await waitForExport(t, user, ids[i]!, 60_000);
    expect(exported.status, `${network}: ${exported.error}`).toBe('succeeded');
    const bytes = await downloadArtifact(t, exported);
    const html = [...artifactFiles(bytes)].find(([path]) => path.endsWith('.html'))![1].toString('utf8');
    results.set(network, { exported, html, bytes });
  }
  return results;
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('report.entry.api', () => {
  it('names the API of the sample game, the MRAID build, the Luna build and a build of none', { timeout: 120_000 }, async () => {
    const [sample, mraid, luna, none] = await Promise.all([
      exportBuild('Sample', undefined, ['applovin']),
      exportBuild('Tile Rush', fixture('mraid-native'), ['applovin']),
      exportBuild('Castle Siege', fixture('luna-api'), ['applovin'], LUNA_CONFIG),
      exportBuild('Plain', build(page('<script src="game.js"></script>'), 'document.title = "plain";'), ['applovin']),
    ]);
    // The sample game loads mraid.js but only ever calls window.playable.
    expect(sample.get('applovin')!.exported.report.entry).toEqual({ fileName: 'index.html', size: expect.any(Number), api: 'playable' });
    expect(mraid.get('applovin')!.exported.report.entry.api).toBe('mraid');
    expect(luna.get('applovin')!.exported.report.entry.api).toBe('luna');
    expect(none.get('applovin')!.exported.report.entry.api).toBe('none');
  });

  it('reads scripts as JavaScript: names in comments and strings do not count, inline handlers do', { timeout: 120_000 }, async () => {
    const commented = build(
      page('<script>/* window.playable.cta() */ var hint = "Luna.Unity.Playable.InstallFullGame()";</script><script src="game.js"></script>'),
      "// mraid.open(url) once MRAID is ready\nvar note = 'mraid.getState()';",
    );
    const handler = build(page('<button onclick="mraid.open(\'https://x.test/store\')">Install</button>'));
    const lunaEvents = build(page('<script src="game.js"></script>'), "window.addEventListener('luna:unmute', function () {});");
    // A script that breaks off in the middle is read up to the break, and the export goes on.
    const broken = build(page('<script src="game.js"></script>'), "mraid.addEventListener('ready', start); var s = 'unterminated");
    const [a, b, c, d] = await Promise.all([
      // optimize "none": the comments reach the detection as written.
      exportBuild('Commented', commented, ['meta'], SAMPLE_CONFIG, { optimize: 'none' }),
      exportBuild('Handler', handler, ['meta']),
      exportBuild('Luna events', lunaEvents, ['meta']),
      exportBuild('Broken', broken, ['meta']),
    ]);
    expect(a.get('meta')!.exported.report.entry.api).toBe('none');
    expect(a.get('meta')!.html).toContain('// mraid.open(url) once MRAID is ready');
    expect(a.get('meta')!.html).not.toContain(MRAID_SHIM);
    expect(a.get('meta')!.html).not.toContain(LUNA_SHIM);
    expect(b.get('meta')!.exported.report.entry.api).toBe('mraid');
    expect(c.get('meta')!.exported.report.entry.api).toBe('luna');
    expect(d.get('meta')!.exported.report.entry.api).toBe('mraid');
  });
});

describe("the container's mraid.js", () => {
  it("is any reference by that name (any case, folder or query): dropped for the network's own or the shim, never the variant's file", {
    timeout: 120_000,
  }, async () => {
    // The game reaches mraid only through window['mraid'], which the tokenizer does not see as a
    // call; loading mraid.js alone makes it an MRAID build. The variant's own mraid.js (a
    // developer's stub) is not shipped: the network's or the shim stands in.
    const withStub = (game: Game) => {
      build(page('<script src="js/MRAID.js?v=2"></script><script src="game.js"></script>'), "var bridge = window['mraid']; document.title = typeof bridge;")(game);
      game.assets.push({ fileName: 'mraid.js', contentType: 'text/javascript', bytes: Buffer.from('window.mraid = { developerStub: true };') });
    };
    const lunaTemplate = build(page('<script src="game.js"></script>'), 'window.addEventListener(`luna:build`, function () {});');
    const [mraid, luna] = await Promise.all([exportBuild('Stubbed', withStub, ['applovin', 'meta', 'tiktok']), exportBuild('Luna template', lunaTemplate, ['meta'])]);
    for (const [network, { exported, html, bytes }] of mraid) {
      const native = NETWORK_RULES[network].mraid === 'required';
      expect(exported.report.entry.api, network).toBe('mraid');
      expect(html, network).not.toContain('developerStub');
      expect(html.toLowerCase().includes('mraid.js?v=2'), network).toBe(false);
      expect(count(html, '<script src="mraid.js"></script>'), network).toBe(native ? 1 : 0);
      expect(html.includes(MRAID_SHIM), network).toBe(!native);
      expect(validateArtifact(network, bytes).problems, network).toEqual([]);
    }
    expect(luna.get('meta')!.exported.report.entry.api).toBe('luna');
  });
});

describe('an MRAID-native build', () => {
  const NETWORKS: Network[] = ['applovin', 'ironsource', 'snapchat', 'tiktok', 'vungle', 'moloco', 'google', 'meta', 'mintegral'];

  it("keeps the network's mraid.js on MRAID networks and gets a shim elsewhere, passing each network's rules", { timeout: 120_000 }, async () => {
    const [mraid, sample] = await Promise.all([exportBuild('Tile Rush', fixture('mraid-native'), NETWORKS), exportBuild('Sample', undefined, NETWORKS)]);
    for (const network of NETWORKS) {
      const { exported, html, bytes } = mraid.get(network)!;
      const native = NETWORK_RULES[network].mraid === 'required';
      expect(count(html, 'mraid.js'), network).toBe(native ? 1 : 0);
      if (native) expect(html.indexOf('<script src="mraid.js"></script>'), network).toBeLessThan(html.indexOf('id="playable-runtime"'));
      expect(html.includes(MRAID_SHIM), network).toBe(!native);
      expect(html.includes(SNAPCHAT_ADAPTER), network).toBe(network === 'snapchat');
      expect(html, network).not.toContain(LUNA_SHIM);
      expect(validateArtifact(network, bytes).problems, network).toEqual([]);
      // The runtime's bytes are in the report: the shim adds to them; the sample game needs none.
      const runtimeBytes = sample.get(network)!.exported.report.runtimeBytes;
      expect(runtimeBytes, network).toBeGreaterThan(500);
      expect(sample.get(network)!.html, network).not.toContain(MRAID_SHIM);
      if (!native) expect(exported.report.runtimeBytes, network).toBeGreaterThan(runtimeBytes + 1000);
    }
  });
});

describe('a Luna build', () => {
  it('gets the Luna API and no mraid shim', { timeout: 60_000 }, async () => {
    const luna = await exportBuild('Castle Siege', fixture('luna-api'), ['google', 'unity'], LUNA_CONFIG);
    for (const [network, { html }] of luna) {
      expect(html, network).toContain(LUNA_SHIM);
      expect(html, network).not.toContain(MRAID_SHIM);
      expect(html, network).toContain('"GameConfig":{"title":"Castle Siege"}');
    }
  });
});
