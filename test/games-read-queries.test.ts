// src/modules/games/read-queries.ts runs the games list and get as SQL through `pg` instead of
// Prisma (for speed, see that file). These tests hold it to the Prisma queries it replaced:
// for every sort and order, ties, text filters, offsets, cursors and organization scoping,
// both must return the very same rows in the very same order, and the same counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../src/generated/prisma/client.js';
import type { PageSlice } from '../src/lib/pagination.js';
import { createDatabase } from '../src/db/client.js';
import { createGameReadQueries, type GameFilter, type GameSortField } from '../src/modules/games/read-queries.js';
import { createTestApp, type RegisteredUser, type TestApp } from './helpers/app.js';

let t: TestApp;
let alice: RegisteredUser;
let bob: RegisteredUser;
let aliceSecond: string;
let reads: ReturnType<typeof createGameReadQueries>;

/** The Prisma query the service ran before: the same filter, order (ties by id) and keyset condition. */
function prismaList(filter: GameFilter, slice: PageSlice<GameSortField>) {
  const where: Prisma.GameWhereInput[] = [{ organizationId: { in: filter.organizationIds } }];
  if (filter.q) where.push({ name: { contains: filter.q, mode: 'insensitive' } });
  if (slice.after) {
    const [after, from] = slice.order === 'desc' ? (['lt', 'lte'] as const) : (['gt', 'gte'] as const);
    const { value, id } = slice.after;
    where.push({ [slice.sort]: { [from]: value }, OR: [{ [slice.sort]: { [after]: value } }, { [slice.sort]: value, id: { [after]: id } }] });
  }
  return t.db.game.findMany({
    where: { AND: where },
    orderBy: [{ [slice.sort]: slice.order }, { id: slice.order }],
    skip: slice.offset,
    take: slice.limit,
  });
}

async function prismaCount(filter: GameFilter): Promise<number> {
  if (filter.q) {
    return t.db.game.count({ where: { organizationId: { in: filter.organizationIds }, name: { contains: filter.q, mode: 'insensitive' } } });
  }
  const organizations = await t.db.organization.findMany({ where: { id: { in: filter.organizationIds } }, select: { gameCount: true } });
  return organizations.reduce((sum, o) => sum + o.gameCount, 0);
}

async function expectSameList(filter: GameFilter, slice: PageSlice<GameSortField>) {
  const expected = await prismaList(filter, slice);
  expect(await reads.list(filter, slice)).toEqual(expected);
  return expected;
}

beforeAll(async () => {
  t = await createTestApp();
  reads = createGameReadQueries(t.db.pool);
  alice = await t.register();
  bob = await t.register();
  aliceSecond = (await t.as(alice).post('/organizations', { name: 'Second' })).json().id;
  // Names differing in case, wildcard characters and shared prefixes; several games share
  // their timestamps, so ties are broken by id.
  const names = ['alpha', 'Alpha two', 'beta', 'BETA three', 'gamma', 'delta_1', 'delta%2', 'épsilon', 'zeta', 'Zeta', 'eta', 'theta'];
  const create = async (caller: RegisteredUser, organizationId: string, name: string, description: string | null = null) =>
    expect((await t.as(caller).post('/games', { name, organizationId, description })).statusCode).toBe(201);
  for (const name of names) await create(alice, alice.organization.id, name, name.length % 2 ? null : `About ${name}`);
  for (const name of ['alpha', 'other beta']) await create(alice, aliceSecond, name);
  for (const name of ['alpha', 'bob only']) await create(bob, bob.organization.id, name);
  await t.sql(
    `UPDATE games SET created_at = '2026-01-01T00:00:00Z', updated_at = '2026-02-01T00:00:00Z' WHERE name IN ('beta', 'BETA three', 'gamma', 'zeta', 'Zeta')`,
  );
});
afterAll(() => t.close());

describe('games read queries (pg) against the Prisma queries they replaced', () => {
  const sorts: GameSortField[] = ['createdAt', 'updatedAt', 'name'];
  const orders = ['asc', 'desc'] as const;

  it('lists the same rows in the same order for every sort, order and offset', async () => {
    const filter = { organizationIds: [alice.organization.id] };
    for (const sort of sorts) {
      for (const order of orders) {
        const all = await expectSameList(filter, { sort, order, offset: 0, limit: 100 });
        expect(all).toHaveLength(12);
        for (const offset of [0, 3, 11, 12]) await expectSameList(filter, { sort, order, offset, limit: 4 });
      }
    }
  });

  it('continues after a cursor exactly as Prisma did, ties included', async () => {
    const filter = { organizationIds: [alice.organization.id] };
    for (const sort of sorts) {
      for (const order of orders) {
        const all = await prismaList(filter, { sort, order, offset: 0, limit: 100 });
        for (const row of all) {
          const after = { value: row[sort], id: row.id };
          await expectSameList(filter, { sort, order, after, offset: 0, limit: 5 });
        }
      }
    }
  });

  // LIKE's wildcards differ on purpose (Prisma's `contains` passes them through; `q` is literal):
  // test/games.test.ts covers them over HTTP.
  it('filters by name the same way, case included, and counts alike', async () => {
    const organizationIds = [alice.organization.id, aliceSecond];
    for (const q of ['ALPHA', 'eta', 'épsilon', 'nothing like it', undefined]) {
      const filter = { organizationIds, q };
      for (const sort of sorts) await expectSameList(filter, { sort, order: 'desc', offset: 0, limit: 100 });
      expect(await reads.count(filter)).toBe(await prismaCount(filter));
    }
  });

  it("keeps to the organizations asked for: one, several, or none; never another's", async () => {
    const cases = [[alice.organization.id], [aliceSecond], [alice.organization.id, aliceSecond], [bob.organization.id], []];
    for (const organizationIds of cases) {
      const rows = await expectSameList({ organizationIds }, { sort: 'name', order: 'asc', offset: 0, limit: 100 });
      expect(rows.every((g) => organizationIds.includes(g.organizationId))).toBe(true);
      expect(await reads.count({ organizationIds })).toBe(await prismaCount({ organizationIds }));
    }
    expect(await reads.count({ organizationIds: [alice.organization.id, aliceSecond] })).toBe(14);
  });

  it('finds one game by id as findUnique does, and null for an unknown id', async () => {
    for (const game of await t.db.game.findMany()) expect(await reads.findById(game.id)).toEqual(game);
    expect(await reads.findById('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('survives an idle pooled connection failing (PostgreSQL restarted) before Prisma ever connected', async () => {
    // A fresh client whose pool only these reads have used: Prisma's adapter has not yet
    // attached anything to it, so src/db/client.ts's own 'error' listener is all there is.
    const db = createDatabase(t.databaseUrl, 1);
    const fresh = createGameReadQueries(db.pool);
    const filter = { organizationIds: [alice.organization.id] };
    try {
      expect(await fresh.count(filter)).toBe(12);
      const [{ pid }] = (await db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
      // The pool's idle client loses its server; unheard, that 'error' would crash the process.
      await t.sql('SELECT pg_terminate_backend($1)', [pid]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await fresh.count(filter)).toBe(12);
    } finally {
      await db.pool.end();
    }
  });
});
