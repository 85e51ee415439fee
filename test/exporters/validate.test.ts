// The validation step on deliberately broken artifacts: each breaks one rule of one network.
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { GOOGLE_EXIT_API_URL } from '../../src/exporters/rules.js';
import { validateArtifact } from '../../src/exporters/validate.js';

const MRAID_BRIDGE = '<script src="mraid.js"></script><script>mraid.open(url)</script>';
const page = (head: string, body = '') => Buffer.from(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`);
const zip = (files: Record<string, string | Uint8Array>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? Buffer.from(v) : v])));
const googleHead = `<meta name="ad.orientation" content="portrait,landscape"><script src="${GOOGLE_EXIT_API_URL}"></script><script>ExitApi.exit()</script>`;

describe('validateArtifact', () => {
  it('passes a minimal correct applovin playable', () => {
    expect(validateArtifact('applovin', page(MRAID_BRIDGE)).problems).toEqual([]);
  });

  it('flags an external script, image and CSS url()', () => {
    const html = page(
      `${MRAID_BRIDGE}<script src="https://cdn.example.com/phaser.js"></script><style>body{background:url(//img.example.com/bg.png)}</style>`,
      '<img src="http://example.com/a.png">',
    );
    expect(validateArtifact('applovin', html).problems).toEqual([
      'external reference https://cdn.example.com/phaser.js (<script> src)',
      'external reference //img.example.com/bg.png (<style>)',
      'external reference http://example.com/a.png (<img> src)',
    ]);
  });

  it('flags a file that was left as a relative reference in a single HTML', () => {
    expect(validateArtifact('unity', page(`${MRAID_BRIDGE}<script>mraid.isViewable()</script>`, '<img src="img/hero.png">')).problems).toEqual([
      'img/hero.png (<img> src) is not inlined',
    ]);
  });

  it('flags a missing bridge and a missing mraid.js', () => {
    expect(validateArtifact('applovin', page('<script>console.log(1)</script>')).problems).toEqual([
      'mraid.js is not included',
      'the bridge call mraid.open( is missing',
    ]);
    expect(validateArtifact('meta', page('<script>window.open("x")</script>')).problems).toEqual(['the bridge call FbPlayableAd.onCTAClick() is missing']);
  });

  it('flags mraid.js where the network forbids it', () => {
    const html = page('<script src="mraid.js"></script><script>FbPlayableAd.onCTAClick()</script>');
    expect(validateArtifact('moloco', html).problems).toContain('moloco does not allow mraid.js');
  });

  it('flags a base64 script src for Meta', () => {
    const html = page('<script src="data:text/javascript;base64,YWxlcnQoMSk="></script><script>FbPlayableAd.onCTAClick()</script>');
    expect(validateArtifact('meta', html).problems).toEqual([
      'a script is loaded from a data: URI src (data:text/javascript;base64,…), which Meta refuses; ' +
        'the export inlines only JavaScript media types (data:text/javascript,…): give it one, or make the script a file of the variant',
    ]);
  });

  it('flags an artifact over the size limit', () => {
    const html = page(`<script>FbPlayableAd.onCTAClick()</script><!--${'x'.repeat(2_000_000)}-->`);
    expect(validateArtifact('meta', html).problems).toEqual([`the artifact is ${html.length} bytes, over the limit of 2000000`]);
  });

  it('flags a ZIP where one HTML file is expected, and the reverse', () => {
    expect(validateArtifact('moloco', zip({ 'index.html': '<html></html>' })).problems).toEqual(['expected one HTML file, got a ZIP']);
    expect(validateArtifact('snapchat', page(MRAID_BRIDGE)).problems).toEqual(['expected a ZIP archive']);
  });

  it('checks the Google ZIP: layout, file types, count, nested archives, meta tag, exit API', () => {
    const good = { 'index.html': page(googleHead, '<img src="a.png">'), 'a.png': new Uint8Array([1]) };
    expect(validateArtifact('google', zip(good)).problems).toEqual([]);
    expect(validateArtifact('google', zip({ 'main.html': good['index.html'] })).problems).toEqual(['the ZIP has no index.html']);
    expect(validateArtifact('google', zip({ ...good, 'music.mp3': 'x', 'inner.zip': 'x', 'b.json': '{}' })).problems).toEqual([
      'music.mp3: file type .mp3 is not allowed (allowed: html, css, js, gif, png, jpg, jpeg, svg)',
      'nested archive inner.zip',
      'b.json: file type .json is not allowed (allowed: html, css, js, gif, png, jpg, jpeg, svg)',
    ]);
    const many = Object.fromEntries(Array.from({ length: 512 }, (_, i) => [`f${i}.png`, 'x']));
    expect(validateArtifact('google', zip({ ...good, ...many })).problems).toEqual(['the ZIP holds 514 files, more than 512']);
    expect(validateArtifact('google', zip({ 'index.html': page('<script>ExitApi.exit()</script>') })).problems).toEqual([
      `the network's script ${GOOGLE_EXIT_API_URL} is not included`,
      '<meta name="ad.orientation"> (or ad.size) is missing',
    ]);
  });

  it('flags a ZIP reference to a file that is not in the archive, also from a CSS file', () => {
    const files = {
      'index.html': page(`${MRAID_BRIDGE}<link rel="stylesheet" href="style.css">`, '<img src="a.png">'),
      'style.css': 'body { background: url("bg.png") }',
    };
    expect(validateArtifact('snapchat', zip(files)).problems).toEqual([
      'a.png (<img> src) is not in the ZIP',
      'bg.png (style.css) is not in the ZIP',
      "the bridge call mraid.open('{{ .ClickTrackingUrl }}') is missing",
    ]);
  });

  it('checks the Mintegral layout name/name.html', () => {
    const html = page('<script>window.install(); window.gameEnd(); window.gameReady(); window.gameStart; window.gameClose</script>');
    expect(validateArtifact('mintegral', zip({ 'summer/summer.html': html })).problems).toEqual([]);
    expect(validateArtifact('mintegral', zip({ 'summer/index.html': html })).problems).toEqual(['the ZIP has no {name}/{name}.html']);
  });

  it('checks TikTok config.json and the absence of mraid.js', () => {
    const html = page('<script>window.openAppStore()</script>');
    expect(validateArtifact('tiktok', zip({ 'index.html': html, 'config.json': '{"playable_orientation":0}' })).problems).toEqual([]);
    expect(validateArtifact('tiktok', zip({ 'index.html': html })).problems).toEqual(['config.json is missing at the top of the ZIP']);
    expect(
      validateArtifact(
        'tiktok',
        zip({ 'index.html': page('<script src="mraid.js"></script><script>window.openAppStore()</script>'), 'config.json': '{"playable_orientation":5}' }),
      ).problems,
    ).toEqual(['mraid.js (<script> src) is not in the ZIP', 'tiktok does not allow mraid.js', 'config.json: playable_orientation must be 0, 1 or 2']);
  });

  it('checks both Vungle messages', () => {
    const html = page("<script>parent.postMessage('download', '*')</script>");
    expect(validateArtifact('vungle', zip({ 'ad.html': html })).problems).toEqual(["the bridge call parent.postMessage('complete', '*') is missing"]);
  });

  it('refuses any DAPI reference for ironSource (MRAID only)', () => {
    expect(validateArtifact('ironsource', page(MRAID_BRIDGE)).problems).toEqual([]);
    expect(validateArtifact('ironsource', page(`${MRAID_BRIDGE}<script>if (typeof dapi !== 'undefined') dapi.openStoreUrl()</script>`)).problems).toEqual([
      'the artifact references DAPI (dapi), which ironSource no longer accepts: use MRAID',
    ]);
  });

  it('refuses mraid.close() for Chartboost and useCustomClose() for InMobi', () => {
    expect(validateArtifact('chartboost', page(`${MRAID_BRIDGE}<script>mraid.close()</script>`)).problems).toEqual([
      'the ad calls mraid.close(); Chartboost adds its own close button',
    ]);
    expect(validateArtifact('inmobi', page(`${MRAID_BRIDGE}<script>mraid.useCustomClose(true)</script>`)).problems).toEqual([
      "the ad calls useCustomClose(); InMobi playables keep the container's close button",
    ]);
    expect(validateArtifact('adcolony', page(MRAID_BRIDGE)).problems).toEqual([]);
  });

  it('checks the Liftoff layout: one folder holding index.html, ASCII names', () => {
    const html = page(MRAID_BRIDGE, '<img src="a.png">');
    expect(validateArtifact('liftoff', zip({ 'summer/index.html': html, 'summer/a.png': 'x' })).problems).toEqual([]);
    expect(validateArtifact('liftoff', zip({ 'index.html': html })).problems).toEqual(['the ZIP has no {name}/index.html']);
    expect(validateArtifact('liftoff', zip({ 'summer/index.html': html, 'summer/a.png': 'x', 'summer/é.png': 'x', 'stray.txt': 'x' })).problems).toEqual([
      'summer/é.png: Liftoff needs ASCII file names',
      "stray.txt is outside the ZIP's one folder summer/",
    ]);
  });

  it('checks the Yandex ZIP: file names, index.html size, ad.size meta, 20 files', () => {
    const head = '<meta name="ad.size" content="width=320,height=480"><script>yandexHTML5BannerApi.getClickURLNum(1)</script>';
    expect(validateArtifact('yandex', zip({ 'index.html': page(head), 'a.png': 'x' })).problems).toEqual([]);
    const big = page(`${head}<!--${'x'.repeat(500_000)}-->`);
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.png`, 'x']));
    expect(validateArtifact('yandex', zip({ 'index.html': big, 'logo (1).png': 'x', ...many })).problems).toEqual([
      'the ZIP holds 22 files, more than 20',
      'logo (1).png: Yandex allows only Latin letters, digits and -._~ in file names',
      `index.html is ${big.length} bytes, over Yandex's 500000`,
    ]);
    expect(validateArtifact('yandex', zip({ 'index.html': page('<script>yandexHTML5BannerApi.getClickURLNum(1)</script>') })).problems).toEqual([
      '<meta name="ad.size"> is missing',
    ]);
  });
});
