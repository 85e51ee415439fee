// Builds the real app on a fresh database and hands back callers, so that tests read like the
// contract they check: `const alice = await t.register(); await t.as(alice).get('/games')`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { type AppDependencies, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createDatabase, type Database } from '../../src/db/client.js';
import { createObjectStore } from '../../src/storage/index.js';
import type { ObjectStore } from '../../src/storage/types.js';
import { freePort } from '../global-setup.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { decodeJwt, signJwt } from './jwt.js';
import { hostTable } from './webhooks.js';

export interface Caller {
  /** Headers that authenticate as this caller. */
  headers: Record<string, string>;
}

export interface RegisteredUser extends Caller {
  user: { id: string; email: string; name: string };
  organization: { id: string; name: string };
  cookie: string;
  password: string;
}

export interface TokenCaller extends Caller {
  id: string;
  token: string;
  organizationId: string;
}

export const TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
  // Cheap hashing keeps the suite fast; production uses OWASP's parameters (see config.ts).
  ARGON2_MEMORY_KIB: '1024',
  ARGON2_TIME_COST: '1',
  PUBLIC_URL: 'http://localhost:3000',
  // Test files sign up and call freely; test/rate-limit.test.ts sets the contract's limits.
  RATE_LIMIT_STANDARD_MAX: '1000000',
  RATE_LIMIT_SENSITIVE_MAX: '1000000',
  RATE_LIMIT_EXPORT_MAX: '1000000',
  // Exports need no browser here; the browser lane (test/lanes/browser) turns it on.
  EXPORT_BROWSER: 'off',
};

type Requester = (caller: Caller | null) => {
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  delete(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  post(url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  patch(url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** Any method, for tests that walk a table of endpoints. */
  send(method: 'get' | 'post' | 'patch' | 'delete', url: string, body?: unknown): Promise<LightMyRequestResponse>;
};

/** Dependencies of buildApp a test may replace (the database is always the test's own). */
export type TestDependencies = Partial<Omit<AppDependencies, 'db'>>;

/** Another app instance on the same database, as a second server behind a load balancer. */
export interface TestInstance {
  app: FastifyInstance;
  as: Requester;
  close(): Promise<void>;
}

/** What an upload URL (or download URL) answered: status and body. */
export interface StoreResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: Buffer;
  json(): any;
}

export interface UploadRequest {
  fileName: string;
  contentType: string;
  body: Buffer | string;
  gameId?: string;
  organizationId?: string;
  size?: number;
}

export interface TestApp {
  app: FastifyInstance;
  db: Database;
  store: ObjectStore;
  config: Config;
  databaseUrl: string;
  /** Raw SQL against the test database, for checks the API cannot make. */
  sql<T extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Shorthands that send JSON as `caller`. */
  as: Requester;
  /** Starts a second instance of the app on this test's database; `env` overrides this one's. */
  anotherInstance(env?: Record<string, string>, deps?: TestDependencies): Promise<TestInstance>;
  register(overrides?: Partial<{ email: string; password: string; name: string }>): Promise<RegisteredUser>;
  createToken(owner: Caller, scopes: string[], extra?: Record<string, unknown>): Promise<TokenCaller>;
  /** Makes `user` a member of `organizationId` with `role` (as `owner`, an owner there). */
  addMember(owner: Caller, organizationId: string, user: RegisteredUser, role: 'owner' | 'admin' | 'member'): Promise<void>;
  /** The same session as `user`, but with a JWT issued `ageSeconds` ago (for refresh tests). */
  agedSession(user: RegisteredUser, ageSeconds: number): Caller & { jwt: string };
  /** Row counts of every table, to prove that a refused request changed nothing. */
  rowCounts(): Promise<Record<string, number>>;
  /**
   * Sends a request to a URL the store issued (upload or download), with no service credentials:
   * over the network, or through app.inject for the local store of an app that does not listen.
   */
  fetchUrl(url: string, init?: { method?: string; headers?: Record<string, string>; body?: Buffer | string }): Promise<StoreResponse>;
  /** The whole upload flow (URL, PUT, complete); returns the ready asset. */
  uploadAsset(caller: Caller, upload: UploadRequest): Promise<Record<string, any>>;
  close(): Promise<void>;
}

/** Every table of the schema (not the migrations bookkeeping). */
const TABLES = [
  'users',
  'user_identities',
  'organizations',
  'memberships',
  'sessions',
  'login_attempts',
  'api_tokens',
  'games',
  'assets',
  'variants',
  'variant_assets',
  'exports',
  'export_batches',
  'webhooks',
  'webhook_deliveries',
  'previews',
];

export interface TestAppOptions extends TestDependencies {
  /** Listen on a free port, PUBLIC_URL pointing at it, so signed URLs work over real HTTP. */
  listen?: boolean;
  /** Adds routes or hooks to the app before it is ready (e.g. a route that throws). */
  extend?: (app: FastifyInstance) => void;
  /** Points the app's database client elsewhere (e.g. at a closed port); t.sql still uses the test database. */
  appDatabaseUrl?: string;
  /** A database of the test's own (e.g. on a PostgreSQL the test stops); by default a fresh copy of the template. */
  database?: TestDatabase;
}

let userCounter = 0;

function requester(app: FastifyInstance): Requester {
  return (caller) => {
    const send = (method: InjectOptions['method'], url: string, body?: unknown, headers: Record<string, string> = {}) =>
      app.inject({
        method,
        url: `/api${url}`,
        headers: { ...(caller?.headers ?? {}), ...headers },
        ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }),
      });
    return {
      get: (url, headers) => send('GET', url, undefined, headers),
      delete: (url, headers) => send('DELETE', url, undefined, headers),
      post: (url, body, headers) => send('POST', url, body, headers),
      patch: (url, body, headers) => send('PATCH', url, body, headers),
      send: (method, url, body) => send(method.toUpperCase() as InjectOptions['method'], url, body),
    };
  };
}

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const { listen, extend, appDatabaseUrl, database: ownDatabase, ...given } = options;
  // Webhook hosts are never looked up in DNS by a test: only localhost resolves, unless a test injects its own table.
  const deps: TestDependencies = { resolveHost: hostTable({ localhost: '127.0.0.1' }), ...given };
  const database = ownDatabase ?? (await createTestDatabase());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pcs-test-data-'));
  const port = listen ? await freePort() : undefined;
  const listenEnv = port ? { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` } : {};
  const configFor = (overrides: Record<string, string>) =>
    loadConfig({ ...TEST_ENV, DATA_DIR: dataDir, DATABASE_URL: database.url, ...listenEnv, ...env, ...overrides });
  const config = configFor({});
  const db = createDatabase(appDatabaseUrl ?? database.url, 5);
  const store = deps.store ?? (await createObjectStore(config, { now: deps.now }));
  const app = await buildApp(config, { db, ...deps, store });
  extend?.(app);
  await app.ready();
  if (port) await app.listen({ host: '127.0.0.1', port });
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const as = requester(app);
  const instances: TestInstance[] = [];

  const fetchUrl: TestApp['fetchUrl'] = async (url, init = {}) => {
    const method = init.method ?? 'GET';
    if (!port && url.startsWith(`${config.publicUrl}/`)) {
      const res = await app.inject({
        method: method as InjectOptions['method'],
        url: url.slice(config.publicUrl.length),
        headers: init.headers ?? {},
        ...(init.body === undefined ? {} : { payload: init.body }),
      });
      return { statusCode: res.statusCode, headers: res.headers as Record<string, string>, body: res.rawPayload, json: () => res.json() };
    }
    const res = await fetch(url, { method, headers: init.headers ?? {}, ...(init.body === undefined ? {} : { body: init.body }) });
    const body = Buffer.from(await res.arrayBuffer());
    return {
      statusCode: res.status,
      headers: Object.fromEntries(res.headers),
      body,
      json: () => JSON.parse(body.toString('utf8')),
    };
  };

  return {
    app,
    db,
    store,
    config,
    databaseUrl: database.url,
    sql: async (text, values) => (await pool.query(text, values)).rows,
    inject: (options) => app.inject(options),
    as,
    async anotherInstance(overrides = {}, instanceDeps = deps) {
      const instanceDb = createDatabase(database.url, 5);
      const instanceConfig = configFor(overrides);
      const instanceApp = await buildApp(instanceConfig, { db: instanceDb, store: await createObjectStore(instanceConfig), ...instanceDeps });
      await instanceApp.ready();
      const instance: TestInstance = {
        app: instanceApp,
        as: requester(instanceApp),
        close: async () => {
          await instanceApp.close();
          await instanceDb.$disconnect();
        },
      };
      instances.push(instance);
      return instance;
    },
    async register(overrides = {}) {
      userCounter += 1;
      const input = {
        email: `user${userCounter}-${process.pid}@example.com`,
        password: 'correct horse battery',
        name: `User ${userCounter}`,
        ...overrides,
      };
      const res = await as(null).post('/auth/register', input);
      if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
      const cookie = res.cookies.find((c) => c.name === 'session');
      if (!cookie) throw new Error('register set no session cookie');
      const body = res.json();
      return {
        user: body.user,
        organization: body.organization,
        cookie: cookie.value,
        password: input.password,
        headers: { cookie: `session=${cookie.value}` },
      };
    },
    async createToken(owner, scopes, extra = {}) {
      const res = await as(owner).post('/tokens', { name: `token for ${scopes.join(',')}`, scopes, ...extra });
      if (res.statusCode !== 201) throw new Error(`token creation failed: ${res.statusCode} ${res.body}`);
      const body = res.json();
      return { id: body.id, token: body.token, organizationId: body.organizationId, headers: { authorization: `Bearer ${body.token}` } };
    },
    async addMember(owner, organizationId, user, role) {
      const res = await as(owner).post(`/organizations/${organizationId}/members`, { email: user.user.email, role });
      if (res.statusCode !== 201) throw new Error(`adding a member failed: ${res.statusCode} ${res.body}`);
    },
    agedSession(user, ageSeconds) {
      const { sub, sid } = decodeJwt(user.cookie);
      const iat = Math.floor(Date.now() / 1000) - ageSeconds;
      const jwt = signJwt({ sub, sid, iat, exp: iat + config.auth.sessionTtlSeconds }, config.auth.jwtSecret);
      return { jwt, headers: { cookie: `session=${jwt}` } };
    },
    async rowCounts() {
      const [row] = (await pool.query(`SELECT ${TABLES.map((table) => `(SELECT count(*)::int FROM ${table}) AS ${table}`).join(', ')}`)).rows;
      return row as Record<string, number>;
    },
    fetchUrl,
    async uploadAsset(caller, { body, ...request }) {
      const issued = await as(caller).post('/storage/urls', request);
      if (issued.statusCode !== 201) throw new Error(`upload URL refused: ${issued.statusCode} ${issued.body}`);
      const { assetId, uploadUrl, method, headers } = issued.json();
      const put = await fetchUrl(uploadUrl, { method, headers, body });
      if (put.statusCode !== 200) throw new Error(`upload refused: ${put.statusCode} ${put.body}`);
      const completed = await as(caller).post(`/assets/${assetId}/complete`);
      if (completed.statusCode !== 200) throw new Error(`complete refused: ${completed.statusCode} ${completed.body}`);
      return completed.json();
    },
    async close() {
      for (const instance of instances) await instance.close();
      await app.close();
      await db.$disconnect();
      await pool.end();
      await database.drop();
    },
  };
}

/** Asserts the contract's error body and returns it. */
export function expectError(res: LightMyRequestResponse, statusCode: number, error: string | string[]) {
  const body = res.json();
  const allowed = Array.isArray(error) ? error : [error];
  if (res.statusCode !== statusCode || !allowed.includes(body.error) || typeof body.message !== 'string' || body.statusCode !== statusCode) {
    throw new Error(`expected ${statusCode} ${allowed.join('|')}, got ${res.statusCode} ${res.body}`);
  }
  return body as { statusCode: number; error: string; message: string; details?: Array<{ in: string; path: string; message: string }> };
}
