// Durability: a worker process killed (SIGKILL) in the middle of an export. The job stays active
// in pg-boss until its timeout, is then retried, and a restarted worker finishes the export.
// To stop the first worker mid-job deterministically, one of the variant's stored files is
// replaced by a FIFO: reading it blocks until the test puts the real file back.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStorageConfig } from '../src/config.js';
import { createTestApp, type RegisteredUser, TEST_ENV, type TestApp } from './helpers/app.js';
import { createSampleVariant, downloadArtifact, waitForExport } from './helpers/exports.js';
import { expectSampleArtifact, sampleFile } from './helpers/sample-game.js';

const QUEUE_ENV = {
  EXPORT_MAX_ATTEMPTS: '2',
  EXPORT_JOB_TIMEOUT_SECONDS: '2',
  EXPORT_RETRY_DELAY_SECONDS: '0',
  QUEUE_MAINTENANCE_INTERVAL_SECONDS: '1',
  QUEUE_POLL_INTERVAL_SECONDS: '0.5',
};

let t: TestApp;
let alice: RegisteredUser;
const workers: ChildProcess[] = [];

/** `npm run worker` as a child process, on the test app's database and store. */
function startWorker(extraEnv: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/jobs/worker.ts'], {
    env: { ...process.env, ...TEST_ENV, ...QUEUE_ENV, DATABASE_URL: t.databaseUrl, DATA_DIR: t.config.dataDir, ...extraEnv },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  workers.push(child);
  return child;
}

const statusOf = async (id: string) => (await t.sql<{ status: string; attempts: number }>('SELECT status, attempts FROM exports WHERE id = $1', [id]))[0]!;

async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Makes the stored game.js of a variant block every reader until restored. */
async function blockReads(assetId: string): Promise<{ restore(): void }> {
  const [{ storage_key: key }] = (await t.sql<{ storage_key: string }>('SELECT storage_key FROM assets WHERE id = $1', [assetId])) as [{ storage_key: string }];
  const file = path.join((t.config.storage.backend as LocalStorageConfig).directory, 'data', key);
  rmSync(file);
  execFileSync('mkfifo', [file]);
  return {
    restore: () => {
      rmSync(file);
      writeFileSync(file, sampleFile('game.js').bytes);
    },
  };
}

beforeAll(async () => {
  // Only the child processes work on exports here; the app just serves the API.
  t = await createTestApp({ ...QUEUE_ENV, EXPORT_WORKER_IN_API: 'false' });
  alice = await t.register();
});
afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await t.close();
});

describe('a worker killed mid-export', () => {
  it('leaves the export processing; a restarted worker retries and finishes it', async () => {
    const sample = await createSampleVariant(t, alice);
    const gameJs = sample.assets.find((a) => a.fileName === 'game.js')!;
    const blocked = await blockReads(gameJs.id);
    const { id } = (await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'applovin' })).json();

    const first = startWorker();
    await waitFor(async () => (await statusOf(id)).status === 'processing', 'the first worker to start the export');
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    expect(await statusOf(id)).toEqual({ status: 'processing', attempts: 1 });

    blocked.restore();
    startWorker();
    const exported = await waitForExport(t, alice, id, 30_000);
    expect(exported).toMatchObject({ status: 'succeeded', attempts: 2, error: null });
    expectSampleArtifact('applovin', await downloadArtifact(t, exported));
  });

  it('fails the export with a clear error once its attempts are used up', async () => {
    const sample = await createSampleVariant(t, alice, { name: 'Doomed' });
    const gameJs = sample.assets.find((a) => a.fileName === 'game.js')!;
    const blocked = await blockReads(gameJs.id);
    const { id } = (await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'unity' })).json();

    // Both attempts (EXPORT_MAX_ATTEMPTS=2) die with their worker.
    for (const attempt of [1, 2]) {
      const worker = startWorker();
      await waitFor(async () => (await statusOf(id)).attempts === attempt, `attempt ${attempt} to start`);
      worker.kill('SIGKILL');
      await new Promise((resolve) => worker.once('exit', resolve));
    }
    blocked.restore();
    startWorker();
    const exported = await waitForExport(t, alice, id, 30_000);
    expect(exported).toMatchObject({ status: 'failed', attempts: 2, downloadUrl: null });
    expect(exported.error).toBe('Export did not finish after 2 attempts: the worker stopped or took longer than 2 s');
  });
});
