// JavaScript: minified by esbuild (whitespace, comments, syntax), never changing what the game
// does:
// - No newer syntax than the file already uses: ES5 files are minified for ES5; others may keep
//   their syntax, but esbuild must not introduce `?.`, `??`, `||=` or `catch {}` (old web views).
// - Names are not shortened: a function's `.name`, which games read (class registries,
//   serializers), comes from them, and esbuild's keepNames cannot target ES5.
// - Legal comments (`/*! … */`, @license) stay.
// - A script that reads function source (Function.prototype.toString) is left as it is.
import { transform, type TransformOptions } from 'esbuild';
import { extensionOf } from '../references.js';
import type { FileKind, StepOutcome } from './types.js';

const MINIFY: TransformOptions = { loader: 'js', minifyWhitespace: true, minifySyntax: true, legalComments: 'inline', charset: 'utf8' };
/** Syntax esbuild's minifier would otherwise introduce, which older web views cannot parse. */
const NOT_INTRODUCED = { 'optional-chain': false, 'nullish-coalescing': false, 'logical-assignment': false, 'optional-catch-binding': false };
const READS_FUNCTION_SOURCE = /Function\.prototype\.toString|\.toString\.call\s*\(|\.toSource\s*\(/;

/** Minified script text, or why it was left alone. */
export async function minifyScript(source: string): Promise<{ code: string } | { kept: string }> {
  if (READS_FUNCTION_SOURCE.test(source)) return { kept: 'kept as is: the script reads function source text' };
  try {
    return { code: (await transform(source, { ...MINIFY, target: 'es5' })).code };
  } catch {
    // Syntax newer than ES5 (or none esbuild can lower): keep the file's own syntax level.
  }
  try {
    return { code: (await transform(source, { ...MINIFY, supported: NOT_INTRODUCED })).code };
  } catch (error) {
    return { kept: `kept as is: esbuild cannot parse it (${firstLine(error)})` };
  }
}

const firstLine = (error: unknown) => ((error as { errors?: Array<{ text: string }> }).errors?.[0]?.text ?? String(error)).slice(0, 120);

export const js: FileKind = {
  name: 'js',
  version: 1,
  matches: (file) => ['js', 'mjs'].includes(extensionOf(file.fileName)) || /javascript|ecmascript/.test(file.contentType),
  async lossless(bytes): Promise<StepOutcome> {
    const result = await minifyScript(bytes.toString('utf8'));
    return 'code' in result ? { bytes: Buffer.from(result.code), action: 'minify JS (esbuild)' } : result;
  },
};
