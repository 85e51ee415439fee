// The ZIP container of ZIP networks, each entry's compressed size for the size report, and an
// artifact's files read back by the checks.
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { extensionOf } from '../references.js';
import type { LoadedFile } from '../types.js';

/** Formats already compressed gain nothing from deflate; storing them saves time. */
const STORED_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'mp3', 'm4a', 'aac', 'ogg', 'mp4', 'webm', 'woff', 'woff2', 'zip', 'glb']);
/** Fixed ZIP timestamps keep the checksum of an unchanged export stable. */
const ZIP_MTIME = new Date('2000-01-01T00:00:00Z');

/** Whether the ZIP stores a file as is (true) or deflates it. */
export const storedUncompressed = (fileName: string) => STORED_EXTENSIONS.has(extensionOf(fileName));

/** A ZIP's files by path, folders left out. */
export const unzipFiles = (bytes: Uint8Array): Map<string, Uint8Array> => new Map(Object.entries(unzipSync(bytes)).filter(([path]) => !path.endsWith('/')));

export function zip(
  entryPath: string,
  entryDir: string,
  html: Buffer,
  files: Iterable<LoadedFile>,
  extraFiles: Record<string, string> = {},
): { bytes: Buffer; compressed: Map<string, number> } {
  const entries: Zippable = { [entryPath]: [html, { level: 6 }] };
  for (const file of files) entries[entryDir + file.fileName] = [file.bytes, { level: storedUncompressed(file.fileName) ? 0 : 6 }];
  for (const [path, content] of Object.entries(extraFiles)) entries[path] = [Buffer.from(content), { level: 6 }];
  const bytes = Buffer.from(zipSync(entries, { mtime: ZIP_MTIME }));
  // The central directory has each entry's compressed size; reading it inflates nothing.
  const compressed = new Map<string, number>();
  unzipSync(bytes, {
    filter: (info) => {
      compressed.set(info.name, info.size);
      return false;
    },
  });
  return { bytes, compressed };
}
