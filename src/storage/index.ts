// Chooses the object store once, from config: S3-compatible when S3_BUCKET is set, otherwise
// the local disk under DATA_DIR (see README "Storage").
import type { Config } from '../config.js';
import { createLocalStore } from './local.js';
import { createS3Store } from './s3.js';
import type { ObjectStore } from './types.js';

export function createObjectStore(config: Config): ObjectStore {
  const backend = config.storage.backend;
  if (backend.kind === 's3') return createS3Store(backend);
  return createLocalStore({ ...backend, maxUploadBytes: config.storage.maxUploadBytes });
}
