// Tokens made by tokens form trees (api_tokens.parent_token_id). CONTRACT §8: revoking a token
// revokes every token below it, and a token may revoke only itself and what is below it.
//
// Creating a child and revoking its ancestors can race: the child would be inserted under a
// parent that a concurrent revocation has already walked past, and outlive it. Both therefore
// run in a transaction holding a per-organization advisory lock (tokens of one organization
// only ever descend from tokens of that organization); token writes are rare (the sensitive
// rate-limit tier), so the lock costs nothing that matters.
import type { Prisma } from '../../generated/prisma/client.js';

type Transaction = Prisma.TransactionClient;

/** Serializes token creation and revocation in one organization until the transaction ends. */
export async function lockOrganizationTokens(tx: Transaction, organizationId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`api_tokens:${organizationId}`}, 0))`;
}

/** Whether `tokenId` is `ancestorId` itself or was created, directly or not, from it. */
export async function descendsFrom(tx: Transaction, tokenId: string, ancestorId: string): Promise<boolean> {
  const [row] = await tx.$queryRaw<Array<{ found: boolean }>>`
    WITH RECURSIVE lineage AS (
      SELECT id, parent_token_id FROM api_tokens WHERE id = ${tokenId}::uuid
      UNION ALL
      SELECT t.id, t.parent_token_id FROM api_tokens t JOIN lineage l ON t.id = l.parent_token_id
    )
    SELECT EXISTS (SELECT 1 FROM lineage WHERE id = ${ancestorId}::uuid) AS found`;
  return row?.found ?? false;
}

/**
 * Revokes the token and every token below it (a revoked one keeps its first revokedAt).
 * Returns the ids of the whole tree, for the token caches to forget.
 */
export async function revokeTree(tx: Transaction, rootId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    WITH RECURSIVE tree AS (
      SELECT id FROM api_tokens WHERE id = ${rootId}::uuid
      UNION ALL
      SELECT t.id FROM api_tokens t JOIN tree ON t.parent_token_id = tree.id
    )
    UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now())
    WHERE id IN (SELECT id FROM tree)
    RETURNING id`;
  return rows.map((row) => row.id);
}
