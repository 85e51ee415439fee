// CSS: minified by esbuild for the web views ads run in (Chrome 58, Safari 11): newer syntax in
// the file is lowered, never introduced; custom properties keep their values token for token.
import { transform } from 'esbuild';
import { extensionOf } from '../references.js';
import type { FileKind, StepOutcome } from './types.js';

export const CSS_TARGET = ['chrome58', 'safari11'];

/** Minified style sheet text (`declarationList` for a style attribute), or undefined when esbuild refuses it. */
export async function minifyCss(source: string): Promise<string | undefined> {
  try {
    return (await transform(source, { loader: 'css', minify: true, target: CSS_TARGET, legalComments: 'inline', charset: 'utf8' })).code.trimEnd();
  } catch {
    return undefined;
  }
}

export const css: FileKind = {
  name: 'css',
  version: 1,
  matches: (file) => extensionOf(file.fileName) === 'css' || file.contentType.startsWith('text/css'),
  async lossless(bytes): Promise<StepOutcome> {
    const code = await minifyCss(bytes.toString('utf8'));
    return code === undefined ? { kept: 'kept as is: esbuild cannot parse it' } : { bytes: Buffer.from(code), action: 'minify CSS (esbuild)' };
  },
};
