// The service's whole configuration, parsed from the environment once (loadConfig) and passed
// down. Nothing else reads process.env. Every variable is listed in README.md and .env.example.
// The variables themselves are in config-env.ts, the rules for secrets in config-secrets.ts.
import path from 'node:path';
import { envSchema, type ParsedEnv } from './config-env.js';
import { persistentDevSecret, productionProblems } from './config-secrets.js';
import type { BrowserMode } from './exporters/browser/manager.js';

export type { Env } from './config-env.js';

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
              env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY } : undefined,
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

function parseTrustProxy(value: string): boolean | string[] {
  if (value === 'true' || value === 'false') return value === 'true';
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function oidcConfig(env: ParsedEnv, publicUrl: string, problems: string[]): OidcConfig | null {
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
