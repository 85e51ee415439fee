// The sample game of test/fixtures/sample-game (HTML + CSS + PNG + JS + JSON) and what tests need
// to look inside an exported artifact.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { unzipSync } from 'fflate';
import type { SourceFile } from '../../src/exporters/pipeline.js';

export const SAMPLE_DIR = path.resolve(import.meta.dirname, '../fixtures/sample-game');

export interface SampleFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

const CONTENT_TYPES: Record<string, string> = {
  'index.html': 'text/html',
  'style.css': 'text/css',
  'game.js': 'text/javascript',
  'level.json': 'application/json',
  'logo.png': 'image/png',
};

export const sampleFile = (fileName: string): SampleFile => ({
  fileName,
  contentType: CONTENT_TYPES[fileName]!,
  bytes: readFileSync(path.join(SAMPLE_DIR, fileName)),
});

/** The entry HTML and the files it loads. */
export const sampleGame = () => ({
  entry: sampleFile('index.html'),
  assets: ['style.css', 'game.js', 'level.json', 'logo.png'].map(sampleFile),
});

export const SAMPLE_CONFIG = { title: 'Meadow Mayhem', storeUrl: 'https://apps.apple.com/app/id1234567890', orientation: 'portrait' };

/** A SourceFile over bytes in memory, as the pipeline reads from the object store. */
export const inMemorySource = (file: SampleFile): SourceFile => ({
  fileName: file.fileName,
  contentType: file.contentType,
  open: async () => Readable.from([file.bytes]),
});

/** An artifact's files: a ZIP's entries, or one HTML file under the name `single.html`. */
export function artifactFiles(bytes: Uint8Array): Map<string, Buffer> {
  const zipped = bytes[0] === 0x50 && bytes[1] === 0x4b;
  if (!zipped) return new Map([['single.html', Buffer.from(bytes)]]);
  return new Map(Object.entries(unzipSync(bytes)).map(([name, content]) => [name, Buffer.from(content)]));
}
