// The sample game of test/fixtures/sample-game (HTML + CSS + PNG + JS + JSON) and what tests need
// to look inside an exported artifact.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { unzipSync } from 'fflate';
import { lookup } from 'mime-types';
import { expect } from 'vitest';
import { EXPORTERS } from '../../src/exporters/networks/index.js';
import type { SourceFile } from '../../src/exporters/pipeline.js';
import { GOOGLE_EXIT_API_URL, type Network, NETWORK_RULES } from '../../src/exporters/rules.js';
import { validateArtifact } from '../../src/exporters/validate.js';

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

/** A build of test/fixtures/<dir> (mraid-native, luna-api): its index.html and every other file there. */
export function fixtureGame(dir: string): ReturnType<typeof sampleGame> {
  const folder = path.resolve(SAMPLE_DIR, '..', dir);
  const file = (fileName: string): SampleFile => ({
    fileName,
    contentType: lookup(fileName) || 'application/octet-stream',
    bytes: readFileSync(path.join(folder, fileName)),
  });
  const names = readdirSync(folder).sort();
  return { entry: file('index.html'), assets: names.filter((name) => name !== 'index.html').map(file) };
}

/** The store URL the MRAID-native fixture opens itself. */
export const MRAID_NATIVE_STORE_URL = 'https://play.google.com/store/apps/details?id=com.example.tilerush';
/** The Luna fixture's variant config: one Playground field set, the other left to its default. */
export const LUNA_CONFIG = { storeUrl: 'https://apps.apple.com/app/id987654321', GameConfig: { title: 'Castle Siege' } };

export const SAMPLE_CONFIG = { title: 'Meadow Mayhem', storeUrl: 'https://apps.apple.com/app/id1234567890', orientation: 'portrait' };

/** A SourceFile over bytes in memory, as the pipeline reads from the object store. */
export const inMemorySource = (file: SampleFile): SourceFile => ({
  fileName: file.fileName,
  contentType: file.contentType,
  size: file.bytes.length,
  open: async () => Readable.from([file.bytes]),
});

/** An artifact's files: a ZIP's entries, or one HTML file under the name `single.html`. */
export function artifactFiles(bytes: Uint8Array): Map<string, Buffer> {
  const zipped = bytes[0] === 0x50 && bytes[1] === 0x4b;
  if (!zipped) return new Map([['single.html', Buffer.from(bytes)]]);
  return new Map(Object.entries(unzipSync(bytes)).map(([name, content]) => [name, Buffer.from(content)]));
}

/** Where each ZIP network puts the sample game (variant name "Meadow Mayhem"). */
const ZIP_LAYOUTS: Partial<Record<Network, { entry: string; files: string[] }>> = {
  google: { entry: 'index.html', files: ['index.html', 'style.css', 'game.js', 'logo.png'] },
  mintegral: {
    entry: 'meadow-mayhem/meadow-mayhem.html',
    files: ['meadow-mayhem.html', 'style.css', 'game.js', 'level.json', 'logo.png'].map((f) => `meadow-mayhem/${f}`),
  },
  tiktok: { entry: 'index.html', files: ['index.html', 'style.css', 'game.js', 'level.json', 'logo.png', 'config.json'] },
  vungle: { entry: 'ad.html', files: ['ad.html', 'style.css', 'game.js', 'level.json', 'logo.png'] },
  snapchat: { entry: 'index.html', files: ['index.html', 'style.css', 'game.js', 'level.json', 'logo.png'] },
  liftoff: {
    entry: 'meadow-mayhem/index.html',
    files: ['index.html', 'style.css', 'game.js', 'level.json', 'logo.png'].map((f) => `meadow-mayhem/${f}`),
  },
  yandex: { entry: 'index.html', files: ['index.html', 'style.css', 'game.js', 'level.json', 'logo.png'] },
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** The sample's script, as uploaded or minified (`optimize` lossless, the default). */
const GAME_SCRIPT = /window\.playable\.ready\(function ?\(\) ?\{/;

/**
 * Opens an export of the sample game and checks it as the network would: format and layout,
 * every file inlined or present, no external URL (but Google's exit API), the bridge, the config,
 * the size limit, and the validation step. Returns the playable's HTML. Files are compared by
 * what they are (a PNG, the game's script, the level's JSON), so that any `optimize` mode passes;
 * test/exporters/optimize.test.ts checks what optimization did to them.
 */
export function expectSampleArtifact(network: Network, bytes: Uint8Array): string {
  const rules = NETWORK_RULES[network];
  const files = artifactFiles(bytes);
  let html: string;
  if (rules.output === 'html') {
    expect([...files.keys()]).toEqual(['single.html']);
    html = files.get('single.html')!.toString('utf8');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    // Everything inlined: the PNG as a data URI, the script as text, the CSS as <style>, the JSON in the asset map.
    const logo = /<img id="logo" src="data:image\/png;base64,([^"]+)"/.exec(html)?.[1];
    expect(Buffer.from(logo ?? '', 'base64').subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(html).toMatch(GAME_SCRIPT);
    expect(html).toContain('#cta{font-size:1.5rem');
    const level = /"level\.json":"data:application\/json;base64,([^"]+)"/.exec(html)?.[1];
    expect(JSON.parse(Buffer.from(level ?? '', 'base64').toString())).toEqual(JSON.parse(sampleFile('level.json').bytes.toString()));
    expect(html).not.toMatch(/<script[^>]+src="data:/);
  } else {
    const layout = ZIP_LAYOUTS[network]!;
    expect([...files.keys()].sort()).toEqual([...layout.files].sort());
    html = files.get(layout.entry)!.toString('utf8');
    const dir = layout.entry.slice(0, layout.entry.lastIndexOf('/') + 1);
    expect(files.get(`${dir}logo.png`)!.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(files.get(`${dir}game.js`)!.toString()).toMatch(GAME_SCRIPT);
    expect(html).toContain('<script src="game.js"></script>');
    expect(html).toContain('<img id="logo" src="logo.png"');
    expect(files.get(`${dir}style.css`)!.toString()).toContain('url(logo.png)');
  }

  // No external URL left, except Google's exit API (the store URL is config data, not a load).
  const urls = html.replaceAll(SAMPLE_CONFIG.storeUrl, '').match(/https?:\/\/[^\s"'<>)]+/g) ?? [];
  expect(urls).toEqual(network === 'google' ? [GOOGLE_EXIT_API_URL] : []);
  expect(html.includes('<script src="mraid.js"></script>')).toBe(rules.mraid === 'required');

  // The bridge and the config.
  for (const call of EXPORTERS[network].bridgeCalls) expect(html).toContain(call);
  expect(html).toContain('"title":"Meadow Mayhem"');
  expect(html).toContain('window.playable = api;');

  expect(bytes.length).toBeLessThanOrEqual(rules.sizeLimitBytes);
  expect(validateArtifact(network, bytes).problems).toEqual([]);
  return html;
}
