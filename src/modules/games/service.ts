import type { Database } from '../../db/client.js';
import type { ExportQueue } from '../../jobs/queue.js';
import { NotFoundError } from '../../errors.js';
import type { Game } from '../../generated/prisma/client.js';
import { cursorEnvelope, cursorPage, type PageRequest } from '../../lib/pagination.js';
import { iso } from '../../lib/schemas.js';
import { uniqueOr409 } from '../../lib/unique.js';
import type { Caller } from '../../plugins/auth.js';
import type { ObjectStore } from '../../storage/types.js';
import { deleteCascadingToArtifacts } from '../exports/artifacts.js';
import { assertId, assertVisible, resolveOrganizationId, visibleOrganizationIds } from '../organizations/access.js';
import { createGameReadQueries, GAME_SORT_KINDS, type GameSortField } from './read-queries.js';

export const toGameDto = (g: Game) => ({
  id: g.id,
  name: g.name,
  description: g.description,
  organizationId: g.organizationId,
  createdAt: iso(g.createdAt),
  updatedAt: iso(g.updatedAt),
});

const duplicateName = (name: string) => `A game named "${name}" already exists in this organization`;

export function createGameService(db: Database, store: ObjectStore, queue: ExportQueue) {
  const reads = createGameReadQueries(db.pool);

  /** A game the caller can see, or 404. Exported through the service for variants. */
  async function find(caller: Caller, id: string): Promise<Game> {
    assertId(id, 'Game');
    return assertVisible(caller, await reads.findById(id), 'Game');
  }

  return {
    find,

    async create(caller: Caller, input: { name: string; organizationId?: string; description?: string | null }) {
      const organizationId = resolveOrganizationId(caller, input.organizationId);
      const game = await uniqueOr409(
        db.game.create({ data: { organizationId, name: input.name, description: input.description ?? null } }),
        duplicateName(input.name),
      );
      return toGameDto(game);
    },

    async list(caller: Caller, query: PageRequest<GameSortField> & { organizationId?: string; q?: string; cursor?: string }) {
      const filter = { organizationIds: visibleOrganizationIds(caller, query.organizationId), q: query.q };
      const [page, total] = await Promise.all([cursorPage(query, GAME_SORT_KINDS, (slice) => reads.list(filter, slice)), reads.count(filter)]);
      return cursorEnvelope(page.rows.map(toGameDto), total, { ...query, page: page.page }, page.nextCursor);
    },

    async get(caller: Caller, id: string) {
      return toGameDto(await find(caller, id));
    },

    async update(caller: Caller, id: string, input: { name?: string; description?: string | null }) {
      const game = await find(caller, id);
      const updated = await uniqueOr409(db.game.update({ where: { id: game.id }, data: input }), duplicateName(input.name ?? game.name));
      return toGameDto(updated);
    },

    /** Deletes the game, its variants, their exports and the exports' artifacts. */
    async remove(caller: Caller, id: string) {
      const game = await find(caller, id);
      await deleteCascadingToArtifacts({ db, store, queue }, { variant: { gameId: game.id } }, async (tx) => {
        const { count } = await tx.game.deleteMany({ where: { id: game.id } });
        if (count === 0) throw new NotFoundError('Game');
      });
    },
  };
}
