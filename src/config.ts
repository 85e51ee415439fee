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
  http: {
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
  if (Boolean(env.TLS_CERT_FILE) !== Boolean(env.TLS_KEY_FILE)) {
    throw new Error('Invalid configuration:\n  TLS_CERT_FILE, TLS_KEY_FILE: set both or neither');
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
    http: {
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
    oidc: oidcConfig(env, publicUrl),
  };
}

function parseTrustProxy(value: string): boolean | string[] {
  if (value === 'true' || value === 'false') return value === 'true';
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

function oidcConfig(env: z.output<typeof envSchema>, publicUrl: string): OidcConfig | null {
  const { OIDC_ISSUER_URL: issuerUrl, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = env;
  if (!issuerUrl && !clientId && !clientSecret) return null;
  if (!issuerUrl || !clientId || !clientSecret) {
    throw new Error('Invalid configuration:\n  OIDC_ISSUER_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: set all three or none');
  }
  // Plain HTTP would expose the client secret and the tokens; only a provider on this machine may use it.
  const issuer = new URL(issuerUrl);
  if (issuer.protocol !== 'https:' && !LOOPBACK_HOSTS.has(issuer.hostname)) {
    throw new Error('Invalid configuration:\n  OIDC_ISSUER_URL: must be https (http only on loopback)');
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

export const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Outside production a random secret is kept in DATA_DIR, so sessions survive a restart. */
function persistentDevSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
