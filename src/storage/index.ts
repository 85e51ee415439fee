// Chooses the object store once, from config: S3-compatible when S3_BUCKET is set, otherwise
// the local disk under DATA_DIR (see README "Storage").
import type { Config } from '../config.js';
import { createLocalStore } from './local.js';
import type { ObjectStore } from './types.js';

/**
 * The AWS SDK (~20 MiB of RSS once loaded) is imported only when S3 is configured: a service on
 * the local store never loads it (README "Benchmarks").
 */
export async function createObjectStore(config: Config, clock: { now?: () => number } = {}): Promise<ObjectStore> {
  const backend = config.storage.backend;
  if (backend.kind === 's3') return (await import('./s3.js')).createS3Store(backend);
  return createLocalStore({ ...backend, maxUploadBytes: config.storage.maxUploadBytes, now: clock.now });
}

/** Signs a short-lived GET URL of a stored object, downloaded under `fileName`. */
export type SignDownload = (key: string, fileName: string | null) => Promise<string>;

export function downloadSigner(store: ObjectStore, expiresInSeconds: number): SignDownload {
  return (key, fileName) => store.presignDownload(key, { expiresInSeconds, ...(fileName !== null ? { fileName } : {}) });
}
