// CONTRACT §1: the OpenAPI document lists every route with its request and response schemas,
// /api/docs serves the interactive page, and the health endpoints answer without credentials.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let document: {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
};

interface Operation {
  parameters?: Array<{ in: string; name: string; schema?: unknown }>;
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

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
  servedRoutes(t.app).filter(
    ({ method, url }) => method !== 'HEAD' && url.startsWith('/api/') && !url.startsWith('/api/docs') && url !== '/api/openapi.json',
  );

const toOpenApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

describe('OpenAPI document', () => {
  it('is OpenAPI 3', () => {
    expect(document.openapi).toMatch(/^3\./);
  });

  it('lists every route the app serves, and no route it does not', () => {
    const served = apiRoutes().map(({ method, url }) => `${method} ${toOpenApiPath(url)}`);
    expect(served.length).toBeGreaterThan(15);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
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

  it('GET /api/health/ready checks the database', async () => {
    const res = await t.as(null).get('/health/ready');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', checks: { database: 'ok' } });
  });
});
