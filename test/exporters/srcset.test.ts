// srcset by the HTML standard's parsing rules (WHATWG "parse a srcset attribute"): a data: URL
// keeps its commas, descriptors and spacing survive the rewrite, and a srcset browsers would
// not use is named by the export's validation instead of being split wrongly.
import { describe, expect, it } from 'vitest';
import { buildArtifact, type ExportInput } from '../../src/exporters/pipeline.js';
import { parseSrcset, rewriteSrcset } from '../../src/exporters/references.js';
import { artifactFiles, inMemorySource, SAMPLE_CONFIG, sampleGame } from '../helpers/sample-game.js';

const PIXEL = 'data:image/png;base64,iVBORw0KGgo=';

/** The sample game with `img` added to its page. */
function withImage(img: string) {
  const game = sampleGame();
  game.entry = { ...game.entry, bytes: Buffer.from(game.entry.bytes.toString().replace('</body>', `${img}</body>`)) };
  return game;
}

const input = (network: ExportInput['network'], game: ReturnType<typeof sampleGame>): ExportInput => ({
  network,
  name: 'Meadow Mayhem',
  entry: inMemorySource(game.entry),
  assets: game.assets.map(inMemorySource),
  config: SAMPLE_CONFIG,
});

/** The srcset of the exported <img id="hero">. */
function heroSrcset(bytes: Uint8Array): string {
  const files = artifactFiles(bytes);
  const html = [...files].find(([name]) => name.endsWith('.html'))![1].toString();
  return /<img id="hero" srcset="([^"]*)"/.exec(html)![1]!.replaceAll('&amp;', '&');
}

describe('srcset parsing', () => {
  it('keeps the commas of a data: URL inside its candidate', () => {
    expect(parseSrcset(`${PIXEL} 1x`)).toEqual([{ url: PIXEL, start: 0 }]);
    expect(parseSrcset(`${PIXEL} 1x, hero@2x.png 2x`).map((c) => c.url)).toEqual([PIXEL, 'hero@2x.png']);
    expect(parseSrcset('a.png,b.png 2x').map((c) => c.url)).toEqual(['a.png,b.png']);
    expect(parseSrcset(' small.png  480w ,\n large.png 1080w').map((c) => c.url)).toEqual(['small.png', 'large.png']);
    expect(parseSrcset('   ')).toEqual([]);
  });

  it('rewrites only the URLs, keeping descriptors and spacing as written', () => {
    expect(rewriteSrcset(` a.png  1.5x ,${PIXEL} 2x`, (url) => url.toUpperCase())).toBe(` A.PNG  1.5x ,${PIXEL.toUpperCase()} 2x`);
  });
});

describe('srcset in an export', () => {
  it('leaves a data: URL candidate alone and inlines the file candidates beside it', async () => {
    const game = withImage(`<img id="hero" srcset="${PIXEL} 1x, logo.png 2x" alt="">`);
    const artifact = await buildArtifact(input('applovin', game));
    const logo = game.assets.find((a) => a.fileName === 'logo.png')!;
    expect(heroSrcset(artifact.bytes)).toBe(`${PIXEL} 1x, data:image/png;base64,${logo.bytes.toString('base64')} 2x`);
  });

  it('relinks the file candidates inside a ZIP', async () => {
    const artifact = await buildArtifact(input('mintegral', withImage(`<img id="hero" srcset="logo.png 480w, ${PIXEL} 1080w" alt="">`)));
    expect(heroSrcset(artifact.bytes)).toBe(`logo.png 480w, ${PIXEL} 1080w`);
  });

  it('fails an export whose srcset browsers would not use, naming it', async () => {
    const failure = (await buildArtifact(input('applovin', withImage('<img id="hero" srcset="logo.png 1x 2x" alt="">'))).catch((e: unknown) => e)) as Error;
    expect(failure.message).toMatch(/srcset "logo\.png 1x 2x" is not valid/);
  });
});
