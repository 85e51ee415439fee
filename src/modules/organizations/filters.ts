// Filters that name a game or a variant (`GET /assets?gameId=`, `GET /exports?variantId=`, and
// an upload's gameId): one of another organization, or none at all, is 404, exactly as the game
// or variant itself would be (CONTRACT §2), rather than an empty list.
import type { Database } from '../../db/client.js';
import { NotFoundError } from '../../errors.js';
import { assertId } from './access.js';

/** A game of one of `organizationIds`, or 404. */
export async function assertGameIn(db: Database, organizationIds: string[], gameId: string): Promise<void> {
  assertId(gameId, 'Game');
  const game = await db.game.findUnique({ where: { id: gameId }, select: { organizationId: true } });
  if (!game || !organizationIds.includes(game.organizationId)) throw new NotFoundError('Game');
}

/** A variant of one of `organizationIds`, or 404. */
export async function assertVariantIn(db: Database, organizationIds: string[], variantId: string): Promise<void> {
  assertId(variantId, 'Variant');
  const variant = await db.variant.findUnique({ where: { id: variantId }, select: { organizationId: true } });
  if (!variant || !organizationIds.includes(variant.organizationId)) throw new NotFoundError('Variant');
}
