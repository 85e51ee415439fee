// The environment variables the service reads, their types, ranges and defaults: one zod schema
// that src/config.ts parses once. README's configuration tables and .env.example list each.
import { z } from 'zod';
import { BROWSER_MODES } from './exporters/browser/manager.js';

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const envSchema = z.object({
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
    .transform((s) =>
      s
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    ),
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
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
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
  EXPORT_OPTIMIZE_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(4 * 1024 ** 3)
    .default(32 * 1024 * 1024),
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
    .transform((s) =>
      s
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
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
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(5 * 1024 ** 3)
    .default(100 * 1024 * 1024),
  /** HMAC key of the local store's signed URLs. Required in production with the local store. */
  STORAGE_SIGNING_SECRET: z.string().min(32).optional(),
  /** Bytes each organization may keep in assets, pending uploads' declared sizes included (10 GiB). */
  ORG_STORAGE_QUOTA_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(10 * 1024 ** 3),
  /** How often abandoned uploads and orphaned objects are swept; 0 turns the sweeper off. */
  STORAGE_SWEEP_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(3600),

  // Operations (README "Operations").
  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
  // Presented as a bearer credential, which cannot hold whitespace.
  METRICS_TOKEN: z.string().min(16).regex(/^\S+$/, 'must not contain whitespace').optional(),
  /** The export worker process (`npm run worker`) serves /metrics and the health endpoints on this port; unset: none. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** A Unix socket serving the health endpoints to the container's own probe (the image sets it). */
  HEALTH_SOCKET: z.string().min(1).optional(),
  /** After SIGTERM/SIGINT, a shutdown still running after this long is cut short (exit code 1). */
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(1).max(3600).default(25),
});

export type Env = z.input<typeof envSchema>;

export type ParsedEnv = z.output<typeof envSchema>;
