// Seeds the benchmark database with set-based inserts (one INSERT … SELECT generate_series per
// organization), so a million games take seconds rather than a million round-trips.
import { randomUUID } from 'node:crypto';
import argon2 from 'argon2';
import pg from 'pg';
import type { Config } from '../src/config.js';
import { newTokenSecret } from '../src/modules/tokens/secret.js';

export interface SeededOrganization {
  id: string;
  games: number;
  /** Bearer secret of an API token of this organization with every scope the bench needs. */
  token: string;
  /** A sample of game ids, spread over the whole organization, for GET /games/{id}. */
  sampleGameIds: string[];
}

export const BENCH_USER = { email: 'bench@example.com', password: 'bench password 123' };
const TOKEN_SCOPES = ['games:read', 'games:write', 'assets:read', 'assets:write'];
const SAMPLE_SIZE = 1000;

/** Creates the bench user (with the service's real argon2 parameters) and its organizations. */
export async function seed(
  databaseUrl: string,
  argon2Options: Config['auth']['argon2'],
  gameCounts: Record<string, number>,
): Promise<Record<string, SeededOrganization>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const userId = randomUUID();
    const passwordHash = await argon2.hash(BENCH_USER.password, { type: argon2.argon2id, ...argon2Options, parallelism: 1 });
    await client.query(`INSERT INTO users (id, email, name, password_hash, updated_at) VALUES ($1, $2, 'Bench', $3, now())`, [
      userId,
      BENCH_USER.email,
      passwordHash,
    ]);
    const organizations: Record<string, SeededOrganization> = {};
    for (const [name, games] of Object.entries(gameCounts)) {
      organizations[name] = await seedOrganization(client, userId, name, games);
    }
    await client.query('ANALYZE');
    return organizations;
  } finally {
    await client.end();
  }
}

async function seedOrganization(client: pg.Client, userId: string, name: string, games: number): Promise<SeededOrganization> {
  const id = randomUUID();
  await client.query(`INSERT INTO organizations (id, name, updated_at) VALUES ($1, $2, now())`, [id, `bench ${name}`]);
  await client.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [id, userId]);
  const { secret, prefix, hash } = newTokenSecret();
  await client.query(
    `INSERT INTO api_tokens (id, organization_id, created_by_id, name, prefix, token_hash, scopes)
     VALUES ($1, $2, $3, 'bench', $4, $5, $6)`,
    [randomUUID(), id, userId, prefix, hash, TOKEN_SCOPES],
  );
  // One statement for all rows; distinct timestamps one millisecond apart, newest first.
  await client.query(
    `INSERT INTO games (id, organization_id, name, description, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'Game ' || n, 'Seeded for the benchmark',
            now() - n * interval '1 millisecond', now() - n * interval '1 millisecond'
     FROM generate_series(1, $2::int) AS n`,
    [id, games],
  );
  const { rows } = await client.query<{ id: string }>(`SELECT id FROM games WHERE organization_id = $1 ORDER BY random() LIMIT $2`, [id, SAMPLE_SIZE]);
  return { id, games, token: secret, sampleGameIds: rows.map((r) => r.id) };
}
