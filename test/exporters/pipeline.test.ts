// The shared pipeline, network by network, on the sample game (no database or store needed).
import { describe, expect, it } from 'vitest';
import { buildArtifact, ExportFailure, type ExportInput } from '../../src/exporters/pipeline.js';
import { NETWORK_RULES, NETWORKS } from '../../src/exporters/rules.js';
import { artifactFiles, expectSampleArtifact, inMemorySource, SAMPLE_CONFIG, type SampleFile, sampleGame } from '../helpers/sample-game.js';

function input(network: ExportInput['network'], game = sampleGame(), config: Record<string, unknown> = SAMPLE_CONFIG): ExportInput {
  return { network, name: 'Meadow Mayhem', entry: inMemorySource(game.entry), assets: game.assets.map(inMemorySource), config };
}

describe.each(NETWORKS)('export of the sample game to %s', (network) => {
  it('produces a valid artifact with the assets, the bridge and the config', async () => {
    const artifact = await buildArtifact(input(network));
    expectSampleArtifact(network, artifact.bytes);
    expect(artifact.contentType).toBe(NETWORK_RULES[network].output === 'html' ? 'text/html; charset=utf-8' : 'application/zip');
    expect(artifact.size).toBe(artifact.bytes.length);
    expect(artifact.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(artifact.report.assets.map((a) => a.fileName).sort()).toEqual(['game.js', 'level.json', 'logo.png', 'style.css']);
    expect(artifact.report.assets.find((a) => a.fileName === 'logo.png')).toMatchObject({ size: 89 });
  });
});

describe('pipeline rules', () => {
  it('declares the orientation for Google and TikTok from config.orientation', async () => {
    const google = artifactFiles((await buildArtifact(input('google'))).bytes).get('index.html')!.toString();
    expect(google).toContain('<meta name="ad.orientation" content="portrait">');
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
    expect(failure.message).toMatch(/^The meta export is 2\.\d\d MB \(\d+ bytes\), over the network's limit of 2\.00 MB \(2000000 bytes\)\. Largest assets: huge\.png \(2\.13 MB\), /);
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
    const html = (await buildArtifact(input('applovin', game))).bytes.toString();
    expect(html).toContain('var s = "<\\/script><b>";');
  });

  it('produces the same bytes twice (stable checksum)', async () => {
    const [a, b] = [await buildArtifact(input('snapchat')), await buildArtifact(input('snapchat'))];
    expect(a.checksum).toBe(b.checksum);
  });
});
