// CONTRACT §13: the OpenAPI document is good enough for a client generator. openapi-typescript
// turns the live GET /api/openapi.json into types, the README quick start written with
// openapi-fetch (test/client/quick-start.ts) must type-check against them, and then runs
// against the real server.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { ROOT } from './helpers/server-process.js';

const CLIENT_DIR = path.join(ROOT, 'test/client');
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
});
afterAll(() => t.close());

describe('a client generated from the OpenAPI document', () => {
  it('type-checks the README quick start and runs it', async () => {
    const document = (await (await fetch(`${t.config.publicUrl}/api/openapi.json`)).json()) as OpenAPI3;
    const types = astToString(await openapiTS(document));
    expect(types).toContain('operations');
    writeFileSync(path.join(CLIENT_DIR, 'api.d.ts'), types);
    // Fails on any call, body or response the document does not describe as used there.
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', CLIENT_DIR], { stdio: 'pipe' });

    // A computed path: the root tsc run must not follow it (api.d.ts exists only once generated above).
    const { quickStart } = (await import(path.join(CLIENT_DIR, 'quick-start.ts'))) as { quickStart: (baseUrl: string, email: string) => Promise<unknown> };
    const result = await quickStart(t.config.publicUrl, `quick-${process.pid}@example.com`);
    expect(result).toEqual({
      registered: 201,
      tokenPrefix: expect.stringMatching(/^pcs_/),
      gameName: 'Space Blaster',
      listed: ['Space Blaster'],
      secondRegistration: { statusCode: 409, error: 'DUPLICATE_RESOURCE', message: expect.any(String) },
      secondGame: { statusCode: 409, error: 'DUPLICATE_RESOURCE', message: expect.any(String) },
    });
  });
});
