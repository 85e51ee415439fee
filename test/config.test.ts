// CONTRACT §8, production start-up (issue #9 finding 6 and "Production start-up"): production
// refuses to run on the embedded PostgreSQL and on placeholder secrets, saying what to set.
// The server process itself refusing is in test/server.test.ts.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

const secret = () => randomBytes(32).toString('base64url');
/** A production configuration that starts: real-looking secrets everywhere. */
const production = () => ({
  NODE_ENV: 'production',
  DATA_DIR: mkdtempSync(path.join(tmpdir(), 'pcs-config-test-')),
  DATABASE_URL: `postgresql://pcs:${secret()}@db.internal:5432/pcs`,
  JWT_SECRET: secret(),
  STORAGE_SIGNING_SECRET: secret(),
});

/** The error loadConfig throws for `env`. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('loadConfig accepted the configuration');
}

describe('production configuration', () => {
  it('starts with real secrets', () => {
    const config = loadConfig(production());
    expect(config.env).toBe('production');
    expect(config.database.url).toMatch(/^postgresql:\/\/pcs:/);
  });

  it('refuses to run without DATABASE_URL, saying what to set', () => {
    const { DATABASE_URL: _url, ...env } = production();
    expect(refusal(env)).toMatch(/DATABASE_URL: required when NODE_ENV=production.*embedded PostgreSQL/);
  });

  it.each([
    ['the compose default', 'change-me-change-me-change-me-change-me'],
    ['CHANGEME in capitals', `CHANGEME-${secret()}`],
    ['replace-me', `replace_me_with_a_random_value_of_48_chars_please`],
    ['one character repeated', 'x'.repeat(40)],
    ['an example value', 'example-secret-example-secret-example-secret'],
  ])('refuses a JWT_SECRET that is a placeholder: %s', (_case, value) => {
    expect(refusal({ ...production(), JWT_SECRET: value })).toMatch(/JWT_SECRET: .*placeholder.*openssl rand/);
  });

  it('refuses a placeholder STORAGE_SIGNING_SECRET', () => {
    expect(refusal({ ...production(), STORAGE_SIGNING_SECRET: 'change-me-change-me-change-me-change-me' })).toMatch(/STORAGE_SIGNING_SECRET: .*placeholder/);
  });

  it("refuses MinIO's default credentials (the compose defaults)", () => {
    const env = { ...production(), S3_BUCKET: 'playables', S3_ACCESS_KEY_ID: 'minioadmin', S3_SECRET_ACCESS_KEY: 'minioadmin' };
    expect(refusal(env)).toMatch(/S3_SECRET_ACCESS_KEY: .*minioadmin.*MINIO_ROOT_PASSWORD/);
    expect(loadConfig({ ...env, S3_SECRET_ACCESS_KEY: secret() }).storage.backend.kind).toBe('s3');
  });

  it('refuses a database password that is a placeholder or the user name (the compose default pcs:pcs)', () => {
    for (const url of ['postgresql://pcs:pcs@postgres:5432/pcs', 'postgresql://app:change-me@db/app']) {
      expect(refusal({ ...production(), DATABASE_URL: url })).toMatch(/DATABASE_URL: .*password.*POSTGRES_PASSWORD/);
    }
    // No password in the URL: the server's own authentication (e.g. a socket or a trust rule) decides.
    expect(loadConfig({ ...production(), DATABASE_URL: 'postgresql://pcs@db.internal/pcs' }).database.url).toBeDefined();
  });

  it('refuses a placeholder OIDC client secret', () => {
    const env = { ...production(), OIDC_ISSUER_URL: 'https://idp.example.com', OIDC_CLIENT_ID: 'pcs', OIDC_CLIENT_SECRET: 'changeme' };
    expect(refusal(env)).toMatch(/OIDC_CLIENT_SECRET: .*placeholder/);
  });

  it('lists every problem at once', () => {
    const message = refusal({ ...production(), JWT_SECRET: 'change-me-change-me-change-me-change-me', DATABASE_URL: 'postgresql://pcs:pcs@db/pcs' });
    expect(message).toMatch(/JWT_SECRET/);
    expect(message).toMatch(/DATABASE_URL/);
  });

  it('lets development and test use placeholders and the embedded PostgreSQL', () => {
    for (const NODE_ENV of ['development', 'test']) {
      const { DATABASE_URL: _url, ...env } = production();
      expect(loadConfig({ ...env, NODE_ENV, JWT_SECRET: 'change-me-change-me-change-me-change-me' }).env).toBe(NODE_ENV);
    }
  });
});

describe('METRICS_TOKEN', () => {
  it('refuses whitespace, which a bearer credential cannot carry (the token could never be presented)', () => {
    expect(refusal({ ...production(), METRICS_TOKEN: 'a metrics token with spaces' })).toMatch(/METRICS_TOKEN.*must not contain whitespace/s);
    expect(loadConfig({ ...production(), METRICS_TOKEN: 'a-metrics-token-without-spaces' }).operations.metricsToken).toBe('a-metrics-token-without-spaces');
  });
});
