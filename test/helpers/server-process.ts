// The real server as a child process (src/server.ts through tsx, or the compiled dist/server.js),
// for tests of what only a process shows: start-up, signals, exit codes, loaded modules.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../global-setup.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const TSX_SERVER = ['--import', 'tsx', 'src/server.ts'];

export interface ServerProcess {
  process: ChildProcess;
  port: number;
  /** http://127.0.0.1:<port>/api */
  base: string;
  /** Everything it wrote, stdout and stderr. */
  output(): string;
  /**
   * Sends the signal and resolves with the exit code. `group`: to the server's whole process group,
   * as a terminal's Ctrl-C does (the server leads a group of its own).
   */
  stop(signal?: NodeJS.Signals, options?: { group?: boolean }): Promise<number | null>;
}

/**
 * Starts `node <args>` in the repository with `env` (and PATH, HOST, PORT) and waits until
 * `ready` (by default: GET /api/health answers at all, whatever the status) holds.
 */
export async function startServer(
  args: string[],
  env: Record<string, string>,
  { ready = (base: string) => fetch(`${base}/health`, { redirect: 'manual' }).then(() => true), timeoutMs = 60_000 } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}/api`;
  for (const started = Date.now(); ; ) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    if (await ready(base).catch(() => false)) break;
    if (Date.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`server did not start within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    process: child,
    port,
    base,
    output: () => output,
    stop(signal = 'SIGTERM', { group = false } = {}) {
      if (child.exitCode === null) {
        if (group) process.kill(-child.pid!, signal);
        else child.kill(signal);
      }
      return exited;
    },
  };
}
