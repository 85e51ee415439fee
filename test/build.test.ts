// CONTRACT §13: `npm run build && node dist/server.js` serves — in production, behind a trusted
// proxy, with HTTPS enforcement at its default — with no TypeScript runtime, compiler or Prisma
// CLI loaded; and the image's HEALTHCHECK (its exact command, read from the Dockerfile) passes
// over HEALTH_SOCKET while plain HTTP to the port is still redirected (CONTRACT §6).
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENV } from './helpers/app.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { ROOT, type ServerProcess, startServer } from './helpers/server-process.js';

const work = mkdtempSync(path.join(tmpdir(), 'pcs-build-test-'));
const healthSocket = path.join(work, 'health.sock');
const modulesFile = path.join(work, 'modules.txt');
const preload = pathToFileURL(path.join(ROOT, 'test/fixtures/record-modules/preload.mjs')).href;
let database: TestDatabase;
let server: ServerProcess;

beforeAll(async () => {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe' });
  database = await createTestDatabase();
  server = await startServer(['--import', preload, 'dist/server.js'], {
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    DATA_DIR: path.join(work, 'data'),
    JWT_SECRET: TEST_ENV.JWT_SECRET!,
    STORAGE_SIGNING_SECRET: 'storage-signing-secret-for-the-build-test-0123',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
    // As behind a TLS-terminating proxy on this machine; HTTPS_ENFORCE keeps its default (on).
    TRUST_PROXY: '127.0.0.1',
    HEALTH_SOCKET: healthSocket,
    LOG_LEVEL: 'info',
    // As the api image runs it: exports are built by worker processes.
    EXPORT_WORKER_IN_API: 'false',
    RECORD_MODULES_TO: modulesFile,
  });
}, 180_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  await database?.drop();
  rmSync(work, { recursive: true, force: true });
});

/** A GET over the health socket. */
function socketGet(urlPath: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest({ socketPath: healthSocket, path: urlPath }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** The HEALTHCHECK command of the Dockerfile (exec form), run here with `node` being this Node. */
function runHealthcheck(): Promise<number> {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const command = /^HEALTHCHECK .*?CMD (\[.*\])\s*$/m.exec(dockerfile)?.[1];
  if (!command) throw new Error('the Dockerfile has no HEALTHCHECK in exec form');
  const [program, ...args] = JSON.parse(command) as string[];
  expect(program).toBe('node');
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env: { HEALTH_SOCKET: healthSocket }, timeout: 10_000 }, (error) =>
      resolve(error ? ((error as { code?: number }).code ?? 1) : 0),
    );
  });
}

const viaProxy = { 'x-forwarded-proto': 'https' };
const json = { 'content-type': 'application/json', ...viaProxy };

describe('the compiled server (dist/server.js) in production', () => {
  it('serves the README quick start over HTTPS as a trusted proxy reports it', async () => {
    const base = server.base;
    const credentials = { email: 'compiled@example.com', password: 'a long password' };
    const registered = await fetch(`${base}/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ ...credentials, name: 'Dev' }) });
    expect(registered.status).toBe(201);
    expect(registered.headers.get('strict-transport-security')).toMatch(/max-age=/);
    const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
    const token = await fetch(`${base}/tokens`, {
      method: 'POST',
      headers: { ...json, cookie },
      body: JSON.stringify({ name: 'quick start', scopes: ['games:read', 'games:write'] }),
    });
    expect(token.status).toBe(201);
    const auth = { ...json, authorization: `Bearer ${((await token.json()) as { token: string }).token}` };
    expect((await fetch(`${base}/games`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Space Blaster' }) })).status).toBe(201);
    const games = await fetch(`${base}/games?sort=name&order=asc`, { headers: auth });
    expect(games.status).toBe(200);
    expect(((await games.json()) as { data: Array<{ name: string }> }).data.map((g) => g.name)).toEqual(['Space Blaster']);
  });

  it('still redirects plain HTTP on its port, health included (CONTRACT §6)', async () => {
    const health = await fetch(`${server.base}/health`, { redirect: 'manual' });
    expect(health.status).toBe(301);
    expect(health.headers.get('location')).toBe('https://127.0.0.1/api/health');
    const write = await fetch(`${server.base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(write.status).toBe(403);
  });

  it('answers the health endpoints, and only those, on HEALTH_SOCKET', async () => {
    const live = await socketGet('/api/health');
    expect(live.status).toBe(200);
    expect(JSON.parse(live.body)).toEqual({ status: 'ok' });
    expect(live.headers['x-request-id']).toEqual(expect.any(String));
    const ready = await socketGet('/api/health/ready');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ status: 'ok', checks: { database: 'ok', objectStore: 'ok', queue: 'ok' } });
    for (const other of ['/api/games', '/api/auth/me', '/metrics', '/api/health/../games']) {
      const res = await socketGet(other);
      expect(res.status, other).toBe(404);
      expect(JSON.parse(res.body)).toMatchObject({ statusCode: 404, error: 'RESOURCE_NOT_FOUND' });
    }
  });

  it("passes the image's HEALTHCHECK", async () => {
    expect(await runHealthcheck()).toBe(0);
  });

  it('has loaded no TypeScript runtime, compiler or Prisma CLI', () => {
    const modules = readFileSync(modulesFile, 'utf8').split('\n').filter(Boolean);
    // The recording works: the compiled entry and the framework are there.
    expect(modules.some((m) => m.endsWith('/dist/server.js'))).toBe(true);
    expect(modules.some((m) => m.includes('/node_modules/fastify/'))).toBe(true);
    const forbidden = /\/node_modules\/(tsx|typescript|prisma|@prisma\/config|@prisma\/get-dmmf)\/|\.[cm]?ts$/;
    expect(modules.filter((m) => forbidden.test(m) || m.includes(`${ROOT}/src/`))).toEqual([]);
  });

  it("has loaded none of the packages the Dockerfile leaves out of the api image (the export worker's)", () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
    const deleted = /^FROM build AS api-dependencies\s+RUN npm pkg delete ((?:dependencies\.\S+ )+)/m.exec(dockerfile)?.[1];
    const packages = (deleted ?? '')
      .trim()
      .split(/\s+/)
      .map((entry) => entry.replace(/^dependencies\./, ''));
    expect(packages).toEqual(expect.arrayContaining(['sharp', 'playwright-core']));
    const modules = readFileSync(modulesFile, 'utf8').split('\n').filter(Boolean);
    expect(modules.filter((m) => packages.some((name) => m.includes(`/node_modules/${name}/`)))).toEqual([]);
  });

  it('on the local store, has loaded neither the AWS SDK nor the parsers and codecs of the export pipeline', () => {
    // Each would cost the API memory for nothing (README "Benchmarks"); qrcode waits for a preview page.
    const unneeded = ['@aws-sdk/', 'css-tree/', 'parse5/', 'pngjs/', 'qrcode/'];
    const modules = readFileSync(modulesFile, 'utf8').split('\n').filter(Boolean);
    expect(modules.filter((m) => unneeded.some((name) => m.includes(`/node_modules/${name}`)))).toEqual([]);
  });

  it('stops on SIGTERM with exit code 0, and the HEALTHCHECK then fails', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(await runHealthcheck()).toBe(1);
  });
});
