// The service's whole configuration, parsed from the environment once (loadConfig) and passed
// down. Nothing else reads process.env. Every variable is listed in README.md and .env.example.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** The address clients use to reach this server; signed local-store URLs are built on it. */
  PUBLIC_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  /** PostgreSQL; when absent an embedded PostgreSQL is started with its data in DATA_DIR. */
  DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().default('./.data'),
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),

  /** HS256 key for session JWTs. Required in production; elsewhere one is kept in DATA_DIR. */
  JWT_SECRET: z.string().min(32).optional(),
  /** Origins of the browser app allowed to make cookie-authenticated writes (comma-separated). */
  WEB_APP_ORIGINS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((o) => o.trim()).filter(Boolean)),
  COOKIE_SECURE: booleanFlag.optional(),

  /** argon2id cost (OWASP's recommended minimum by default: 19 MiB, 2 passes, 1 lane). */
  ARGON2_MEMORY_KIB: z.coerce.number().int().min(1024).default(19456),
  ARGON2_TIME_COST: z.coerce.number().int().min(1).default(2),

  // Exports run from a pg-boss queue in PostgreSQL (its own schema, `pgboss`).
  /** Run the export worker inside the API process; false when only `npm run worker` processes work. */
  EXPORT_WORKER_IN_API: booleanFlag.default(true),
  /** Exports one worker process builds at the same time. */
  EXPORT_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** A job still running after this long (e.g. its worker crashed) is failed and retried. */
  EXPORT_JOB_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  /** Attempts per export, the first included; the last failure is recorded in the export's error. */
  EXPORT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** Delay before a retry (doubled per attempt, with jitter). */
  EXPORT_RETRY_DELAY_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
  /** How often an idle worker looks for new jobs. */
  QUEUE_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
  /** How often timed-out jobs are detected and old jobs archived. */
  QUEUE_MAINTENANCE_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
});

export type Env = z.input<typeof envSchema>;

export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  publicUrl: string;
  logLevel: string;
  database: { url: string | undefined; poolSize: number; embeddedPort: number };
  dataDir: string;
  auth: {
    jwtSecret: string;
    sessionTtlSeconds: number;
    /** A session JWT older than this is replaced by a fresh one on its next use. */
    refreshAfterSeconds: number;
    cookieSecure: boolean;
    webAppOrigins: string[];
    argon2: { memoryCost: number; timeCost: number };
  };
  exports: {
    workerInApi: boolean;
    concurrency: number;
    jobTimeoutSeconds: number;
    maxAttempts: number;
    retryDelaySeconds: number;
    pollIntervalSeconds: number;
    maintenanceIntervalSeconds: number;
  };
}

export const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;

/** Parses the environment; throws with every problem listed when it is invalid. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${problems}`);
  }
  const env = parsed.data;
  if (env.NODE_ENV === 'production' && !env.JWT_SECRET) {
    throw new Error('Invalid configuration:\n  JWT_SECRET: required when NODE_ENV=production');
  }
  const dataDir = path.resolve(env.DATA_DIR);
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  return {
    env: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    publicUrl,
    logLevel: env.LOG_LEVEL,
    database: { url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE, embeddedPort: env.EMBEDDED_POSTGRES_PORT },
    dataDir,
    auth: {
      jwtSecret: env.JWT_SECRET ?? persistentDevSecret(dataDir),
      sessionTtlSeconds: SESSION_TTL_SECONDS,
      refreshAfterSeconds: 24 * 60 * 60,
      cookieSecure: env.COOKIE_SECURE ?? publicUrl.startsWith('https:'),
      webAppOrigins: env.WEB_APP_ORIGINS,
      argon2: { memoryCost: env.ARGON2_MEMORY_KIB, timeCost: env.ARGON2_TIME_COST },
    },
    exports: {
      workerInApi: env.EXPORT_WORKER_IN_API,
      concurrency: env.EXPORT_WORKER_CONCURRENCY,
      jobTimeoutSeconds: env.EXPORT_JOB_TIMEOUT_SECONDS,
      maxAttempts: env.EXPORT_MAX_ATTEMPTS,
      retryDelaySeconds: env.EXPORT_RETRY_DELAY_SECONDS,
      pollIntervalSeconds: env.QUEUE_POLL_INTERVAL_SECONDS,
      maintenanceIntervalSeconds: env.QUEUE_MAINTENANCE_INTERVAL_SECONDS,
    },
  };
}

/** Outside production a random secret is kept in DATA_DIR, so sessions survive a restart. */
function persistentDevSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
