// The storage sweeper (CONTRACT §8): uploads that were never finished, and objects nothing
// refers to any more. Every API instance runs it every STORAGE_SWEEP_INTERVAL_SECONDS; a
// PostgreSQL advisory lock lets one sweep at a time, and an instance that finds the lock taken
// skips its turn. One sweep:
//   1. Pending assets whose upload URL expired more than SWEEP_GRACE_MS ago: an object that did
//      arrive is confirmed as `complete` would (size, checksum, quota); otherwise the asset row
//      goes (with any object the quota refused).
//   2. Objects under orgs/*/assets/ whose asset row is gone (an upload that finished after its
//      asset was deleted — S3 cannot be told to refuse it) are deleted.
//   3. The store's partial uploads untouched for SWEEP_GRACE_MS (local disk: files left in
//      incoming/ by a crash) are deleted.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.js';
import { PayloadTooLargeError } from '../errors.js';
import { type AssetSettings, createAssetService } from '../modules/assets/service.js';
import type { ObjectStore } from '../storage/types.js';

/** The advisory lock key of the sweep (beside the migration runner's 72707369 and the quota's class 72707370). */
export const SWEEP_LOCK_KEY = 72_707_371;
/** How long past its URL's expiry a pending asset, or since its last byte a partial upload, is left alone. */
export const SWEEP_GRACE_MS = 60 * 60 * 1000;
const BATCH = 100;
const ASSET_KEY = /^orgs\/[^/]+\/assets\/[^/]+$/;

export interface StorageSweeperDeps {
  db: Database;
  store: ObjectStore;
  settings: AssetSettings;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
}

export interface SweepReport {
  /** Pending assets whose object had arrived: now ready. */
  confirmed: number;
  /** Pending assets deleted. */
  expired: number;
  /** Objects without an asset row, deleted. */
  orphans: number;
  /** Partial uploads deleted. */
  partials: number;
}

/** One sweep; null when another instance holds the lock. */
export async function sweepStorage(deps: StorageSweeperDeps): Promise<SweepReport | null> {
  const lock = await deps.db.pool.connect();
  try {
    const { rows } = await lock.query<{ acquired: boolean }>('SELECT pg_try_advisory_lock($1) AS acquired', [SWEEP_LOCK_KEY]);
    if (!rows[0]?.acquired) return null;
    try {
      const cutoff = new Date((deps.now ?? Date.now)() - SWEEP_GRACE_MS);
      return {
        ...(await sweepExpiredUploads(deps, cutoff)),
        orphans: await sweepOrphans(deps),
        partials: await deps.store.deleteStalePartials(cutoff),
      };
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [SWEEP_LOCK_KEY]);
    }
  } finally {
    lock.release();
  }
}

async function sweepExpiredUploads({ db, store, settings }: StorageSweeperDeps, cutoff: Date) {
  const assets = createAssetService(db, store, settings);
  let confirmed = 0;
  let expired = 0;
  for (;;) {
    // Each asset of a batch leaves the set (ready or deleted), so the next query finds the next ones.
    const batch = await db.asset.findMany({
      where: { status: 'pending', uploadExpiresAt: { lt: cutoff } },
      orderBy: { uploadExpiresAt: 'asc' },
      take: BATCH,
    });
    for (const asset of batch) {
      const ready = await assets.confirmUpload(asset).catch((error: unknown) => {
        // Over the limit or the quota: the object is already deleted, the asset goes with it.
        if (error instanceof PayloadTooLargeError) return null;
        throw error;
      });
      if (ready?.status === 'ready') {
        confirmed++;
        continue;
      }
      await db.asset.deleteMany({ where: { id: asset.id, status: 'pending' } });
      await store.delete(asset.storageKey);
      expired++;
    }
    if (batch.length < BATCH) return { confirmed, expired };
  }
}

async function sweepOrphans({ db, store }: StorageSweeperDeps): Promise<number> {
  let deleted = 0;
  for await (const page of store.list('orgs/')) {
    const keys = page.filter((key) => ASSET_KEY.test(key));
    if (keys.length === 0) continue;
    const known = new Set((await db.asset.findMany({ where: { storageKey: { in: keys } }, select: { storageKey: true } })).map((a) => a.storageKey));
    for (const key of keys.filter((k) => !known.has(k))) {
      await store.delete(key);
      deleted++;
    }
  }
  return deleted;
}

/** Sweeps every `intervalMs` until stopped; a failed sweep is logged and the next one tries again. */
export function startStorageSweeper(deps: StorageSweeperDeps, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = sweepStorage(deps)
      .then((report) => {
        if (report && Object.values(report).some(Boolean)) deps.log.info({ sweep: report }, 'storage swept');
      })
      .catch((error: unknown) => deps.log.error({ err: error }, 'storage sweep failed'))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
