// CONTRACT §8, private folders (issue #9 finding 6): DATA_DIR and the local store's objects are
// for the service's user only — directories 0700, files 0600 — including a DATA_DIR or objects
// folder left world-readable by an earlier version.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createLocalStore } from '../src/storage/local.js';
import { createTestApp, TEST_ENV } from './helpers/app.js';

const shared = mkdtempSync(path.join(tmpdir(), 'pcs-private-test-'));
chmodSync(shared, 0o755);
afterAll(() => rmSync(shared, { recursive: true, force: true }));

const mode = (file: string) => statSync(file).mode & 0o777;

/** Every directory and file under `root` (itself included) whose mode lets anyone but the owner in. */
function notPrivate(root: string): string[] {
  const found: string[] = [];
  const walk = (entry: string) => {
    const stats = statSync(entry);
    if ((stats.mode & 0o077) !== 0) found.push(`${entry} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const name of readdirSync(entry)) walk(path.join(entry, name));
  };
  walk(root);
  return found;
}

describe('private folders', () => {
  it('creates DATA_DIR 0700 with its generated secrets 0600', () => {
    const dataDir = path.join(shared, 'fresh', 'data');
    const { JWT_SECRET: _jwt, ...env } = TEST_ENV;
    loadConfig({ ...env, DATA_DIR: dataDir });
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.join(dataDir, 'jwt-secret'))).toBe(0o600);
    expect(mode(path.join(dataDir, 'storage-signing-secret'))).toBe(0o600);
    expect(mode(path.dirname(dataDir))).not.toBe(0o700); // a parent created on the way stays ordinary
  });

  it('keeps uploaded objects, their metadata and stored artifacts private', async () => {
    const dataDir = path.join(shared, 'store', 'data');
    const t = await createTestApp({ DATA_DIR: dataDir });
    try {
      const user = await t.register();
      await t.uploadAsset(user, { fileName: 'index.html', contentType: 'text/html', body: '<p>hi</p>' });
      await t.store.write(`orgs/${user.organization.id}/exports/artifact.zip`, Buffer.from('zip'), { contentType: 'application/zip' });
      const objects = path.join(dataDir, 'objects');
      expect(readdirSync(objects).sort()).toEqual(expect.arrayContaining(['data', 'meta']));
      expect(notPrivate(objects)).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('makes an objects folder left world-readable by an earlier version private', () => {
    const objects = path.join(shared, 'legacy', 'objects');
    mkdirSync(objects, { recursive: true, mode: 0o755 });
    chmodSync(objects, 0o755);
    createLocalStore({ directory: objects, signingSecret: 's'.repeat(32), publicUrl: 'http://localhost:3000', maxUploadBytes: 1024 });
    expect(mode(objects)).toBe(0o700);
  });
});
