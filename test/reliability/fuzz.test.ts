// Contract fuzzing driven by the service's own OpenAPI document: for every route, thousands of
// generated bodies, queries, path parameters and headers — mostly invalid — and the service must
// never answer 5xx, and every error must carry the contract's body (CONTRACT §2).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp, type TokenCaller } from '../helpers/app.js';

const RUNS = 3000;
const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;
const ERROR_CODES: Record<number, string[]> = {
  400: ['VALIDATION_ERROR'],
  401: ['AUTHENTICATION_REQUIRED'],
  403: ['INSUFFICIENT_PERMISSIONS', 'Forbidden'],
  404: ['RESOURCE_NOT_FOUND'],
  405: ['METHOD_NOT_ALLOWED'],
  406: ['NOT_ACCEPTABLE'],
  409: ['DUPLICATE_RESOURCE'],
  413: ['PAYLOAD_TOO_LARGE'],
  415: ['UNSUPPORTED_MEDIA_TYPE'],
  429: ['RATE_LIMIT_EXCEEDED'],
};

interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  query: string[];
  bodyFields: string[];
}

let t: TestApp;
let alice: RegisteredUser;
let token: TokenCaller;
let operations: Operation[];
let gameId: string;

beforeAll(async () => {
  t = await createTestApp();
  alice = await t.register();
  token = await t.createToken(alice, ['games:write', 'assets:write', 'exports:write', 'tokens:write']);
  gameId = (await t.as(alice).post('/games', { name: 'Fuzz target' })).json().id;
  const document = (await t.as(null).get('/openapi.json')).json() as {
    paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }>; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const op = item[method]!;
      return {
        method,
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        bodyFields: Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
      };
    }),
  );
});
afterAll(() => t.close());

/** Values of every JSON type, and strings that tend to break parsers and validators. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '-1', '0', '1.5', '1e309', 'NaN', 'null', 'true', '[]', '{}', '../../etc/passwd', 'a/b', '%00', '\u0000', "'; DROP TABLE games; --", 'createdAt', 'asc', 'desc', '00000000-0000-0000-0000-000000000000'),
  fc.string({ minLength: 300, maxLength: 3000 }),
);
const anyValue = fc.oneof(nastyString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 3 }));

function requestFor(op: Operation) {
  const pathParam = fc.oneof(fc.uuid(), nastyString.filter((s) => s.length > 0), fc.constant(gameId));
  const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...op.query, 'unknown'), fc.string({ maxLength: 10 })), nastyString), { maxLength: 4 });
  const body = fc.oneof(
    fc.dictionary(fc.constantFrom(...op.bodyFields, 'extra', '__proto__', 'constructor'), anyValue, { maxKeys: 5 }),
    anyValue,
    fc.string({ maxLength: 50 }).map((raw) => ({ raw })), // sent as-is: malformed JSON
    fc.constant(undefined),
  );
  const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'garbage', undefined);
  const credentials = fc.constantFrom<'session' | 'token' | 'none' | 'junk' | 'cookie-junk'>('session', 'token', 'none', 'junk', 'cookie-junk');
  const junkAuthorization = fc.oneof(nastyString, nastyString.map((s) => `Bearer ${s}`), nastyString.map((s) => `Bearer pcs_${s}`));
  return fc.record({ pathParam, query, body, contentType, credentials, junkAuthorization });
}

function toInject(op: Operation, r: ReturnType<typeof requestFor> extends fc.Arbitrary<infer R> ? R : never) {
  const path = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(r.pathParam));
  const search = r.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const headers: Record<string, string> = {};
  // Logging out would end the shared session; that route is fuzzed with the other credentials.
  const credentials = op.path === '/api/auth/logout' && r.credentials === 'session' ? 'token' : r.credentials;
  if (credentials === 'session') Object.assign(headers, alice.headers);
  if (credentials === 'token') Object.assign(headers, token.headers);
  if (credentials === 'junk') headers.authorization = r.junkAuthorization;
  if (credentials === 'cookie-junk') headers.cookie = `session=${encodeURIComponent(r.junkAuthorization)}`;
  if (r.contentType) headers['content-type'] = r.contentType;
  const hasBody = op.method !== 'get' && r.body !== undefined;
  const payload = !hasBody ? undefined : typeof r.body === 'object' && r.body !== null && 'raw' in r.body && Object.keys(r.body).length === 1 ? String(r.body.raw) : JSON.stringify(r.body);
  return { method: op.method.toUpperCase() as 'GET', url: search ? `${path}?${search}` : path, headers, ...(payload === undefined ? {} : { payload }) };
}

describe('errors the router raises before any route runs', () => {
  it('treats an over-long id as not found and a malformed URL as a bad request', async () => {
    expectError(await t.as(token).get(`/games/${'a'.repeat(500)}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(token).get('/games/%E0%A4%A'), 400, 'VALIDATION_ERROR');
  });
});

describe('fuzzing every route of the OpenAPI document', () => {
  it('never answers 5xx and always uses the error body', async () => {
    expect(operations.length).toBeGreaterThan(10);
    const seen = new Map<string, number>();
    const arbitrary = fc.constantFrom(...operations).chain((op) => requestFor(op).map((r) => ({ op, r })));
    await fc.assert(
      fc.asyncProperty(arbitrary, async ({ op, r }) => {
        const request = toInject(op, r);
        const res = await t.inject(request);
        const where = `${request.method} ${request.url} → ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.statusCode, where).toBeLessThan(500);
        seen.set(`${res.statusCode}`, (seen.get(`${res.statusCode}`) ?? 0) + 1);
        if (res.statusCode >= 400) {
          const body = res.json();
          expect(body.statusCode, where).toBe(res.statusCode);
          expect(ERROR_CODES[res.statusCode], where).toContain(body.error);
          expect(typeof body.message, where).toBe('string');
          expect(Object.keys(body).every((k) => ['statusCode', 'error', 'message', 'details'].includes(k)), where).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
    // The generator reached past validation and auth, not only the front door.
    expect([...seen.keys()]).toEqual(expect.arrayContaining(['400', '401', '404']));
    expect([...seen.keys()].some((status) => status.startsWith('2'))).toBe(true);
  }, 180_000);
});
