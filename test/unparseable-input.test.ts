// CONTRACT §8: input that cannot be parsed is a 400 with the error body, never a 500 — JSON
// nested too deep, a cursor that does not fit its sort field, and requests Node's HTTP parser
// itself refuses (sent raw over a real socket, as no well-behaved client would).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';
import { rawRequest, type RawResponse } from './helpers/raw-http.js';

let t: TestApp;
let alice: RegisteredUser;
let port: number;

beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
  alice = await t.register();
  port = Number(new URL(t.config.publicUrl).port);
});
afterAll(() => t.close());

const json = { 'content-type': 'application/json' };
const post = (url: string, payload: string) => t.inject({ method: 'POST', url: `/api${url}`, payload, headers: { ...alice.headers, ...json } });
/** `{"a":{"a":…{}…}}`, `levels` objects deep. */
const nestedObject = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

describe('JSON nested deeper than 64 levels', () => {
  it('is refused with 400, at 65 levels and at 500,000, changing nothing', async () => {
    const before = await t.rowCounts();
    for (const body of [
      `{"name":"deep","description":${nestedObject(64)}}`,
      `${'['.repeat(500_000)}${']'.repeat(500_000)}`,
      `{"name":"x","description":"${'['.repeat(1000)}","extra":${nestedObject(80)}}`,
    ]) {
      const error = expectError(await post('/games', body), 400, 'VALIDATION_ERROR');
      expect(error.message).toMatch(/nested deeper than 64 levels/);
    }
    expect(await t.rowCounts()).toEqual(before);
  });

  it('while 64 levels are parsed as usual, and brackets inside strings do not count', async () => {
    const entry = await t.uploadAsset(alice, { fileName: 'index.html', contentType: 'text/html', body: '<html></html>' });
    const game = (await t.as(alice).post('/games', { name: 'Deep config' })).json();
    // The body is one level, config a second: 62 more objects make 64.
    const config = `{"brackets":"${'{['.repeat(100)}","a":${nestedObject(62)}}`;
    const created = await post(`/games/${game.id}/variants`, `{"name":"v","entryAssetId":"${entry.id}","config":${config}}`);
    expect(created.statusCode).toBe(201);
    expect(created.json().config).toEqual(JSON.parse(config));
  });

  it('names where a NUL character is, however the JSON escapes it', async () => {
    const error = expectError(await post('/games', '{"name":"ok","description":"a\\u0000b"}'), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ in: 'body', path: 'description', message: 'must not contain the NUL character' }]);
    // An escaped backslash followed by "u0000" is six ordinary characters.
    const game = await post('/games', '{"name":"backslash \\\\u0000","description":null}');
    expect(game.statusCode).toBe(201);
    expect(game.json().name).toBe('backslash \\u0000');
  });
});

describe('a cursor that does not fit the list', () => {
  const cursor = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
  const id = '00000000-0000-4000-8000-000000000000';

  it("is refused with 400 naming the query's cursor, whatever is forged into it", async () => {
    await t.as(alice).post('/games', { name: 'Cursor target' });
    for (const [query, parts] of [
      ['', [2, 'createdAt', 'desc', { s: 'garbage' }, id]],
      ['sort=updatedAt&order=asc', [2, 'updatedAt', 'asc', { s: '' }, id]],
      ['sort=name&order=asc', [2, 'name', 'asc', { d: '2024-01-01T00:00:00.000Z' }, id]],
      ['sort=name&order=asc', [2, 'name', 'asc', { s: 'a\u0000b' }, id]],
      ['', [2, 'createdAt', 'desc', { d: '9999-12-31T23:59:60Z' }, id]],
      ['', [1e300, 'createdAt', 'desc', { d: '2024-01-01T00:00:00.000Z' }, id]],
    ] as const) {
      const res = await t.as(alice).get(`/games?${query}&cursor=${cursor(parts as unknown as unknown[])}`);
      const error = expectError(res, 400, 'VALIDATION_ERROR');
      expect(error.details?.[0], JSON.stringify(parts)).toMatchObject({ in: 'query', path: 'cursor' });
      // The message names it with the words of `in`, as the details do.
      expect(error.message).toMatch(/^Invalid request: query\.cursor: /);
    }
  });
});

/** The contract's error body of a raw answer, and its status line. */
function expectRawError(res: RawResponse, statusCode: number, error: string) {
  expect(res.text).toMatch(new RegExp(`^HTTP/1\\.1 ${statusCode} `));
  expect(res.text).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
  // The headers of every response, also where Node answers before Fastify (CONTRACT §1, §13).
  expect(res.text).toMatch(/\r\napi-version: 1\r\n/i);
  expect(res.text).toMatch(/\r\nx-request-id: [\x21-\x7e]{1,128}\r\n/i);
  expect(res.text).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
  expect(res.text).toMatch(/\r\ncontent-security-policy: default-src 'none'/i);
  const body = res.json();
  expect(body).toEqual({ statusCode, error, message: expect.any(String) });
  return body as { message: string };
}

describe("requests Node's HTTP parser refuses", () => {
  const host = () => `Host: 127.0.0.1:${port}`;

  it('bad header characters, a body past its Content-Length, broken chunks, a bad method: 400 with the error body', async () => {
    for (const request of [
      `GET /api/health HTTP/1.1\r\n${host()}\r\nX-Bad: a\u0001b\r\n\r\n`,
      `GET /api/health HTTP/1.1\r\n${host()}\r\nBad Header: 1\r\n\r\n`,
      `POST /api/games HTTP/1.1\r\n${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      `POST /api/games HTTP/1.1\r\n${host()}\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}`,
      `G@T /api/health HTTP/1.1\r\n${host()}\r\n\r\n`,
      `GET /api/health HTTP/9.9\r\n${host()}\r\n\r\n`,
      'not http at all\r\n\r\n',
    ]) {
      const body = expectRawError(await rawRequest(port, request), 400, 'VALIDATION_ERROR');
      expect(body.message).not.toMatch(/^Client Error$/);
    }
  });

  it('methods no route can have (CONNECT, PRI): 404 with the error body, as for any unknown route', async () => {
    for (const request of [`CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n`, 'PRI *\r\nHost: x\r\nConnection: close\r\n\r\n']) {
      expectRawError(await rawRequest(port, request), 404, 'RESOURCE_NOT_FOUND');
    }
  });

  it('HTTP/1.1 without a Host header: 400 with the error body', async () => {
    for (const path of ['/api/health', '/api/games', '/nowhere']) {
      const body = expectRawError(await rawRequest(port, `GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`), 400, 'VALIDATION_ERROR');
      expect(body.message).toMatch(/Host/);
    }
  });

  it('an Expect header other than 100-continue: answered like any request, not with a bare 417', async () => {
    const res = await rawRequest(port, `GET /api/games HTTP/1.1\r\n${host()}\r\nExpect: something\r\nConnection: close\r\n\r\n`);
    expectRawError(res, 401, 'AUTHENTICATION_REQUIRED');
  });

  it('headers over the size limit: 400 with the error body, as CONTRACT §8 has every request the parser refuses', async () => {
    const res = await rawRequest(port, `GET /api/health HTTP/1.1\r\n${host()}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectRawError(res, 400, 'VALIDATION_ERROR');
    expect(res.json().message).toMatch(/headers are too large/);
  });

  it('a body past its Content-Length: the request is answered, the rest refused and the connection closed', async () => {
    const res = await rawRequest(port, `POST /api/games HTTP/1.1\r\n${host()}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}garbage!\r\n\r\n`);
    // Node reads the body before it parses what follows: the request is answered first, then
    // the garbage after it gets the error body and the connection closes.
    expectRawError(res, 401, 'AUTHENTICATION_REQUIRED');
    const rest = res.text.slice(res.text.indexOf('HTTP/1.1 ', 1));
    expect(rest).toMatch(/^HTTP\/1\.1 400 [\s\S]*\r\nconnection: close\r\n/i);
    expect(JSON.parse(rest.slice(rest.indexOf('\r\n\r\n') + 4))).toEqual({ statusCode: 400, error: 'VALIDATION_ERROR', message: expect.any(String) });
  });

  it('a whole request followed by garbage: the error body closes the connection, and the server serves on', async () => {
    // As Node does itself: the error is written while nothing of the first response has been.
    const res = await rawRequest(port, `GET /api/health HTTP/1.1\r\n${host()}\r\n\r\nGARBAGE\r\n\r\n`);
    expectRawError(res, 400, 'VALIDATION_ERROR');
    expect(res.text).toMatch(/\r\nconnection: close\r\n/i);
    expect((await t.as(null).get('/health')).statusCode).toBe(200);
  });
});
