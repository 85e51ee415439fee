// The service's whole configuration, parsed from the environment once (loadConfig) and passed
// down. Nothing else reads process.env. Every variable is listed in README.md and .env.example.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { makePrivateDirectory, PRIVATE_FILE_MODE } from './lib/private-files.js';
import { BROWSER_MODES, type BrowserMode } from './exporters/browser/manager.js';

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** The address clients use to reach this server; signed local-store URLs are built on it. */
  PUBLIC_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** A connection on which nothing moves for this long is closed (a stalled upload releases its file). */
  HTTP_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),

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

  /** Which proxies' X-Forwarded-* headers to believe: 'true' (all), 'false', or comma-separated IPs/CIDRs. */
  TRUST_PROXY: z.string().default('false'),
  /** Plain HTTP is redirected (GET/HEAD) or refused; on by default when NODE_ENV=production. */
  HTTPS_ENFORCE: booleanFlag.optional(),
  HSTS_MAX_AGE_SECONDS: z.coerce.number().int().min(0).default(31_536_000),
  /** PEM files: when both are set the server speaks HTTPS itself. */
  TLS_CERT_FILE: z.string().min(1).optional(),
  TLS_KEY_FILE: z.string().min(1).optional(),

  /** Rate-limit counters live here when set (shared by every instance), else in memory. */
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  RATE_LIMIT_STANDARD_MAX: z.coerce.number().int().min(1).default(100),
  RATE_LIMIT_STANDARD_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  RATE_LIMIT_SENSITIVE_MAX: z.coerce.number().int().min(1).default(20),
  RATE_LIMIT_SENSITIVE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  RATE_LIMIT_EXPORT_MAX: z.coerce.number().int().min(1).default(10),
  RATE_LIMIT_EXPORT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(300),

  /** OpenID Connect sign-in; the endpoints exist only when issuer, client id and secret are set. */
  OIDC_ISSUER_URL: z.url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** Default: PUBLIC_URL + /api/auth/oidc/callback (register this URL at the provider). */
  OIDC_REDIRECT_URL: z.url().optional(),
  /** Where the browser goes after signing in. Default: the first WEB_APP_ORIGINS entry, else PUBLIC_URL. */
  OIDC_POST_LOGIN_REDIRECT_URL: z.url().optional(),
  OIDC_SCOPES: z.string().default('openid email profile'),

  /** argon2id cost (OWASP's recommended minimum by default: 19 MiB, 2 passes, 1 lane). */
  ARGON2_MEMORY_KIB: z.coerce.number().int().min(1024).default(19456),
  ARGON2_TIME_COST: z.coerce.number().int().min(1).default(2),
  /** How long a verified API token is remembered in-process; 0 looks it up on every request. */
  API_TOKEN_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),

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
  /** Bytes of optimized files a worker process keeps for the next export of the same files (0: none). */
  EXPORT_OPTIMIZE_CACHE_BYTES: z.coerce.number().int().min(0).max(4 * 1024 ** 3).default(32 * 1024 * 1024),
  /** The audio encoder `optimize: "fit"` uses to lower bitrates; looked up on PATH. Without it audio is left as is. */
  FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
  /** How often an idle worker looks for new jobs. */
  QUEUE_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
  /** How often timed-out jobs are detected and old jobs archived. */
  QUEUE_MAINTENANCE_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** Most exports one batch may create (variants × networks). */
  EXPORT_BATCH_MAX_EXPORTS: z.coerce.number().int().min(1).max(1000).default(200),

  // Webhook deliveries: jobs on the same queue, run wherever the export worker runs.
  /** Comma-separated hosts (names or IP addresses) or CIDR ranges a webhook may target although private. */
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)),
  /** An attempt's whole request and response must fit in this. */
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(60).default(10),
  /** Attempts per delivery, the first included. */
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(8),
  /** The first retry waits 1–2 × this; each later one twice as long. */
  WEBHOOK_RETRY_DELAY_SECONDS: z.coerce.number().int().min(1).max(3600).default(4),
  /** How often an idle delivery worker looks for due retries and for deliveries queued by other processes. */
  WEBHOOK_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.5).max(60).default(1),
  /** Run every export in headless Chromium (CONTRACT §9): auto (when a browser is found), required, off. */
  EXPORT_BROWSER: z.enum(BROWSER_MODES).default('auto'),
  /** The browser's executable; otherwise chromium-headless-shell, chromium, chromium-browser, google-chrome… are looked for on PATH. */
  BROWSER_EXECUTABLE_PATH: z.string().min(1).optional(),
  /** Object storage: S3-compatible when S3_BUCKET is set, otherwise local disk under DATA_DIR. */
  S3_BUCKET: z.string().min(1).optional(),
  /** The endpoint the service uses (e.g. http://minio:9000); AWS's regional endpoint when absent. */
  S3_ENDPOINT: z.url().optional(),
  /** The endpoint put into URLs handed to browsers (e.g. http://localhost:9000); S3_ENDPOINT when absent. */
  S3_PUBLIC_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** Static credentials; the AWS SDK's default chain (env, profile, instance role) when absent. */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Bucket in the path (http://host/bucket/key) rather than the host name; MinIO needs it. */
  S3_FORCE_PATH_STYLE: booleanFlag.default(false),
  /** Lifetime of an upload URL (15 minutes by default; S3 allows at most 7 days). */
  UPLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(1).max(604800).default(900),
  /** Lifetime of an asset's downloadUrl. */
  DOWNLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(1).max(604800).default(300),
  /** Largest asset accepted (100 MiB by default). */
  MAX_UPLOAD_BYTES: z.coerce.number().int().min(1).max(5 * 1024 ** 3).default(100 * 1024 * 1024),
  /** HMAC key of the local store's signed URLs. Required in production with the local store. */
  STORAGE_SIGNING_SECRET: z.string().min(32).optional(),
  /** Bytes each organization may keep in assets, pending uploads' declared sizes included (10 GiB). */
  ORG_STORAGE_QUOTA_BYTES: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(10 * 1024 ** 3),
  /** How often abandoned uploads and orphaned objects are swept; 0 turns the sweeper off. */
  STORAGE_SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(7 * 24 * 3600).default(3600),

  // Operations (README "Operations").
  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** The export worker process (`npm run worker`) serves /metrics and the health endpoints on this port; unset: none. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** A Unix socket serving the health endpoints to the container's own probe (the image sets it). */
  HEALTH_SOCKET: z.string().min(1).optional(),
  /** After SIGTERM/SIGINT, a shutdown still running after this long is cut short (exit code 1). */
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(1).max(3600).default(25),
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
    /** Revocation through another instance takes up to this long to reach this one. */
    apiTokenCacheSeconds: number;
  };
  exports: {
    workerInApi: boolean;
    concurrency: number;
    jobTimeoutSeconds: number;
    maxAttempts: number;
    retryDelaySeconds: number;
    optimizeCacheBytes: number;
    ffmpegPath: string;
    pollIntervalSeconds: number;
    maintenanceIntervalSeconds: number;
    /** The validation browser; searchPath is PATH's directories. */
    browser: { mode: BrowserMode; executablePath: string | undefined; searchPath: string[] };
    batchMaxExports: number;
  };
  webhooks: {
    /** Host names, IP addresses or CIDR ranges exempt from the private-address refusal. */
    allowedHosts: string[];
    /** In production: https only, loopback refused. */
    production: boolean;
    timeoutSeconds: number;
    maxAttempts: number;
    retryDelaySeconds: number;
    pollIntervalSeconds: number;
  };
  http: {
    /** Milliseconds without a byte either way before a connection is closed. */
    idleTimeoutMs: number;
    trustProxy: boolean | string[];
    httpsEnforced: boolean;
    hstsMaxAgeSeconds: number;
    tls: { certFile: string; keyFile: string } | null;
  };
  rateLimit: {
    redisUrl: string | undefined;
    tiers: Record<RateLimitTier, { max: number; windowSeconds: number }>;
  };
  /** Null when OpenID Connect sign-in is not configured. */
  oidc: OidcConfig | null;
  storage: {
    backend: LocalStorageConfig | S3StorageConfig;
    uploadUrlTtlSeconds: number;
    downloadUrlTtlSeconds: number;
    maxUploadBytes: number;
    /** Per organization: ready assets plus the declared sizes of uploads still open. */
    orgQuotaBytes: number;
    /** 0 when the sweeper is off. */
    sweepIntervalSeconds: number;
  };
  operations: {
    metricsToken: string | undefined;
    workerMetricsPort: number | undefined;
    healthSocket: string | undefined;
    shutdownTimeoutSeconds: number;
  };
}

export type RateLimitTier = 'standard' | 'sensitive' | 'export';

export interface OidcConfig {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUrl: string;
  postLoginRedirectUrl: string;
  scopes: string;
}

export interface LocalStorageConfig {
  kind: 'local';
  /** Objects live under this directory (DATA_DIR/objects). */
  directory: string;
  signingSecret: string;
  /** Signed URLs start with this (PUBLIC_URL). */
  publicUrl: string;
}

export interface S3StorageConfig {
  kind: 's3';
  bucket: string;
  region: string;
  endpoint: string | undefined;
  publicEndpoint: string | undefined;
  forcePathStyle: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
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
  const problems: string[] = [];
  if (env.NODE_ENV === 'production') problems.push(...productionProblems(env));
  if (Boolean(env.TLS_CERT_FILE) !== Boolean(env.TLS_KEY_FILE)) problems.push('TLS_CERT_FILE, TLS_KEY_FILE: set both or neither');
  if (!env.S3_BUCKET && (env.S3_ENDPOINT || env.S3_PUBLIC_ENDPOINT)) problems.push('S3_BUCKET: required when S3_ENDPOINT is set');
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    problems.push('S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: give both or neither');
  }
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  const oidc = oidcConfig(env, publicUrl, problems);
  if (problems.length) throw new Error(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  const dataDir = path.resolve(env.DATA_DIR);
  return {
    env: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    publicUrl,
    logLevel: env.LOG_LEVEL,
    database: { url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE, embeddedPort: env.EMBEDDED_POSTGRES_PORT },
    dataDir,
    auth: {
      jwtSecret: env.JWT_SECRET ?? persistentDevSecret(dataDir, 'jwt-secret'),
      sessionTtlSeconds: SESSION_TTL_SECONDS,
      refreshAfterSeconds: 24 * 60 * 60,
      cookieSecure: env.COOKIE_SECURE ?? publicUrl.startsWith('https:'),
      webAppOrigins: env.WEB_APP_ORIGINS,
      argon2: { memoryCost: env.ARGON2_MEMORY_KIB, timeCost: env.ARGON2_TIME_COST },
      apiTokenCacheSeconds: env.API_TOKEN_CACHE_SECONDS,
    },
    exports: {
      workerInApi: env.EXPORT_WORKER_IN_API,
      concurrency: env.EXPORT_WORKER_CONCURRENCY,
      jobTimeoutSeconds: env.EXPORT_JOB_TIMEOUT_SECONDS,
      maxAttempts: env.EXPORT_MAX_ATTEMPTS,
      retryDelaySeconds: env.EXPORT_RETRY_DELAY_SECONDS,
      optimizeCacheBytes: env.EXPORT_OPTIMIZE_CACHE_BYTES,
      ffmpegPath: env.FFMPEG_PATH,
      pollIntervalSeconds: env.QUEUE_POLL_INTERVAL_SECONDS,
      maintenanceIntervalSeconds: env.QUEUE_MAINTENANCE_INTERVAL_SECONDS,
      browser: {
        mode: env.EXPORT_BROWSER,
        executablePath: env.BROWSER_EXECUTABLE_PATH,
        searchPath: (source.PATH ?? '').split(path.delimiter).filter(Boolean),
      },
      batchMaxExports: env.EXPORT_BATCH_MAX_EXPORTS,
    },
    webhooks: {
      allowedHosts: env.WEBHOOK_ALLOWED_HOSTS,
      production: env.NODE_ENV === 'production',
      timeoutSeconds: env.WEBHOOK_TIMEOUT_SECONDS,
      maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      retryDelaySeconds: env.WEBHOOK_RETRY_DELAY_SECONDS,
      pollIntervalSeconds: env.WEBHOOK_POLL_INTERVAL_SECONDS,
    },
    http: {
      idleTimeoutMs: env.HTTP_IDLE_TIMEOUT_SECONDS * 1000,
      trustProxy: parseTrustProxy(env.TRUST_PROXY),
      httpsEnforced: env.HTTPS_ENFORCE ?? env.NODE_ENV === 'production',
      hstsMaxAgeSeconds: env.HSTS_MAX_AGE_SECONDS,
      tls: env.TLS_CERT_FILE && env.TLS_KEY_FILE ? { certFile: env.TLS_CERT_FILE, keyFile: env.TLS_KEY_FILE } : null,
    },
    rateLimit: {
      redisUrl: env.REDIS_URL,
      tiers: {
        standard: { max: env.RATE_LIMIT_STANDARD_MAX, windowSeconds: env.RATE_LIMIT_STANDARD_WINDOW_SECONDS },
        sensitive: { max: env.RATE_LIMIT_SENSITIVE_MAX, windowSeconds: env.RATE_LIMIT_SENSITIVE_WINDOW_SECONDS },
        export: { max: env.RATE_LIMIT_EXPORT_MAX, windowSeconds: env.RATE_LIMIT_EXPORT_WINDOW_SECONDS },
      },
    },
    oidc,
    storage: {
      backend: env.S3_BUCKET
        ? {
            kind: 's3',
            bucket: env.S3_BUCKET,
            region: env.S3_REGION,
            endpoint: env.S3_ENDPOINT,
            publicEndpoint: env.S3_PUBLIC_ENDPOINT,
            forcePathStyle: env.S3_FORCE_PATH_STYLE,
            credentials:
              env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
                ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
                : undefined,
          }
        : {
            kind: 'local',
            directory: path.join(dataDir, 'objects'),
            signingSecret: env.STORAGE_SIGNING_SECRET ?? persistentDevSecret(dataDir, 'storage-signing-secret'),
            publicUrl,
          },
      uploadUrlTtlSeconds: env.UPLOAD_URL_TTL_SECONDS,
      downloadUrlTtlSeconds: env.DOWNLOAD_URL_TTL_SECONDS,
      maxUploadBytes: env.MAX_UPLOAD_BYTES,
      orgQuotaBytes: env.ORG_STORAGE_QUOTA_BYTES,
      sweepIntervalSeconds: env.STORAGE_SWEEP_INTERVAL_SECONDS,
    },
    operations: {
      metricsToken: env.METRICS_TOKEN,
      workerMetricsPort: env.WORKER_METRICS_PORT,
      healthSocket: env.HEALTH_SOCKET,
      shutdownTimeoutSeconds: env.SHUTDOWN_TIMEOUT_SECONDS,
    },
  };
}

/**
 * Obvious stand-ins for a secret: the compose and example defaults ("change-me…", MinIO's
 * "minioadmin") and their kind, or one character repeated.
 */
const PLACEHOLDER = /change[-_. ]?me|replace[-_. ]?me|placeholder|example|minioadmin|^(.)\1*$/i;
const RANDOM_SECRET_HINT = 'set it to a random value, e.g. the output of `openssl rand -base64 48`';

/** What production needs that development does without: a real database and real secrets. */
function productionProblems(env: z.output<typeof envSchema>): string[] {
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

function parseTrustProxy(value: string): boolean | string[] {
  if (value === 'true' || value === 'false') return value === 'true';
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

function oidcConfig(env: z.output<typeof envSchema>, publicUrl: string, problems: string[]): OidcConfig | null {
  const { OIDC_ISSUER_URL: issuerUrl, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = env;
  if (!issuerUrl && !clientId && !clientSecret) return null;
  if (!issuerUrl || !clientId || !clientSecret) {
    problems.push('OIDC_ISSUER_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: set all three or none');
    return null;
  }
  // Plain HTTP would expose the client secret and the tokens; only a provider on this machine may use it.
  if (new URL(issuerUrl).protocol !== 'https:' && !LOOPBACK_HOSTS.has(new URL(issuerUrl).hostname)) {
    problems.push('OIDC_ISSUER_URL: must be https (http only on loopback)');
  }
  return {
    issuerUrl,
    clientId,
    clientSecret,
    redirectUrl: env.OIDC_REDIRECT_URL ?? `${publicUrl}/api/auth/oidc/callback`,
    postLoginRedirectUrl: env.OIDC_POST_LOGIN_REDIRECT_URL ?? env.WEB_APP_ORIGINS[0] ?? publicUrl,
    scopes: env.OIDC_SCOPES,
  };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Outside production a random secret is kept in DATA_DIR, so sessions and URLs survive a restart. */
function persistentDevSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (!existsSync(dataDir)) makePrivateDirectory(dataDir);
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: PRIVATE_FILE_MODE });
  return secret;
}
