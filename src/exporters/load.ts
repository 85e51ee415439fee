// Stage 1, load: reads the entry HTML and the variant's files from the object store — but first
// decides, from the sizes recorded in the database, whether they can fit at all, so that an
// export never holds more than a bounded amount of memory (CONTRACT §8). The rule:
//   1. The files may total at most LOAD_LIMIT_FACTOR (2) × the network's size limit. That much
//      leaves room for what optimization can win (minified scripts, a photo that `fit` shrinks)
//      and keeps one export under 3 × the limit + 64 MiB (README "Export memory").
//   2. The files that no step of the chosen `optimize` mode can make smaller (and that a ZIP
//      stores rather than deflates) must fit the limit by themselves: with `none` that is every
//      file of a one-HTML network; with `fit` a photo may be far larger than the limit.
// Each file is then read with its recorded size as a hard cap.
import { ExportFailure, type ExportInput, type LoadedFile, type LoadedVariant, type SourceFile } from './types.js';
import type { OptimizeMode } from './options.js';
import { formatBytes } from './package/size.js';
import { storedUncompressed } from './package/zip.js';
import { extensionOf } from './references.js';
import type { NetworkRules } from './rules.js';

export const LOAD_LIMIT_FACTOR = 2;

/** Reads a file, failing if the store holds more bytes than its row says. */
async function load(file: SourceFile): Promise<LoadedFile> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of await file.open()) {
    length += (chunk as Buffer).length;
    if (length > file.size) throw new ExportFailure(`The stored file ${file.fileName} is larger than its recorded ${file.size} bytes; upload it again`);
    chunks.push(chunk as Buffer);
  }
  return { fileName: file.fileName, contentType: file.contentType, bytes: Buffer.concat(chunks, length) };
}

/** Whether a file's bytes end up in the artifact at full size, whatever the optimize mode's steps do. */
type Shrinkable = (file: { fileName: string; contentType: string }) => boolean;

function checkCanFit(input: ExportInput, rules: NetworkRules, mode: OptimizeMode, shrinkable: Shrinkable): void {
  const files = [input.entry, ...input.assets];
  const total = files.reduce((sum, f) => sum + f.size, 0);
  const limit = rules.sizeLimitBytes;
  const deflated = (f: SourceFile) =>
    rules.output === 'zip' && !storedUncompressed(f.fileName) && (!rules.allowedExtensions || rules.allowedExtensions.includes(extensionOf(f.fileName)));
  const fixed = input.assets.filter((f) => !shrinkable(f) && !deflated(f)).reduce((sum, f) => sum + f.size, 0);

  let why: string | undefined;
  if (total > LOAD_LIMIT_FACTOR * limit) {
    why = `more than ${LOAD_LIMIT_FACTOR} × the network's limit of ${formatBytes(limit)} (${limit} bytes), the most an export reads`;
  } else if (fixed > limit) {
    why =
      `of which ${formatBytes(fixed)} (${fixed} bytes) no step of optimize "${mode}" can make smaller, over the network's limit of ` +
      `${formatBytes(limit)} (${limit} bytes)`;
  }
  if (!why) return;
  const largest = [...files]
    .sort((a, b) => b.size - a.size)
    .slice(0, 3)
    .map((f) => `${f.fileName} (${formatBytes(f.size)})`);
  throw new ExportFailure(
    `The ${input.network} export cannot fit: its files total ${formatBytes(total)} (${total} bytes), ${why}. Largest files: ${largest.join(', ')}.`,
  );
}

export async function loadVariant(input: ExportInput, rules: NetworkRules, mode: OptimizeMode, shrinkable: Shrinkable): Promise<LoadedVariant> {
  const refused = input.assets.filter((f) => f.fileName !== input.entry.fileName && rules.forbiddenContentTypes?.some((t) => f.contentType.startsWith(t)));
  if (refused.length) {
    throw new ExportFailure(`${input.network} does not accept ${rules.forbiddenContentTypes!.join(', ')} files: ${refused.map((f) => f.fileName).join(', ')}`);
  }
  checkCanFit(input, rules, mode, shrinkable);
  const [entry, ...loaded] = await Promise.all([input.entry, ...input.assets].map(load));
  const files = new Map(loaded.filter((f) => f.fileName !== entry!.fileName).map((f) => [f.fileName, f]));
  return { entry: entry!, files };
}
