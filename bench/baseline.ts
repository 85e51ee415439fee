// The floor for this stack: a bare Fastify server running, with `pg`, the SQL the service runs
// for GET /api/games (page, then count) and GET /api/games/{id} — no auth, no validation, no
// hooks, no ORM; the organization comes from the query. Run by bench/run.ts in its own process.
import Fastify from 'fastify';
import pg from 'pg';

const { DATABASE_URL, PORT, POOL_SIZE } = process.env;
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: Number(POOL_SIZE ?? 10) });

// The statements Prisma generates for the service's findMany (one row more than the page, to
// know whether there is a next one), the trigger-kept game count, and findUnique.
const COLUMNS = `"public"."games"."id", "public"."games"."organization_id", "public"."games"."name", "public"."games"."description", "public"."games"."created_at", "public"."games"."updated_at"`;
const LIST = `SELECT ${COLUMNS} FROM "public"."games" WHERE "public"."games"."organization_id" IN ($1) ORDER BY "public"."games"."created_at" DESC, "public"."games"."id" DESC LIMIT $2 OFFSET $3`;
const COUNT = `SELECT "public"."organizations"."id", "public"."organizations"."game_count" FROM "public"."organizations" WHERE "public"."organizations"."id" IN ($1) OFFSET $2`;
const GET = `SELECT ${COLUMNS} FROM "public"."games" WHERE ("public"."games"."id" = $1 AND 1=1) LIMIT $2 OFFSET $3`;

interface GameRow {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}
const toDto = (g: GameRow) => ({
  id: g.id,
  name: g.name,
  description: g.description,
  organizationId: g.organization_id,
  createdAt: g.created_at.toISOString(),
  updatedAt: g.updated_at.toISOString(),
});

const app = Fastify({ logger: false });

app.get<{ Querystring: { organizationId: string; page?: string; limit?: string } }>('/api/games', async (request) => {
  const { organizationId } = request.query;
  const page = Number(request.query.page ?? 1);
  const limit = Number(request.query.limit ?? 20);
  const [rows, count] = await Promise.all([
    pool.query<GameRow>(LIST, [organizationId, limit + 1, (page - 1) * limit]),
    pool.query<{ game_count: number }>(COUNT, [organizationId, 0]),
  ]);
  const total = count.rows[0]?.game_count ?? 0;
  const data = rows.rows.slice(0, limit).map(toDto);
  return { data, meta: { page, limit, total, totalPages: Math.ceil(total / limit) } };
});

app.get<{ Params: { id: string } }>('/api/games/:id', async (request, reply) => {
  const { rows } = await pool.query<GameRow>(GET, [request.params.id, 1, 0]);
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
