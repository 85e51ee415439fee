// Local state (DATA_DIR: secrets, the embedded PostgreSQL's data and password, stored objects) is
// for this service's user only: directories 0700, files 0600 (CONTRACT §8).
import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** mkdir options for directories inside a private one: missing parents are created private too. */
export const PRIVATE_DIRECTORY = { recursive: true, mode: 0o700 } as const;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `directory` if needed and makes it private: 0700, or 0710 with `passableByGroup` as
 * its group, which may then pass through it but not list or change it. Missing parents are
 * created as usual (they may be shared, like /var/lib).
 */
export function makePrivateDirectory(directory: string, passableByGroup?: number): void {
  mkdirSync(path.dirname(directory), { recursive: true });
  if (!existsSync(directory)) mkdirSync(directory, { mode: 0o700 });
  const stats = statSync(directory);
  if (passableByGroup !== undefined && stats.gid !== passableByGroup) chownSync(directory, stats.uid, passableByGroup);
  const mode = passableByGroup === undefined ? 0o700 : 0o710;
  if ((stats.mode & 0o777) !== mode) chmodSync(directory, mode);
}
