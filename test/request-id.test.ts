// CONTRACT §13: X-Request-Id is kept when well formed (≤ 128 visible ASCII characters), else
// generated; echoed on every response — successes, errors, 404s, router errors, redirects, the
// local store's URLs — and written in every log line of the request.
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const lines: Array<Record<string, unknown>> = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    done();
  },
});

const failingRoute = (app: FastifyInstance) =>
  app.get('/api/test/fails', { config: { auth: 'public' }, schema: { hide: true } }, async (request) => {
    request.log.info('working on it');
    throw new Error('broken on purpose');
  });

let t: TestApp;
let https: TestApp;
/** At the production level: a request's logger is made only when it logs (src/plugins/logging.ts). */
let quiet: TestApp;
const quietLines: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: 'info' }, { logStream, extend: failingRoute });
  https = await createTestApp({ HTTPS_ENFORCE: 'true' });
  const quietStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) quietLines.push(JSON.parse(line));
      done();
    },
  });
  quiet = await createTestApp({ LOG_LEVEL: 'warn' }, { logStream: quietStream, extend: failingRoute });
});
afterAll(async () => {
  await t.close();
  await https.close();
  await quiet.close();
});

const withId = (id: string) => ({ 'x-request-id': id });

describe('X-Request-Id', () => {
  it('keeps a well-formed incoming id, up to 128 visible ASCII characters', async () => {
    for (const id of ['abc-123', 'a'.repeat(128), '!~#%&*+/:;=?@[]^_`{|}', 'f47ac10b-58cc-4372-a567-0e02b2c3d479']) {
      const res = await t.as(null).get('/health', withId(id));
      expect(res.headers['x-request-id']).toBe(id);
    }
  });

  it('replaces a malformed or missing id with a generated UUID', async () => {
    for (const id of ['a'.repeat(129), 'has space', 'tab\there', 'ünïcode', '']) {
      const res = await t.as(null).get('/health', withId(id));
      expect(res.headers['x-request-id'], JSON.stringify(id)).toMatch(UUID);
    }
    const none = await t.as(null).get('/health');
    expect(none.headers['x-request-id']).toMatch(UUID);
    // Each request its own.
    expect((await t.as(null).get('/health')).headers['x-request-id']).not.toBe(none.headers['x-request-id']);
  });

  it('is echoed on errors, unknown routes, router errors and unexpected failures', async () => {
    const responses = {
      401: await t.as(null).get('/games', withId('id-401')),
      400: await t.as(null).post('/auth/login', { email: 1 }, withId('id-400')),
      404: await t.inject({ method: 'GET', url: '/nowhere', headers: withId('id-404') }),
      '400 (bad URL encoding)': await t.inject({ method: 'GET', url: '/api/games/%E0%A4%A', headers: withId('id-bad-url') }),
      415: await t.inject({ method: 'POST', url: '/api/auth/login', payload: 'x', headers: { 'content-type': 'text/plain', ...withId('id-415') } }),
      500: await t.inject({ method: 'GET', url: '/api/test/fails', headers: withId('id-500') }),
    };
    expect(responses[401].headers['x-request-id']).toBe('id-401');
    expectError(responses[400], 400, 'VALIDATION_ERROR');
    expect(responses[400].headers['x-request-id']).toBe('id-400');
    expect(responses[404].statusCode).toBe(404);
    expect(responses[404].headers['x-request-id']).toBe('id-404');
    expectError(responses['400 (bad URL encoding)'], 400, 'VALIDATION_ERROR');
    expect(responses['400 (bad URL encoding)'].headers['x-request-id']).toBe('id-bad-url');
    expect(responses[415].headers['x-request-id']).toBe('id-415');
    expectError(responses[500], 500, 'INTERNAL_SERVER_ERROR');
    expect(responses[500].headers['x-request-id']).toBe('id-500');
  });

  it('is echoed on the local store URLs, the docs, /metrics and the HTTPS redirect', async () => {
    const upload = await t.fetchUrl(`${t.config.publicUrl}/objects/orgs/x/assets/y?expires=1&signature=bad`, {
      method: 'PUT',
      headers: { 'content-type': 'image/png', ...withId('id-store') },
      body: 'x',
    });
    expect(upload.statusCode).toBe(403);
    expect(upload.headers['x-request-id']).toBe('id-store');
    expect((await t.inject({ method: 'GET', url: '/api/docs', headers: withId('id-docs') })).headers['x-request-id']).toBe('id-docs');
    expect((await t.inject({ method: 'GET', url: '/metrics', headers: withId('id-metrics') })).headers['x-request-id']).toBe('id-metrics');
    const redirect = await https.inject({ method: 'GET', url: '/api/health', headers: withId('id-redirect') });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers['x-request-id']).toBe('id-redirect');
  });

  it('is on every log line of the request, its own or a generated one', async () => {
    await t.inject({ method: 'GET', url: '/api/test/fails', headers: withId('trace-me-42') });
    const ofRequest = lines.filter((line) => line.reqId === 'trace-me-42');
    expect(ofRequest.map((line) => line.msg)).toEqual(expect.arrayContaining(['incoming request', 'working on it', 'unhandled error', 'request completed']));
    // No line of that request went out without its id.
    const mentioning = lines.filter((line) => JSON.stringify(line).includes('/api/test/fails') || line.msg === 'working on it');
    expect(mentioning.every((line) => typeof line.reqId === 'string')).toBe(true);

    const res = await t.as(null).get('/health', withId('not well formed'));
    const generated = res.headers['x-request-id'] as string;
    expect(lines.filter((line) => line.reqId === generated).map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
  });

  it('is on the lines a request logs at LOG_LEVEL=warn, which writes none of its info lines', async () => {
    await quiet.inject({ method: 'GET', url: '/api/test/fails', headers: withId('quiet-7') });
    await quiet.as(null).get('/health', withId('quiet-8'));
    expect(quietLines.filter((line) => line.reqId === 'quiet-7').map((line) => line.msg)).toEqual(['unhandled error']);
    expect(quietLines.some((line) => line.reqId === 'quiet-8' || line.msg === 'working on it' || line.msg === 'incoming request')).toBe(false);
    expect(quietLines.every((line) => typeof line.reqId === 'string')).toBe(true);
  });
});
