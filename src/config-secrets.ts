// Secrets: what production refuses (no database, a missing or placeholder secret) and, outside
// production, the random secrets kept in DATA_DIR so that sessions and URLs survive a restart.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ParsedEnv } from './config-env.js';
import { makePrivateDirectory, PRIVATE_FILE_MODE } from './lib/private-files.js';

/**
 * Obvious stand-ins for a secret: the compose and example defaults ("change-me…", MinIO's
 * "minioadmin") and their kind, or one character repeated.
 */
const PLACEHOLDER = /change[-_. ]?me|replace[-_. ]?me|placeholder|example|minioadmin|^(.)\1*$/i;
const RANDOM_SECRET_HINT = 'set it to a random value, e.g. the output of `openssl rand -base64 48`';

/** What production needs that development does without: a real database and real secrets. */
export function productionProblems(env: ParsedEnv): string[] {
  const problems: string[] = [];
  if (!env.DATABASE_URL) {
    problems.push(
      'DATABASE_URL: required when NODE_ENV=production (the embedded PostgreSQL is for development and tests); ' +
        'set it to your PostgreSQL, e.g. postgresql://pcs:<password>@db.internal:5432/pcs',
    );
  } else {
    const url = URL.canParse(env.DATABASE_URL) ? new URL(env.DATABASE_URL) : undefined;
    const password = url ? decodeURIComponent(url.password) : '';
    if (password && (PLACEHOLDER.test(password) || password === decodeURIComponent(url!.username))) {
      problems.push('DATABASE_URL: its password is a placeholder (or the user name); set a real one (docker compose: POSTGRES_PASSWORD)');
    }
  }
  if (!env.JWT_SECRET) problems.push(`JWT_SECRET: required when NODE_ENV=production; ${RANDOM_SECRET_HINT}`);
  if (!env.S3_BUCKET && !env.STORAGE_SIGNING_SECRET) {
    problems.push(`STORAGE_SIGNING_SECRET: required when NODE_ENV=production and the local store is used (no S3_BUCKET); ${RANDOM_SECRET_HINT}`);
  }
  for (const name of ['JWT_SECRET', 'STORAGE_SIGNING_SECRET', 'OIDC_CLIENT_SECRET'] as const) {
    const value = env[name];
    if (value && PLACEHOLDER.test(value)) problems.push(`${name}: is a placeholder, refused when NODE_ENV=production; ${RANDOM_SECRET_HINT}`);
  }
  if (env.S3_SECRET_ACCESS_KEY && PLACEHOLDER.test(env.S3_SECRET_ACCESS_KEY)) {
    problems.push(
      "S3_SECRET_ACCESS_KEY: is a placeholder (MinIO's default minioadmin or the like), refused when NODE_ENV=production; " +
        "set the object store's real credentials (docker compose: MINIO_ROOT_USER and MINIO_ROOT_PASSWORD)",
    );
  }
  return problems;
}

/** Outside production a random secret is kept in DATA_DIR, so sessions and URLs survive a restart. */
export function persistentDevSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (!existsSync(dataDir)) makePrivateDirectory(dataDir);
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: PRIVATE_FILE_MODE });
  return secret;
}
