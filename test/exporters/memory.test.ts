// CONTRACT §8: one export never holds more than 3 × the network's size limit + 64 MiB, whatever
// the assets weigh; an input that cannot fit fails before it is loaded. Each export runs in a
// child process of its own (test/helpers/export-memory-child.ts), whose peak RSS is measured.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { NETWORK_RULES } from '../../src/exporters/rules.js';
import type { MemoryResult, MemoryRun } from '../helpers/export-memory-child.js';
import { photoPng } from '../helpers/photo.js';

const CHILD = path.resolve(import.meta.dirname, '../helpers/export-memory-child.ts');
const MiB = 1 << 20;

async function measure(run: MemoryRun): Promise<MemoryResult> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, JSON.stringify(run)], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as MemoryResult;
}

const bound = (network: MemoryRun['network']) => 3 * NETWORK_RULES[network].sizeLimitBytes + 64 * MiB;
const dir = mkdtempSync(path.join(tmpdir(), 'pcs-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `bytes` into the test's folder; the child reads it as a stream. */
function onDisk(fileName: string, bytes: Buffer): string {
  const file = path.join(dir, fileName);
  writeFileSync(file, bytes);
  return file;
}

describe('export memory', () => {
  it('fails three 50 MiB assets for applovin before loading them, within the bound', async () => {
    const html = '<html><body><img src="a.png"><img src="b.png"><img src="c.png"></body></html>';
    const result = await measure({
      network: 'applovin',
      optimize: 'lossless',
      entry: { fileName: 'index.html', html },
      files: ['a.png', 'b.png', 'c.png'].map((fileName) => ({ fileName, contentType: 'image/png', filler: 50 * MiB })),
    });
    expect(result.outcome).toMatch(/^The applovin export cannot fit: its files total 157\.29 MB \(157286477 bytes\)/);
    expect(result.extraPeakRss).toBeLessThan(bound('applovin'));
  });

  it('stays within the bound while fit shrinks a 3.5 MB photo for meta', async () => {
    const photo = onDisk('photo.png', await photoPng(1420, 1120));
    const result = await measure({
      network: 'meta',
      optimize: 'fit',
      entry: { fileName: 'index.html', html: '<html><body><img src="photo.png"></body></html>' },
      files: [{ fileName: 'photo.png', contentType: 'image/png', path: photo }],
    });
    expect(result.outcome).toMatch(/^ok \d+$/);
    expect(result.extraPeakRss).toBeLessThan(bound('meta'));
  });

  it('stays within the bound with as many files as an applovin export reads (2 × 5 MB)', async () => {
    const files = ['a', 'b', 'c', 'd'].map((name, i) => ({
      fileName: `${name}.png`,
      contentType: 'image/png',
      path: onDisk(`${name}.png`, Buffer.alloc(2_490_000, i)),
    }));
    const html = `<html><body>${files.map((f) => `<img src="${f.fileName}">`).join('')}</body></html>`;
    const result = await measure({ network: 'applovin', optimize: 'fit', entry: { fileName: 'index.html', html }, files });
    expect(result.outcome).toMatch(/^The applovin export is 13\.\d\d MB/);
    expect(result.extraPeakRss).toBeLessThan(bound('applovin'));
  });
});
