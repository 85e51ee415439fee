// CONTRACT §2: every error has the body { statusCode, error, message }; the rows of the error
// table that belong to the core (429 is the rate limiter's, tested with it). Also §1's
// API-Version header on every response.
import { createHmac, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPreviewLinks } from '../src/modules/previews/link.js';
import { isDatabaseUnavailable } from '../src/plugins/errors.js';
import { freePort } from './global-setup.js';
import { createTestApp, expectError, type RegisteredUser, type TestApp, type TokenCaller } from './helpers/app.js';
import { createSampleVariant } from './helpers/exports.js';
import { SAMPLE_CONFIG } from './helpers/sample-game.js';

/** Records the first argument of every line the app's requests log at `level`. */
function recordLogLines(app: FastifyInstance, level: 'error' | 'warn', lines: unknown[]): void {
  app.addHook('onRequest', async (request) => {
    const log = request.log;
    const write = log[level].bind(log);
    log[level] = ((...args: Parameters<typeof write>) => {
      lines.push(args[0]);
      return write(...args);
    }) as typeof write;
  });
}

let t: TestApp;
let user: RegisteredUser;
const loggedErrors: unknown[] = [];
const SECRET_DETAIL = 'relation "users" password_hash SELECT 42 at /srv/app/secret.ts:13';

beforeAll(async () => {
  t = await createTestApp(
    {},
    {
      extend(app: FastifyInstance) {
        // A route that fails unexpectedly, to see what a 500 reveals and what it logs.
        app.get('/api/test-failure', async () => {
          throw new Error(SECRET_DETAIL);
        });
        recordLogLines(app, 'error', loggedErrors);
      },
    },
  );
  user = await t.register();
});
afterAll(() => t.close());

const json = { 'content-type': 'application/json' };
const raw = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload: string | Buffer, headers: Record<string, string>) =>
  t.inject({ method, url: `/api${url}`, payload, headers: { ...user.headers, ...headers } });

describe('error table (CONTRACT §2)', () => {
  it('404 for an unknown route, inside /api and outside, for any method', async () => {
    for (const [method, url] of [
      ['GET', '/api/nope'],
      ['POST', '/api/games/x/y/z'],
      ['DELETE', '/api/games'],
      ['GET', '/not-the-api'],
    ] as const) {
      const body = expectError(await t.inject({ method, url }), 404, 'RESOURCE_NOT_FOUND');
      expect(body.message).toContain('not found');
    }
  });

  it('400 for malformed JSON, changing nothing', async () => {
    const before = await t.rowCounts();
    for (const payload of ['{"name": "x"', '{name: "x"}', 'not json', '  ', '{"__proto__": {"admin": true}, "name": "x"}']) {
      const error = expectError(await raw('POST', '/games', payload, json), 400, 'VALIDATION_ERROR');
      expect(error.message).not.toMatch(/Unexpected token|SyntaxError|at position/);
    }
    expect(await t.rowCounts()).toEqual(before);
  });

  it('415 for a body that is not JSON, changing nothing', async () => {
    const before = await t.rowCounts();
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
      expectError(await raw('POST', '/games', 'name=x', { 'content-type': contentType }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    // A body with no Content-Type at all.
    expectError(await t.inject({ method: 'POST', url: '/api/games', payload: Buffer.from('{"name":"x"}'), headers: user.headers }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    // A content coding the service does not decode (RFC 9110 §15.5.16): it was read as plain JSON.
    for (const encoding of ['gzip', 'br', 'deflate, identity']) {
      const coded = expectError(await raw('POST', '/games', '{"name":"coded"}', { ...json, 'content-encoding': encoding }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(coded.message).toMatch(/Content-Encoding/);
    }
    expect(await t.rowCounts()).toEqual(before);
    expect((await raw('POST', '/games', '{"name":"identity"}', { ...json, 'content-encoding': 'identity' })).statusCode).toBe(201);
  });

  it('accepts JSON with a charset, and an empty body sent with a JSON Content-Type as no body', async () => {
    const created = await raw('POST', '/games', JSON.stringify({ name: 'Charset' }), { 'content-type': 'application/json; charset=utf-8' });
    expect(created.statusCode).toBe(201);
    expect((await raw('DELETE', `/games/${created.json().id}`, '', json)).statusCode).toBe(204);
    const error = expectError(await raw('POST', '/games', '', json), 400, 'VALIDATION_ERROR');
    expect(error.details?.[0]).toMatchObject({ in: 'body', path: '' });
  });

  it('400 for fields sent to an endpoint that takes no body, changing nothing; an empty object or no body is fine', async () => {
    const game = (await t.as(user).post('/games', { name: 'no-body endpoints' })).json();
    const before = await t.rowCounts();
    for (const [method, url] of [
      ['DELETE', `/games/${game.id}`],
      ['POST', '/auth/refresh'],
    ] as const) {
      const error = expectError(await raw(method, url, '{"force":true}', json), 400, 'VALIDATION_ERROR');
      expect(error.details).toEqual([{ in: 'body', path: 'force', message: 'is an unknown field' }]);
      expect(expectError(await raw(method, url, '[1]', json), 400, 'VALIDATION_ERROR').details).toEqual([
        { in: 'body', path: '', message: 'this endpoint takes no body' },
      ]);
    }
    expect(await t.rowCounts()).toEqual(before);
    expect((await t.as(user).get(`/games/${game.id}`)).statusCode).toBe(200);
    expect((await raw('DELETE', `/games/${game.id}`, '{}', json)).statusCode).toBe(204);
  });

  it('413 for a body over the limit (1 MiB), changing nothing', async () => {
    const before = await t.rowCounts();
    const payload = JSON.stringify({ name: 'big', description: 'x'.repeat(1024 * 1024) });
    expectError(await raw('POST', '/games', payload, json), 413, 'PAYLOAD_TOO_LARGE');
    expect(await t.rowCounts()).toEqual(before);
  });

  it('400 with details for an invalid body, query and NUL characters', async () => {
    const body = expectError(await t.as(user).post('/games', { name: 7, extra: true }), 400, 'VALIDATION_ERROR');
    // The contract's shape ({ path: "name", … }), with the part of the request it is in; an unknown field is named itself.
    expect(body.details).toEqual([
      { in: 'body', path: 'name', message: expect.any(String) },
      { in: 'body', path: 'extra', message: 'is an unknown field' },
    ]);
    expect(body.message).toMatch(/^Invalid request: body\.(name|extra): /);
    const nul = expectError(await t.as(user).post('/games', { name: 'ok', description: 'a\u0000b' }), 400, 'VALIDATION_ERROR');
    expect(nul.details).toEqual([{ in: 'body', path: 'description', message: 'must not contain the NUL character' }]);
    expect(expectError(await t.as(user).get('/games?q=a%00b'), 400, 'VALIDATION_ERROR').details?.[0]).toMatchObject({ in: 'query', path: 'q' });
    // In a key too, and among other escapes (the check looks for `%00` in the URL before it walks the query).
    expect(expectError(await t.as(user).get('/games?q=%41%2500&x%00=1'), 400, 'VALIDATION_ERROR').details?.[0]).toMatchObject({ in: 'query', path: '' });
    expect((await t.as(user).get('/games?q=%2500')).statusCode).toBe(200);
    expectError(await t.as(null).post('/auth/login', { email: 'x\u0000@example.com', password: 'whatever1' }), 400, 'VALIDATION_ERROR');
    // A DELETE reads no query, but may carry a body: it is checked like any other.
    const game = (await t.as(user).post('/games', { name: 'nul-check' })).json();
    const nulDelete = await t.inject({
      method: 'DELETE',
      url: `/api/games/${game.id}`,
      payload: '{"x":"a\\u0000"}',
      headers: { ...user.headers, 'content-type': 'application/json' },
    });
    expect(expectError(nulDelete, 400, 'VALIDATION_ERROR').details?.[0]).toMatchObject({ in: 'body', path: 'x' });
    expect((await t.as(user).get(`/games/${game.id}`)).statusCode).toBe(200);
  });

  it('400 for a lone UTF-16 surrogate in a JSON body, in a value or a key (PostgreSQL refuses it in JSON, and would mangle it in text); a pair is kept', async () => {
    const { variant } = await createSampleVariant(t, user, { name: 'Surrogates' });
    const before = await t.rowCounts();
    for (const [method, path, body, at] of [
      ['PATCH', `/variants/${variant.id}`, { config: { title: 'x\ud83d' } }, 'config.title'],
      ['PATCH', `/variants/${variant.id}`, { config: { '\udc00': 1 } }, 'config'],
      ['POST', '/games', { name: 'half \ud800 a pair' }, 'name'],
      // The pair in `name` is fine: the lone one is in `description`.
      ['POST', '/games', { name: 'a pair \ud83d\ude00', description: 'lone \ude00\ud83d' }, 'description'],
    ] as const) {
      const res = await t.inject({ method, url: `/api${path}`, payload: JSON.stringify(body), headers: { ...user.headers, 'content-type': 'application/json' } });
      expect(expectError(res, 400, 'VALIDATION_ERROR').details, path).toEqual([
        { in: 'body', path: at, message: 'must be well-formed Unicode (it holds a lone surrogate)' },
      ]);
    }
    expect(await t.rowCounts()).toEqual(before);
    expect((await t.as(user).get(`/variants/${variant.id}`)).json().config).toEqual(SAMPLE_CONFIG);
    // A pair escaped in the JSON text, as many encoders write emoji (Python's json.dumps), is one character.
    const paired = await t.inject({
      method: 'POST',
      url: '/api/games',
      payload: '{"name":"a pair \\ud83d\\ude00","description":"\\uD83D\\uDE00 and \\u00e9"}',
      headers: { ...user.headers, 'content-type': 'application/json' },
    });
    expect(paired.statusCode, paired.body).toBe(201);
    expect(paired.json()).toMatchObject({ name: 'a pair 😀', description: '😀 and é' });
  });

  it('ignores a NUL in the query of a GET that reads no query: it reaches no query of ours', async () => {
    const game = (await t.as(user).post('/games', { name: 'nul-in-unread-query' })).json();
    const res = await t.as(user).get(`/games/${game.id}?x=a%00b`);
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toBe(game.id);
  });

  it('400 for a URL that cannot be decoded, 404 for an id too long for the router', async () => {
    expectError(await t.as(user).get('/games/%E0%A4%A'), 400, 'VALIDATION_ERROR');
    expectError(await t.as(user).get(`/games/${'a'.repeat(500)}`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('401 for a missing or unusable credential, before anything else is looked at', async () => {
    expectError(await t.as(null).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    expectError(await t.as(null).post('/games', { bad: 'body' }), 401, 'AUTHENTICATION_REQUIRED');
    expectError(await t.as({ headers: { authorization: 'Bearer' } }).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    expectError(await t.as({ headers: { authorization: 'Basic dXNlcjpwYXNz' } }).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    expectError(await t.as({ headers: { authorization: 'Bearer pcs_' } }).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('500 for an unexpected failure: the contract body, no internals, the cause in the log', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/test-failure' });
    const body = expectError(res, 500, 'INTERNAL_SERVER_ERROR');
    expect(body).toEqual({ statusCode: 500, error: 'INTERNAL_SERVER_ERROR', message: 'An unexpected error occurred' });
    expect(res.body).not.toMatch(/password_hash|secret\.ts|SELECT|stack/);
    expect(res.headers['api-version']).toBe('1');
    expect(loggedErrors).toEqual(expect.arrayContaining([expect.objectContaining({ err: expect.objectContaining({ message: SECRET_DETAIL }) })]));
  });

  it('errors are JSON with a charset', async () => {
    const res = await t.as(null).get('/games');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('503 when the database is unreachable', () => {
  let down: TestApp;
  beforeAll(async () => {
    down = await createTestApp({}, { appDatabaseUrl: `postgresql://postgres@127.0.0.1:${await freePort()}/nowhere` });
  });
  afterAll(() => down.close());

  it('answers 503 SERVICE_UNAVAILABLE to API calls and readiness, 200 to liveness', async () => {
    const token = { headers: { authorization: 'Bearer pcs_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' } };
    const res = await down.as(token).get('/games');
    const body = expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(body.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/i);
    expectError(await down.as(null).post('/auth/login', { email: 'a@example.com', password: 'whatever1' }), 503, 'SERVICE_UNAVAILABLE');

    const ready = await down.as(null).get('/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ statusCode: 503, error: 'SERVICE_UNAVAILABLE', checks: { database: 'unavailable' } });
    expect((await down.as(null).get('/health')).json()).toEqual({ status: 'ok' });
  });
});

describe('503 when the database is up but refuses connections', () => {
  // The server answers, but not for this database: ALLOW_CONNECTIONS false, every session ended.
  // PostgreSQL then refuses each new connection with FATAL 55000 "database … is not currently
  // accepting connections" — unreachable for the app, so 503 as the contract says, not 500.
  let app: TestApp;
  let admin: pg.Client;
  let databaseName: string;
  let token: TokenCaller;
  let owner: RegisteredUser;
  const warned: unknown[] = [];

  beforeAll(async () => {
    // No API token cache: every request asks the database for its token.
    app = await createTestApp(
      { API_TOKEN_CACHE_SECONDS: '0' },
      {
        listen: true,
        extend(server: FastifyInstance) {
          recordLogLines(server, 'warn', warned);
        },
      },
    );
    owner = await app.register({ password: 'correct horse battery' });
    token = await app.createToken(owner, ['games:read', 'games:write']);
    expect((await http('GET', '/api/games', token.headers)).status).toBe(200);
    databaseName = new URL(app.databaseUrl).pathname.slice(1);
    admin = new pg.Client({ connectionString: inject('databaseServerUrl') });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${pg.escapeIdentifier(databaseName)} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [databaseName]);
  });

  afterAll(async () => {
    if (admin) {
      await admin.query(`ALTER DATABASE ${pg.escapeIdentifier(databaseName)} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    await app?.close();
  });

  /** Real HTTP to the listening app. */
  async function http(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
    const res = await fetch(`${app.config.publicUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, text: await res.text() };
  }

  function expectUnavailable(res: { status: number; text: string }) {
    expect(res.status, res.text).toBe(503);
    const body = JSON.parse(res.text);
    expect(body).toEqual({ statusCode: 503, error: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
    expect(res.text).not.toMatch(/55000|accepting connections|pcs_test|postgres|127\.0\.0\.1|Prisma|stack/i);
  }

  it('answers 503 to an API-token read (pg directly), to Prisma-backed routes and to the preview page', async () => {
    expectUnavailable(await http('GET', '/api/games', token.headers));
    expectUnavailable(await http('POST', '/api/games', token.headers, { name: 'Refused' }));
    expectUnavailable(await http('POST', '/api/auth/login', {}, { email: owner.user.email, password: owner.password }));
    // A correctly signed link: the signature is checked before the database is asked.
    const links = createPreviewLinks({
      key: createHmac('sha256', app.config.auth.jwtSecret).update('preview-links').digest(),
      publicUrl: app.config.publicUrl,
    });
    const page = await http('GET', new URL(links.url(randomUUID(), new Date(Date.now() + 3_600_000))).pathname);
    expectUnavailable(page);
    const ready = await http('GET', '/api/health/ready');
    expect(ready.status).toBe(503);
  });

  it('logs the cause at warn', () => {
    const causes = warned.map((entry) => (entry as { err?: unknown }).err).filter((err) => err !== undefined);
    expect(causes.length).toBeGreaterThan(0);
    expect(causes.every((err) => isDatabaseUnavailable(err))).toBe(true);
    expect(JSON.stringify(causes.map((err) => String(err)))).toMatch(/accepting connections|55000/);
  });

  it('still treats an ordinary 55000 (a statement, not a connection) as a query error', async () => {
    // Another error of class 55: PostgreSQL raises it for statements on a healthy connection.
    const other = new pg.Client({ connectionString: inject('databaseServerUrl') });
    await other.connect();
    await other.query('CREATE TEMPORARY SEQUENCE never_used');
    const error = await other.query("SELECT currval('never_used')").catch((e: unknown) => e);
    await other.end();
    expect(error).toMatchObject({ code: '55000', message: expect.stringContaining('not yet defined in this session') });
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('API-Version header (CONTRACT §1)', () => {
  it('is on every response: success, error, unknown route, docs', async () => {
    const responses = await Promise.all([
      t.as(user).get('/games'),
      t.as(null).get('/games'),
      t.inject({ method: 'GET', url: '/nowhere' }),
      t.as(user).get(`/games/${'x'.repeat(500)}`),
      t.inject({ method: 'GET', url: '/api/docs' }),
      t.inject({ method: 'GET', url: '/api/openapi.json' }),
      t.as(null).get('/health'),
      t.as(user).post('/auth/logout'),
    ]);
    for (const res of responses) expect(res.headers['api-version'], `${res.statusCode} ${res.body.slice(0, 80)}`).toBe('1');
  });
});
