// The two hottest reads of the API — a page of games (with its total) and one game by id —
// as plain parameterized SQL through `pg`, on the same pool as Prisma's adapter
// (src/db/client.ts). Why not Prisma: measured under load, Prisma 7's client (query compiler +
// @prisma/adapter-pg) spends ~430 µs of CPU on the 20-row page and ~130 µs on the count read,
// against ~165 µs and ~27 µs for the same statements through `pg` — more than all the rest of
// the request (README "Benchmarks"). Everything else, every write included, stays on Prisma.
// test/games-read-queries.test.ts checks these return exactly what the Prisma queries did.
import type pg from 'pg';
import type { Game } from '../../generated/prisma/client.js';
import type { PageSlice, SortValueKind } from '../../lib/pagination.js';

export type GameSortField = 'createdAt' | 'updatedAt' | 'name';
export const GAME_SORT_KINDS: Record<GameSortField, SortValueKind> = { createdAt: 'date', updatedAt: 'date', name: 'string' };

/** Which games a list shows: these organizations' (never empty), optionally filtered by name. */
export interface GameFilter {
  organizationIds: string[];
  /** Case-insensitive "name contains", with LIKE's `%` and `_` kept as wildcards, as Prisma's `contains` does. */
  q?: string;
}

interface Statement {
  text: string;
  values: unknown[];
}

const COLUMNS = `id, organization_id AS "organizationId", name, description, created_at AS "createdAt", updated_at AS "updatedAt"`;
const SORT_COLUMNS: Record<GameSortField, string> = { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' };

/** `column IN ($n, …)`, one parameter per item (appended to `values`), as Prisma writes `in`; no items match nothing. */
function inList(column: string, items: string[], values: unknown[]): string {
  if (items.length === 0) return 'false';
  return `${column} IN (${items.map((item) => `$${values.push(item)}`).join(', ')})`;
}

/** The WHERE conditions on games of a filter, its parameters appended to `values`. */
function gameConditions(filter: GameFilter, values: unknown[]): string[] {
  const conditions = [inList('organization_id', filter.organizationIds, values)];
  // `q` is a literal substring: LIKE's wildcards (%, _) and its escape character (\) in it are escaped.
  if (filter.q) conditions.push(`name ILIKE ('%' || $${values.push(filter.q.replace(/[\\%_]/g, '\\$&'))} || '%')`);
  return conditions;
}

/** One slice of a list, ordered by the sort column then id (ties), both in `order`. */
export function listGamesStatement(filter: GameFilter, slice: PageSlice<GameSortField>): Statement {
  const values: unknown[] = [];
  const conditions = gameConditions(filter, values);
  const column = SORT_COLUMNS[slice.sort];
  const direction = slice.order === 'desc' ? 'DESC' : 'ASC';
  if (slice.after) {
    // (sort, id) after the cursor's; the redundant bound on the sort column alone lets the
    // (organization_id, sort, id) index seek straight to it.
    const after = slice.order === 'desc' ? '<' : '>';
    const value = `$${values.push(slice.after.value)}`;
    const id = `$${values.push(slice.after.id)}::uuid`;
    conditions.push(`${column} ${after}= ${value}`, `(${column}, id) ${after} (${value}, ${id})`);
  }
  const limit = `$${values.push(slice.limit)}`;
  const offset = `$${values.push(slice.offset)}`;
  return {
    text: `SELECT ${COLUMNS} FROM games WHERE ${conditions.join(' AND ')} ORDER BY ${column} ${direction}, id ${direction} LIMIT ${limit} OFFSET ${offset}`,
    values,
  };
}

/**
 * How many games a filter matches. Without a text filter, the organizations' trigger-kept
 * game_count (exact and O(1)); a text filter has to scan anyway and is counted.
 */
export function countGamesStatement(filter: GameFilter): Statement {
  const values: unknown[] = [];
  if (filter.q) return { text: `SELECT count(*)::int AS total FROM games WHERE ${gameConditions(filter, values).join(' AND ')}`, values };
  return { text: `SELECT coalesce(sum(game_count), 0)::int AS total FROM organizations WHERE ${inList('id', filter.organizationIds, values)}`, values };
}

export const GAME_BY_ID = `SELECT ${COLUMNS} FROM games WHERE id = $1`;

export function createGameReadQueries(pool: pg.Pool) {
  return {
    async list(filter: GameFilter, slice: PageSlice<GameSortField>): Promise<Game[]> {
      return (await pool.query<Game>(listGamesStatement(filter, slice))).rows;
    },

    async count(filter: GameFilter): Promise<number> {
      return (await pool.query<{ total: number }>(countGamesStatement(filter))).rows[0]!.total;
    },

    /** The game with this id (a UUID), or null. */
    async findById(id: string): Promise<Game | null> {
      return (await pool.query<Game>(GAME_BY_ID, [id])).rows[0] ?? null;
    },
  };
}
