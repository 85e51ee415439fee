// The shared pipeline, network by network, on the sample game (no database or store needed).
import { describe, expect, it } from 'vitest';
import { buildArtifact, ExportFailure, type ExportInput } from '../../src/exporters/pipeline.js';
import { NETWORK_RULES, NETWORKS } from '../../src/exporters/rules.js';
import { artifactFiles, expectSampleArtifact, inMemorySource, SAMPLE_CONFIG, type SampleFile, sampleFile, sampleGame } from '../helpers/sample-game.js';

function input(
  network: ExportInput['network'],
  game = sampleGame(),
  config: Record<string, unknown> = SAMPLE_CONFIG,
  optimize: ExportInput['optimize'] = 'lossless',
): ExportInput {
  return { network, name: 'Meadow Mayhem', entry: inMemorySource(game.entry), assets: game.assets.map(inMemorySource), config, optimize };
}

describe.each(NETWORKS)('export of the sample game to %s', (network) => {
  it('produces a valid artifact with the assets, the bridge and the config', async () => {
    const artifact = await buildArtifact(input(network));
    expectSampleArtifact(network, artifact.bytes);
    expect(artifact.contentType).toBe(NETWORK_RULES[network].output === 'html' ? 'text/html; charset=utf-8' : 'application/zip');
    expect(artifact.size).toBe(artifact.bytes.length);
    expect(artifact.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(artifact.report.assets.map((a) => a.fileName).sort()).toEqual(['game.js', 'level.json', 'logo.png', 'style.css']);
    expect(artifact.report.assets.find((a) => a.fileName === 'logo.png')).toMatchObject({ contentType: 'image/png' });
    // No browser given: the runtime checks are skipped, and say so.
    expect(artifact.report.runtime).toMatchObject({ status: 'skipped', reason: 'browser validation was not requested', browser: null });
    expect(artifact.screenshots).toEqual([]);
  });

  it('with optimize none, carries every file byte for byte', async () => {
    const artifact = await buildArtifact(input(network, sampleGame(), SAMPLE_CONFIG, 'none'));
    expectSampleArtifact(network, artifact.bytes);
    const files = artifactFiles(artifact.bytes);
    const contents = NETWORK_RULES[network].output === 'html' ? [files.get('single.html')!.toString()] : [...files.values()].map((f) => f.toString('latin1'));
    for (const name of ['game.js', 'logo.png']) {
      const original = sampleFile(name).bytes;
      const text = name === 'game.js' ? original.toString() : original.toString(NETWORK_RULES[network].output === 'html' ? 'base64' : 'latin1');
      expect(
        contents.some((c) => c.includes(text)),
        name,
      ).toBe(true);
    }
    expect(artifact.report.optimization).toEqual({ mode: 'none', bytesBefore: expect.any(Number), bytesAfter: expect.any(Number), steps: [] });
    expect(artifact.report.optimization.bytesAfter).toBe(artifact.report.optimization.bytesBefore);
  });
});

describe('pipeline rules', () => {
  it('declares the orientation for Google, TikTok and Yandex from config.orientation', async () => {
    const google = artifactFiles((await buildArtifact(input('google'))).bytes)
      .get('index.html')!
      .toString();
    expect(google).toContain('<meta name="ad.orientation" content="portrait">');
    const yandex = artifactFiles((await buildArtifact(input('yandex', sampleGame(), { orientation: 'landscape' }))).bytes)
      .get('index.html')!
      .toString();
    expect(yandex).toContain('<meta name="ad.size" content="width=480,height=320">');
    const tiktok = artifactFiles((await buildArtifact(input('tiktok', sampleGame(), { orientation: 'landscape' }))).bytes);
    expect(JSON.parse(tiktok.get('config.json')!.toString())).toEqual({ playable_orientation: 2 });
  });

  it('inlines JSON into the HTML for Google, which accepts no .json file', async () => {
    const artifact = await buildArtifact(input('google'));
    expect(artifact.report.assets.find((a) => a.fileName === 'level.json')).toMatchObject({ placement: 'asset-map' });
  });

  it('fails naming a referenced file that is not part of the variant', async () => {
    const game = sampleGame();
    game.assets = game.assets.filter((a) => a.fileName !== 'logo.png');
    const failure = await buildArtifact(input('applovin', game)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ExportFailure);
    expect((failure as Error).message).toBe(
      "index.html references files that are not part of the variant: logo.png. Add them to the variant's assetIds or remove the references.",
    );
  });

  it('fails on an external reference, naming it', async () => {
    const game = sampleGame();
    game.entry = { ...game.entry, bytes: Buffer.from('<html><head><script src="https://cdn.example.com/lib.js"></script></head></html>') };
    const failure = (await buildArtifact(input('unity', game)).catch((e: unknown) => e)) as Error;
    expect(failure.message).toContain('https://cdn.example.com/lib.js');
  });

  it('fails over the size limit with the size, the limit and the largest assets', async () => {
    const game = sampleGame();
    const big: SampleFile = { fileName: 'huge.png', contentType: 'image/png', bytes: Buffer.alloc(1_600_000, 7) };
    game.assets.push(big);
    game.entry = { ...game.entry, bytes: Buffer.from(game.entry.bytes.toString().replace('</body>', '<img src="huge.png"></body>')) };
    const failure = (await buildArtifact(input('meta', game)).catch((e: unknown) => e)) as Error;
    expect(failure).toBeInstanceOf(ExportFailure);
    expect(failure.message).toMatch(
      /^The meta export is 2\.\d\d MB \(\d+ bytes\), over the network's limit of 2\.00 MB \(2000000 bytes\)\. Largest assets: huge\.png \(2\.13 MB\), /,
    );
  });

  it('refuses audio for Google', async () => {
    const game = sampleGame();
    game.assets.push({ fileName: 'music.mp3', contentType: 'audio/mpeg', bytes: Buffer.from('ID3') });
    const failure = (await buildArtifact(input('google', game)).catch((e: unknown) => e)) as Error;
    expect(failure.message).toBe('google does not accept audio/, video/ files: music.mp3');
  });

  it('escapes a closing script tag inside inlined script text', async () => {
    const game = sampleGame();
    const js = game.assets.find((a) => a.fileName === 'game.js')!;
    js.bytes = Buffer.concat([js.bytes, Buffer.from('\nvar s = "</script><b>";\n')]);
    const html = (await buildArtifact(input('applovin', game, SAMPLE_CONFIG, 'none'))).bytes.toString();
    expect(html).toContain('var s = "<\\/script><b>";');
    const minified = (await buildArtifact(input('applovin', game))).bytes.toString();
    expect(minified).toContain('s="<\\/script><b>"');
    expect(minified).not.toContain('</script><b>');
  });

  it('moves an inlined defer script to the end of <body>, in order, so it still runs after the document is parsed', async () => {
    const game = sampleGame();
    const html = game.entry.bytes.toString();
    game.entry.bytes = Buffer.from(
      html
        .replace('<script src="js/game.js"></script>', '<script>var inBody = 1;</script>')
        .replace(
          '</head>',
          '<script defer src="js/game.js"></script><script defer src="data:text/javascript,var%20second%20%3D%202%3B"></script>' +
            '<script defer async src="data:text/javascript,var%20early%20%3D%203%3B"></script>' +
            '<script type="module" defer src="data:text/javascript,var%20mod%20%3D%204%3B"></script>' +
            '<template><script defer src="data:text/javascript,var%20never%20%3D%205%3B"></script></template></head>',
        ),
    );
    const out = (await buildArtifact(input('applovin', game, SAMPLE_CONFIG, 'none'))).bytes.toString();
    const body = out.slice(out.indexOf('<body>'));
    const at = (text: string) => out.indexOf(text);
    // Deferred classic scripts: last in <body>, in their order, without the attribute inline scripts ignore.
    expect(body.trimEnd()).toMatch(/<script>\/\/ A tiny sample game[\s\S]*<\/script><script>var second = 2;<\/script><\/body><\/html>$/);
    expect(at('var inBody = 1;')).toBeLessThan(at('// A tiny sample game'));
    // async, module and <template> scripts stay where they were.
    expect(at('var early = 3;')).toBeLessThan(at('<body>'));
    expect(at('var mod = 4;')).toBeLessThan(at('<body>'));
    expect(at('var never = 5;')).toBeLessThan(at('<body>'));
    expect(at('<template><script defer="">var never = 5;</script></template>')).toBeGreaterThan(0);
  });

  it('keeps the order of deferred scripts in a ZIP: files and inlined ones all move to the end of <body>', async () => {
    const game = sampleGame();
    game.entry.bytes = Buffer.from(
      game.entry.bytes
        .toString()
        .replace('<script src="js/game.js"></script>', '')
        .replace('</head>', '<script defer src="js/game.js"></script><script defer src="data:text/javascript,var%20second%20%3D%202%3B"></script></head>'),
    );
    const files = artifactFiles((await buildArtifact(input('google', game, SAMPLE_CONFIG, 'none'))).bytes);
    const html = files.get('index.html')!.toString();
    expect(html.replace(/\s+/g, '')).toMatch(/<scriptsrc="game\.js"><\/script><script>varsecond=2;<\/script><\/body><\/html>$/);
  });

  it('leaves the deferred scripts of a page without <body> (a frameset) where they are', async () => {
    const game = sampleGame();
    game.entry.bytes = Buffer.from('<!doctype html><html><head><script defer src="js/game.js"></script></head><frameset cols="*"></frameset></html>');
    const html = (await buildArtifact(input('applovin', game, SAMPLE_CONFIG, 'none'))).bytes.toString();
    expect(html).toMatch(/<script defer="">\/\/ A tiny sample game/);
    expect(html).toContain('<frameset');
  });

  it('names the file after the variant, accents dropped rather than turned into dashes', async () => {
    const artifact = await buildArtifact({ ...input('applovin'), name: 'Été Sale/2 — Ölçü' });
    expect(artifact.fileName).toBe('ete-sale-2-olcu-applovin.html');
  });

  it('produces the same bytes twice (stable checksum)', async () => {
    const [a, b] = [await buildArtifact(input('snapchat')), await buildArtifact(input('snapchat'))];
    expect(a.checksum).toBe(b.checksum);
  });
});
