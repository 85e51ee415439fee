// An uploaded page is untrusted input: nothing that walks it may recurse once per level of
// nesting, or a deep enough page exhausts the call stack (CONTRACT §8, "nothing recursive
// walks untrusted input").
import { describe, expect, it } from 'vitest';
import { elements, parseHtml } from '../../src/exporters/html.js';
import { buildArtifact } from '../../src/exporters/pipeline.js';
import { artifactFiles, inMemorySource, SAMPLE_CONFIG, sampleGame } from '../helpers/sample-game.js';

const DEPTH = 50_000;

describe('a page nested 50,000 elements deep', () => {
  it('is walked in document order, template content included', () => {
    const page = parseHtml(`<body><p><i></i></p><template><b></b></template><s></s>${'<div>'.repeat(DEPTH)}x</body>`);
    const names = elements(page).map((e) => e.tagName);
    expect(names.slice(0, 8)).toEqual(['html', 'head', 'body', 'p', 'i', 'template', 'b', 's']);
    expect(names.filter((n) => n === 'div')).toHaveLength(DEPTH);
  });

  it('exports', async () => {
    const game = sampleGame();
    const html = game.entry.bytes.toString().replace('</body>', `${'<div>'.repeat(DEPTH)}<img src="logo.png">${'</div>'.repeat(DEPTH)}</body>`);
    const artifact = await buildArtifact({
      network: 'applovin',
      name: 'Deep',
      entry: inMemorySource({ ...game.entry, bytes: Buffer.from(html) }),
      assets: game.assets.map(inMemorySource),
      config: SAMPLE_CONFIG,
    });
    expect(artifactFiles(artifact.bytes).get('single.html')!.toString()).toContain('<img src="data:image/png;base64,');
  });
});
