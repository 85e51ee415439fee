// The least an artifact can weigh, per file, without building it: `fit` (../optimize/fit.ts)
// shrinks files on this estimate while it is already over the limit, so that it never builds
// (and holds in memory) artifacts it would throw away. Packaging still has the last word.
import { extensionOf } from '../references.js';
import type { NetworkRules } from '../rules.js';
import type { LoadedFile } from '../types.js';
import { storedUncompressed } from './zip.js';

const INLINED_AS_TEXT = new Set(['js', 'mjs', 'css']);

/** At least what `file` adds to the artifact: its bytes (text, or stored in a ZIP), a data URI, or 0 when deflated. */
export function minimumBytesInArtifact(file: LoadedFile, rules: NetworkRules): number {
  const extension = extensionOf(file.fileName);
  const inZip = rules.output === 'zip' && (!rules.allowedExtensions || rules.allowedExtensions.includes(extension));
  if (inZip) return storedUncompressed(file.fileName) ? file.bytes.length : 0;
  if (rules.output === 'zip') return 0; // inlined into the HTML, which is deflated
  if (INLINED_AS_TEXT.has(extension)) return file.bytes.length;
  return Math.ceil(file.bytes.length / 3) * 4; // base64 in a data URI
}
