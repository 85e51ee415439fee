// `npm run worker` as child processes of a test, on the test app's database and store, to kill
// one mid-job and start another; and a stored file swapped for a FIFO, so that a job reading it
// blocks where the test wants it to.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LocalStorageConfig } from '../../src/config.js';
import { TEST_ENV, type TestApp } from './app.js';

/** A test that starts worker processes (a few seconds each on a loaded machine) may take this long. */
export const WORKER_TEST_TIMEOUT_MS = 120_000;

export interface WorkerProcesses {
  start(extraEnv?: Record<string, string>): ChildProcess;
  /** SIGKILL, as a crash: no shutdown handler runs. */
  kill(worker: ChildProcess): Promise<void>;
  killAll(): void;
}

export function workerProcesses(t: TestApp, env: Record<string, string>): WorkerProcesses {
  const started: ChildProcess[] = [];
  return {
    start(extraEnv = {}) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/jobs/worker.ts'], {
        env: { ...process.env, ...TEST_ENV, ...env, DATABASE_URL: t.databaseUrl, DATA_DIR: t.config.dataDir, ...extraEnv },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      started.push(child);
      return child;
    },
    async kill(worker) {
      worker.kill('SIGKILL');
      if (worker.exitCode === null && worker.signalCode === null) await new Promise((resolve) => worker.once('exit', resolve));
    },
    killAll() {
      for (const worker of started) if (worker.exitCode === null) worker.kill('SIGKILL');
    },
  };
}

export async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Replaces the local store's object at `key` by a FIFO: whoever opens it waits until the test
 * feeds it (releasing that one reader with `bytes`) or kills the reader.
 */
export function blockObject(t: TestApp, key: string) {
  const file = path.join((t.config.storage.backend as LocalStorageConfig).directory, 'data', key);
  rmSync(file);
  execFileSync('mkfifo', [file]);
  return {
    /** Lets the reader waiting on the FIFO read `bytes` (resolves once it has). */
    feed: (bytes: Buffer) => writeFile(file, bytes),
    /** Puts a plain file with `bytes` back in place of the FIFO. */
    restore(bytes: Buffer) {
      rmSync(file);
      writeFileSync(file, bytes);
    },
  };
}
