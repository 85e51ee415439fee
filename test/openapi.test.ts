// CONTRACT §1, §13: the OpenAPI document lists every route with its request and response
// schemas, a unique operationId and its error responses (the contract's body); public
// operations say so (`security: []`); /api/docs serves the interactive page, and the health
// endpoints answer without credentials.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let document: {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
  security: unknown[];
};

interface Operation {
  operationId?: string;
  security?: unknown[];
  'x-rate-limit-tier'?: string;
  parameters?: Array<{ in: string; name: string; schema?: unknown }>;
  requestBody?: { required?: boolean; content: Record<string, { schema?: unknown }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: { $ref?: string } }> }>;
}

/** Every operation of the document, with its method and path. */
const operations = () =>
  Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

beforeAll(async () => {
  t = await createTestApp();
  document = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
});
afterAll(() => t.close());

/**
 * Every route the app serves, read from Fastify's own route tree (printRoutes): each line is a
 * path segment indented four characters per level, with its methods in parentheses.
 */
function servedRoutes(app: FastifyInstance): Array<{ method: string; url: string }> {
  const routes: Array<{ method: string; url: string }> = [];
  const segments: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = [...match[1]!].length / 4;
    segments.length = depth;
    segments.push(match[2]!);
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, url: segments.join('') });
  }
  return routes;
}

/** The documented API: everything under /api except the document and the docs page themselves. */
const apiRoutes = () =>
  servedRoutes(t.app).filter(({ method, url }) => method !== 'HEAD' && url.startsWith('/api/') && !url.startsWith('/api/docs') && url !== '/api/openapi.json');

const toOpenApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

describe('OpenAPI document', () => {
  it('is OpenAPI 3', () => {
    expect(document.openapi).toMatch(/^3\./);
  });

  it('lists every route the app serves, and no route it does not', () => {
    const served = apiRoutes().map(({ method, url }) => `${method} ${toOpenApiPath(url)}`);
    expect(served.length).toBeGreaterThan(15);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(served.sort());
  });

  it('gives every operation its request and response schemas', () => {
    for (const { method, url } of apiRoutes()) {
      const where = `${method} ${url}`;
      const operation = document.paths[toOpenApiPath(url)]![method.toLowerCase()]!;
      for (const name of url.match(/:(\w+)/g) ?? []) {
        expect(operation.parameters, where).toEqual(
          expect.arrayContaining([expect.objectContaining({ in: 'path', name: name.slice(1), schema: expect.any(Object) })]),
        );
      }
      if (method === 'POST' || method === 'PATCH') {
        // Actions that take no body; every other write documents its body.
        const bodyless = ['/api/auth/logout', '/api/auth/refresh', '/api/assets/:id/complete'].includes(url);
        if (!bodyless) expect(operation.requestBody?.content['application/json']?.schema, where).toEqual(expect.any(Object));
      }
      const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      expect(success.length, where).toBeGreaterThan(0);
      for (const [status, response] of success) {
        if (status === '204') continue;
        expect(response.content?.['application/json']?.schema, `${where} ${status}`).toEqual(expect.any(Object));
      }
    }
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations().map(({ method, path, operation }) => {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      return operation.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("documents every operation's error responses with the contract's error body", () => {
    expect(document.components.schemas.Error).toMatchObject({
      required: expect.arrayContaining(['statusCode', 'error', 'message']),
      properties: { statusCode: expect.any(Object), error: expect.any(Object), message: expect.any(Object), details: expect.any(Object) },
    });
    for (const { method, path, operation } of operations()) {
      const where = `${method} ${path}`;
      const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
      const statuses = errors.map(([status]) => Number(status));
      expect(statuses, where).toEqual(expect.arrayContaining([500, 503]));
      if (operation.security?.length !== 0) expect(statuses, where).toEqual(expect.arrayContaining([401, 403, 404]));
      if (operation['x-rate-limit-tier'] !== 'none') expect(statuses, where).toContain(429);
      if (operation.requestBody) expect(statuses, where).toEqual(expect.arrayContaining([400, 413, 415]));
      // Any body sent to a write is read and validated, also where none is expected (fields there
      // are unknown): it may be malformed, too large or not JSON.
      if (method !== 'get' && method !== 'head') expect(statuses, where).toEqual(expect.arrayContaining([400, 413, 415]));
      for (const [status, response] of errors) {
        expect(response.description, `${where} ${status}`).toEqual(expect.any(String));
        const schema = response.content?.['application/json']?.schema;
        // The readiness 503 adds its checks to the contract's body; every other one is the body itself.
        if (schema?.$ref === undefined) expect(`${where} ${status}`).toBe('get /api/health/ready 503');
        else expect(schema.$ref, `${where} ${status}`).toBe('#/components/schemas/Error');
      }
    }
  });

  it('documents the errors of public writes as they are: login 401 and no 409, register 409', () => {
    const statuses = (operationId: string) => {
      const found = operations().find(({ operation }) => operation.operationId === operationId);
      return Object.keys(found!.operation.responses).map(Number);
    };
    expect(statuses('login')).toContain(401);
    expect(statuses('login')).not.toContain(409);
    expect(statuses('register')).toContain(409);
  });

  it('marks a body that may be left out as not required (POST /exports/{id}/previews)', () => {
    const found = operations().find(({ operation }) => operation.operationId === 'createPreview');
    expect(found!.operation.requestBody?.required).toBe(false);
    const login = operations().find(({ operation }) => operation.operationId === 'login');
    expect(login!.operation.requestBody?.required).toBe(true);
  });

  it('marks public operations with security: [] and the rest with the API token or session', () => {
    expect(document.security).toEqual([{ bearer: [] }, { sessionCookie: [] }]);
    const publicOperations = operations()
      .filter(({ operation }) => Array.isArray(operation.security) && operation.security.length === 0)
      .map(({ operation }) => operation.operationId)
      .sort();
    expect(publicOperations).toEqual(['getHealth', 'getReadiness', 'login', 'register']);
    expect(document.paths['/api/games']!.get!.security).toBeUndefined(); // the document-wide default applies
  });

  it('states the rate-limit tier of each operation', () => {
    const tier = (path: string, method: string) => document.paths[path]![method]!['x-rate-limit-tier'];
    expect(tier('/api/games', 'get')).toBe('standard');
    expect(tier('/api/auth/login', 'post')).toBe('sensitive');
    expect(tier('/api/export', 'post')).toBe('export');
    expect(tier('/api/health', 'get')).toBe('none');
  });

  it('documents the list parameters of list endpoints', () => {
    const games = document.paths['/api/games']!.get!;
    const names = games.parameters!.filter((p) => p.in === 'query').map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['page', 'limit', 'sort', 'order', 'organizationId']));
  });
});

describe('docs and health', () => {
  it('serves the interactive docs as HTML without credentials', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
  });

  it('GET /api/health answers { status: "ok" } without credentials', async () => {
    const res = await t.as(null).get('/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /api/health/ready checks the database, the object store and the export queue', async () => {
    const res = await t.as(null).get('/health/ready');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', checks: { database: 'ok', objectStore: 'ok', queue: 'ok' } });
  });
});
