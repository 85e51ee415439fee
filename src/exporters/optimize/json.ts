// JSON: whitespace between tokens removed, nothing else. Not JSON.parse + JSON.stringify, which
// changes values (12345678901234567890 loses digits, 1e400 becomes null, duplicate keys merge).
import { extensionOf } from '../references.js';
import type { FileKind, StepOutcome } from './types.js';

/** The same JSON text without insignificant whitespace, or undefined when it is not JSON. */
export function minifyJson(text: string): string | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c !== ' ' && c !== '\n' && c !== '\r' && c !== '\t') {
      out += c;
    }
  }
  return out;
}

export const json: FileKind = {
  name: 'json',
  version: 1,
  matches: (file) => extensionOf(file.fileName) === 'json' || /^application\/([\w.+-]+\+)?json/.test(file.contentType),
  async lossless(bytes): Promise<StepOutcome> {
    const text = minifyJson(bytes.toString('utf8'));
    return text === undefined ? { kept: 'kept as is: not valid JSON' } : { bytes: Buffer.from(text), action: 'minify JSON' };
  },
};
