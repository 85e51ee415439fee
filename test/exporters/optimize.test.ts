// CONTRACT §9 optimization, through the pipeline on in-memory files: what `none`, `lossless` and
// `fit` do to each kind of file, the report, the cache, and that the game's code behaves the same.
import { runInNewContext } from 'node:vm';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildArtifact, ExportFailure, type ExportInput, OptimizationCache } from '../../src/exporters/pipeline.js';
import { photoPng } from '../helpers/photo.js';
import { artifactFiles, inMemorySource, SAMPLE_CONFIG, type SampleFile, sampleFile, sampleGame } from '../helpers/sample-game.js';

const MB = 1_000_000;

/** The sample game plus `extra` files, the entry HTML showing each extra image. */
function gameWith(extra: SampleFile[]) {
  const game = sampleGame();
  const images = extra.filter((f) => f.contentType.startsWith('image/')).map((f) => `<img src="${f.fileName}">`);
  game.entry = { ...game.entry, bytes: Buffer.from(game.entry.bytes.toString().replace('</body>', `${images.join('')}</body>`)) };
  game.assets.push(...extra);
  return game;
}

function input(network: ExportInput['network'], optimize: ExportInput['optimize'], game = sampleGame()): ExportInput {
  return { network, name: 'Photo Test', entry: inMemorySource(game.entry), assets: game.assets.map(inMemorySource), config: SAMPLE_CONFIG, optimize };
}

/** The data URI an <img> of the single-HTML artifact shows for `fileName`'s position, decoded. */
function inlinedImages(html: string): Buffer[] {
  return [...html.matchAll(/<img[^>]* src="data:image\/png;base64,([^"]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64'));
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as Error,
  );

describe('a 3.5 MB photo-like PNG exported to meta (2 MB)', () => {
  let photo: SampleFile;
  beforeAll(async () => {
    photo = { fileName: 'photo.png', contentType: 'image/png', bytes: await photoPng(1420, 1120) };
    expect(photo.bytes.length).toBeGreaterThan(3.4 * MB);
  });

  it('fails for size with optimize none, before loading it', async () => {
    const error = await failure(buildArtifact(input('meta', 'none', gameWith([photo]))));
    expect(error).toBeInstanceOf(ExportFailure);
    expect(error!.message).toMatch(
      /^The meta export cannot fit: its files total 3\.\d\d MB \(\d+ bytes\), of which 3\.\d\d MB \(\d+ bytes\) no step of optimize "none" can make smaller, over the network's limit of 2\.00 MB \(2000000 bytes\)\. Largest files: photo\.png/,
    );
  });

  it('fails for size with lossless, which cannot shrink a photo', async () => {
    const error = await failure(buildArtifact(input('meta', 'lossless', gameWith([photo]))));
    expect(error!.message).toMatch(
      /^The meta export is 4\.\d\d MB \(\d+ bytes\), over the network's limit of 2\.00 MB \(2000000 bytes\)\. Largest assets: photo\.png/,
    );
  });

  it('fits under 2 MB with fit: the photo is still a PNG of its size, under its own name', async () => {
    const artifact = await buildArtifact(input('meta', 'fit', gameWith([photo])));
    expect(artifact.size).toBeLessThanOrEqual(2 * MB);
    const shown = inlinedImages(artifact.bytes.toString()).at(-1)!;
    expect(await sharp(shown).metadata()).toMatchObject({ format: 'png', width: 1420, height: 1120 });
    const photoStep = artifact.report.optimization.steps.filter((s) => s.fileName === 'photo.png').at(-1)!;
    expect(photoStep).toEqual({ fileName: 'photo.png', action: 'palette PNG, 256 colours', bytesBefore: photo.bytes.length, bytesAfter: shown.length });
    expect(artifact.report.assets.find((a) => a.fileName === 'photo.png')).toMatchObject({ contentType: 'image/png', size: shown.length });
    const { optimization } = artifact.report;
    expect(optimization.mode).toBe('fit');
    expect(optimization.bytesAfter).toBe(optimization.bytesBefore - optimization.steps.reduce((sum, s) => sum + s.bytesBefore - s.bytesAfter, 0));
  });

  it('downscales beyond the largest useful size only when quality steps are not enough', async () => {
    const wide = { fileName: 'wide.png', contentType: 'image/png', bytes: await photoPng(2400, 300, 7) };
    const artifact = await buildArtifact(input('meta', 'fit', gameWith([wide])));
    const step = artifact.report.optimization.steps.filter((s) => s.fileName === 'wide.png').at(-1)!;
    expect(step.action).toBe('PNG, downscaled to fit 2048 px');
    const shown = inlinedImages(artifact.bytes.toString()).at(-1)!;
    expect(await sharp(shown).metadata()).toMatchObject({ format: 'png', width: 2048, height: 256 });
  });

  it('fails with the usual size message when nothing left can make it fit', async () => {
    const photo = { fileName: 'photo.png', contentType: 'image/png', bytes: await photoPng(600, 500, 2) };
    const font = { fileName: 'font.woff2', contentType: 'font/woff2', bytes: Buffer.alloc(1_500_000, 3) };
    const error = await failure(buildArtifact(input('meta', 'fit', gameWith([photo, font]))));
    expect(error!.message).toMatch(
      /^The meta export is 2\.\d\d MB \(\d+ bytes\), over the network's limit of 2\.00 MB \(2000000 bytes\)\. Largest assets: font\.woff2/,
    );
  });
});

describe('lossless', () => {
  it('removes 200 KB of JS comments, and reports a step per file', async () => {
    const game = sampleGame();
    const script = game.assets.find((a) => a.fileName === 'game.js')!;
    const comments = Array.from({ length: 2000 }, (_, i) => `// Comment ${i}: ${'x'.repeat(88)}\n`).join('');
    script.bytes = Buffer.concat([Buffer.from(comments), script.bytes]);
    expect(comments.length).toBeGreaterThan(200_000);

    const plain = await buildArtifact(input('applovin', 'none', game));
    const artifact = await buildArtifact(input('applovin', 'lossless', game));
    expect(plain.bytes.toString()).toContain('// Comment 1999');
    expect(artifact.bytes.toString()).not.toContain('Comment');
    expect(plain.size - artifact.size).toBeGreaterThan(200_000);

    const steps = artifact.report.optimization.steps;
    expect(steps.map((s) => [s.fileName, s.action])).toEqual([
      ['index.html', 'minify HTML (comments, whitespace, inline scripts and styles)'],
      ['style.css', 'minify CSS (esbuild)'],
      ['game.js', 'minify JS (esbuild)'],
      ['level.json', 'minify JSON'],
      ['logo.png', 'kept as is: no smaller identical encoding'],
    ]);
    const js = steps.find((s) => s.fileName === 'game.js')!;
    expect(js.bytesBefore).toBe(script.bytes.length);
    expect(js.bytesBefore - js.bytesAfter).toBeGreaterThan(200_000);
  });

  it('re-packs a PNG only to identical pixels, and leaves animated PNGs alone', async () => {
    const raw = Buffer.alloc(64 * 64 * 4, 0);
    for (let i = 0; i < raw.length; i += 4) raw.writeUInt32BE(i % 512 < 256 ? 0xff0000ff : 0x00ff0080, i);
    const loose = await sharp(raw, { raw: { width: 64, height: 64, channels: 4 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const game = gameWith([{ fileName: 'tiles.png', contentType: 'image/png', bytes: loose }]);
    const artifact = await buildArtifact(input('snapchat', 'lossless', game));
    const packed = artifactFiles(artifact.bytes).get('tiles.png')!;
    expect(packed.length).toBeLessThan(loose.length / 10);
    expect(await sharp(packed).raw().toBuffer()).toEqual(raw);

    // An APNG (acTL chunk before IDAT): sharp would keep one frame, so it is not touched.
    const acTL = Buffer.from('000000086163544c' + '00000002' + '00000000' + '00000000', 'hex');
    const animated = Buffer.concat([loose.subarray(0, 33), acTL, loose.subarray(33)]);
    const again = await buildArtifact(input('snapchat', 'lossless', gameWith([{ fileName: 'tiles.png', contentType: 'image/png', bytes: animated }])));
    expect(artifactFiles(again.bytes).get('tiles.png')).toEqual(animated);
    expect(again.report.optimization.steps.find((s) => s.fileName === 'tiles.png')?.action).toBe('kept as is: animated PNG');
  });

  it('strips JPEG metadata without touching the image data, keeping the orientation', async () => {
    const photo = await sharp(await photoPng(120, 80))
      .jpeg({ quality: 90 })
      .withExif({ IFD0: { Copyright: 'x'.repeat(5000) } })
      .toBuffer();
    const rotated = await sharp(await photoPng(120, 80))
      .jpeg({ quality: 90 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const game = gameWith([
      { fileName: 'photo.jpg', contentType: 'image/jpeg', bytes: photo },
      { fileName: 'rotated.jpg', contentType: 'image/jpeg', bytes: rotated },
    ]);
    const files = artifactFiles((await buildArtifact(input('snapchat', 'lossless', game))).bytes);
    const stripped = files.get('photo.jpg')!;
    expect(stripped.length).toBeLessThan(photo.length - 5000);
    expect(await sharp(stripped).raw().toBuffer()).toEqual(await sharp(photo).raw().toBuffer());
    expect(photo.subarray(photo.indexOf(Buffer.from([0xff, 0xda])))).toEqual(stripped.subarray(stripped.indexOf(Buffer.from([0xff, 0xda]))));
    expect((await sharp(files.get('rotated.jpg')!).metadata()).orientation).toBe(6);
  });

  it('keeps what the game depends on: syntax level, function names, function source, globals, JSON numbers, CSS variables, SVG ids', async () => {
    const es5 = `/* The game's main loop, written for old web views. */
      function main() {
        // A helper whose name the game reads back.
        var helper = function () { return 1 };
        var longLocalName = { helper: helper };
        var fallback = window.x != null ? window.x : 'none';
        return [helper.name, typeof longLocalName.helper, fallback].join(',');
      }
      var answer = main();`;
    const reflective = 'function f() { /* keep me */ return 1 } var src = Function.prototype.toString.call(f);';
    const numbers = '{ "big": 12345678901234567890, "huge": 1e400, "s": " a  b " }';
    const css = ':root { --gap: 4px ; --empty: ; }\n.a { margin: var(--gap) }';
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><!-- c --><symbol id="icon"><rect width="1" height="1"/></symbol></svg>';
    const game = gameWith([
      { fileName: 'es5.js', contentType: 'text/javascript', bytes: Buffer.from(es5) },
      { fileName: 'reflective.js', contentType: 'text/javascript', bytes: Buffer.from(reflective) },
      { fileName: 'numbers.json', contentType: 'application/json', bytes: Buffer.from(numbers) },
      { fileName: 'vars.css', contentType: 'text/css', bytes: Buffer.from(css) },
      { fileName: 'sprite.svg', contentType: 'image/svg+xml', bytes: Buffer.from(svg) },
    ]);
    const files = artifactFiles((await buildArtifact(input('snapchat', 'lossless', game))).bytes);
    const minified = files.get('es5.js')!.toString();
    expect(minified.length).toBeLessThan(es5.length);
    expect(minified).not.toMatch(/=>|\?\?|\?\.|\{helper\}/);
    expect(runInNewContext(`${minified}; answer`, { window: {} })).toBe(runInNewContext(`${es5}; answer`, { window: {} }));
    expect(files.get('reflective.js')!.toString()).toBe(reflective);
    expect(files.get('numbers.json')!.toString()).toBe('{"big":12345678901234567890,"huge":1e400,"s":" a  b "}');
    expect(files.get('vars.css')!.toString()).toMatch(/--gap: ?4px/);
    expect(files.get('vars.css')!.toString()).toMatch(/--empty: [;}]/);
    const sprite = files.get('sprite.svg')!.toString();
    expect(sprite).toContain('id="icon"');
    expect(sprite).not.toContain('<!--');
  });

  it('leaves whitespace alone where CSS makes it visible, and inside <pre>', async () => {
    const game = sampleGame();
    game.entry = {
      ...game.entry,
      bytes: Buffer.from(game.entry.bytes.toString().replace('</body>', '<pre>a\n   b</pre>\n\n   <p>one   two</p><!-- note --></body>')),
    };
    const collapsed = artifactFiles((await buildArtifact(input('vungle', 'lossless', game))).bytes)
      .get('ad.html')!
      .toString();
    expect(collapsed).toContain('<pre>a\n   b</pre>\n<p>one two</p>');
    expect(collapsed).not.toContain('note');

    const style = game.assets.find((a) => a.fileName === 'style.css')!;
    style.bytes = Buffer.concat([style.bytes, Buffer.from('\np { white-space: pre-wrap }')]);
    const kept = artifactFiles((await buildArtifact(input('vungle', 'lossless', game))).bytes)
      .get('ad.html')!
      .toString();
    expect(kept).toContain('<pre>a\n   b</pre>\n\n   <p>one   two</p>');
  });
});

describe('the cache of optimized files', () => {
  it('optimizes each file once when the variant is exported to another network', async () => {
    const cache = new OptimizationCache(32 * 1024 * 1024);
    const photo = { fileName: 'photo.png', contentType: 'image/png', bytes: await photoPng(1420, 1120) };
    const first = await buildArtifact(input('meta', 'fit', gameWith([photo])), { cache });
    const { misses } = cache.stats;
    expect(misses).toBeGreaterThan(5);

    const second = await buildArtifact(input('moloco', 'fit', gameWith([photo])), { cache });
    expect(cache.stats.misses).toBe(misses);
    // moloco's 5 MB take the photo as it is: the same lossless steps, no lossy one.
    expect(second.report.optimization.steps).toEqual(first.report.optimization.steps.slice(0, -1));
    const third = await buildArtifact(input('meta', 'fit', gameWith([photo])), { cache });
    expect(cache.stats.misses).toBe(misses);
    expect(third.report.optimization).toEqual(first.report.optimization);
    expect(third.checksum).toBe(first.checksum);
  });

  it('stays within its byte budget, dropping the least recently used', async () => {
    const cache = new OptimizationCache(4_000);
    const run = (text: string) => cache.outcome('js', Buffer.from(text), async () => ({ bytes: Buffer.alloc(1_500), action: 'x' }));
    await run('a');
    await run('b');
    await run('a'); // a is now the most recently used
    await run('c'); // over 4,000 bytes with the overhead: b goes
    expect(cache.stats).toEqual({ hits: 1, misses: 3 });
    await run('a');
    await run('b');
    expect(cache.stats).toEqual({ hits: 2, misses: 4 });
  });
});

describe('audio under fit', () => {
  it('says in the report that no encoder was found, and still fits with the other files', async () => {
    const music = { fileName: 'music.mp3', contentType: 'audio/mpeg', bytes: Buffer.alloc(1_100_000, 9) };
    const photo = { fileName: 'photo.png', contentType: 'image/png', bytes: await photoPng(600, 500, 3) };
    const artifact = await buildArtifact(input('meta', 'fit', gameWith([music, photo])), { ffmpegPath: '/nonexistent/ffmpeg' });
    expect(artifact.size).toBeLessThanOrEqual(2 * MB);
    expect(artifact.report.optimization.steps).toContainEqual({
      fileName: 'music.mp3',
      action: 'kept as is: no audio encoder (ffmpeg not found), so its bitrate could not be lowered',
      bytesBefore: 1_100_000,
      bytesAfter: 1_100_000,
    });
    expect(artifact.report.optimization.steps.filter((s) => s.fileName === 'photo.png').at(-1)?.action).toMatch(/^palette PNG/);
  });

  it('counts audio as fixed in the pre-check when no encoder is found', async () => {
    const music = { fileName: 'music.mp3', contentType: 'audio/mpeg', bytes: Buffer.alloc(2_100_000, 9) };
    const error = await failure(buildArtifact(input('meta', 'fit', gameWith([music])), { ffmpegPath: '/nonexistent/ffmpeg' }));
    expect(error!.message).toMatch(/^The meta export cannot fit: .* no step of optimize "fit" can make smaller/);
  });
});

it('sampleFile stays the uploaded bytes (the helper the other tests compare with)', () => {
  expect(sampleFile('logo.png').bytes.length).toBe(89);
});
