// The floor for this stack: a bare Fastify server running, with `pg`, the very statements the
// service runs for GET /api/games (page, then count) and GET /api/games/{id} — built by the
// service's own src/modules/games/read-queries.ts — with no auth, no validation, no hooks; the
// organization comes from the query. Run by bench/run.ts in its own process.
import Fastify from 'fastify';
import pg from 'pg';
import type { Game } from '../src/generated/prisma/client.js';
import { countGamesStatement, GAME_BY_ID, listGamesStatement } from '../src/modules/games/read-queries.js';

const { DATABASE_URL, PORT, POOL_SIZE } = process.env;
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: Number(POOL_SIZE ?? 10) });

const toDto = (g: Game) => ({
  id: g.id,
  name: g.name,
  description: g.description,
  organizationId: g.organizationId,
  createdAt: g.createdAt.toISOString(),
  updatedAt: g.updatedAt.toISOString(),
});

const app = Fastify({ logger: false });

app.get<{ Querystring: { organizationId: string; page?: string; limit?: string } }>('/api/games', async (request) => {
  const { organizationId } = request.query;
  const page = Number(request.query.page ?? 1);
  const limit = Number(request.query.limit ?? 20);
  const filter = { organizationIds: [organizationId] };
  // One row more than the page, as the service reads, to know whether there is a next one.
  const slice = { sort: 'createdAt', order: 'desc', offset: (page - 1) * limit, limit: limit + 1 } as const;
  const [rows, count] = await Promise.all([pool.query<Game>(listGamesStatement(filter, slice)), pool.query<{ total: number }>(countGamesStatement(filter))]);
  const total = count.rows[0]!.total;
  const data = rows.rows.slice(0, limit).map(toDto);
  return { data, meta: { page, limit, total, totalPages: Math.ceil(total / limit) } };
});

app.get<{ Params: { id: string } }>('/api/games/:id', async (request, reply) => {
  const { rows } = await pool.query<Game>(GAME_BY_ID, [request.params.id]);
  if (!rows[0]) return reply.code(404).send({ statusCode: 404, error: 'RESOURCE_NOT_FOUND', message: 'Game not found' });
  return toDto(rows[0]);
});

await app.listen({ host: '127.0.0.1', port: Number(PORT) });
const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
