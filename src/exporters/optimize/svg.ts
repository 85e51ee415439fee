// SVG: svgo's default preset, except what assumes nothing outside the file looks inside it: an
// id may be the target of `sprite.svg#icon` from the HTML or of the game's scripts, so ids are
// never renamed or dropped (cleanupIds), nor are unreferenced <symbol>s and other hidden
// elements (removeHiddenElems). svgo is loaded on first use: it is large, and most games have no SVG.
import { extensionOf } from '../references.js';
import type { FileKind, StepOutcome } from './types.js';

export const svg: FileKind = {
  name: 'svg',
  version: 1,
  matches: (file) => extensionOf(file.fileName) === 'svg' || file.contentType.startsWith('image/svg+xml'),
  async lossless(bytes): Promise<StepOutcome> {
    const { optimize } = await import('svgo');
    try {
      const { data } = optimize(bytes.toString('utf8'), {
        multipass: true,
        plugins: [{ name: 'preset-default', params: { overrides: { cleanupIds: false, removeHiddenElems: false } } }],
      });
      return { bytes: Buffer.from(data), action: 'minify SVG (svgo)' };
    } catch {
      return { kept: 'kept as is: svgo cannot parse it' };
    }
  },
};
