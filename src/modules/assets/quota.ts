// The per-organization storage quota (CONTRACT §8, README "Storage and assets"). What counts:
// the bytes of ready assets, plus the declared size of every upload whose URL is still open (a
// reservation, so that a burst of URLs cannot promise more than the quota). Export artifacts do
// not count: the quota can refuse only uploads, and a usage it cannot hold to would overshoot.
//
// Checks run inside a transaction holding an advisory lock per organization, so two requests of
// one organization check and record one after the other and concurrent ones cannot overshoot.
import type { Prisma } from '../../generated/prisma/client.js';
import { PayloadTooLargeError } from '../../errors.js';

type Queryable = Pick<Prisma.TransactionClient, '$queryRaw'>;

/** First key of the advisory lock pair (pg_advisory_xact_lock(int, int)); the second is the organization's hash. */
const QUOTA_LOCK_CLASS = 72_707_370;
const NO_ASSET = '00000000-0000-0000-0000-000000000000';

/** Serializes quota checks of one organization until the transaction ends. */
export async function lockOrganizationStorage(tx: Queryable, organizationId: string): Promise<void> {
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(${QUOTA_LOCK_CLASS}::int, hashtext(${organizationId}))::text`;
}

/** Bytes the organization stores or has reserved at `now`, leaving out one asset (the one being checked). */
export async function storageUsage(db: Queryable, organizationId: string, now: Date, exceptAssetId = NO_ASSET): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ bytes: bigint }>>`
    SELECT coalesce(sum(CASE WHEN status = 'ready' THEN size ELSE declared_size END), 0)::bigint AS bytes
    FROM assets
    WHERE organization_id = ${organizationId}::uuid
      AND (status = 'ready' OR upload_expires_at > ${now})
      AND id <> ${exceptAssetId}::uuid`;
  return Number(row?.bytes ?? 0);
}

/** Throws 413 naming the quota when `adding` more bytes would not fit. */
export function assertFits(quotaBytes: number, used: number, adding: number): void {
  if (used + adding <= quotaBytes) return;
  throw new PayloadTooLargeError(
    `Storage quota exceeded: this organization may store ${quotaBytes} bytes (${gib(quotaBytes)}); ` +
      `${used} bytes are stored or reserved by open uploads, and this upload needs ${adding} more. Delete assets to make room.`,
  );
}

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
