// HEALTH_SOCKET (src/modules/health/socket.ts): the container probe's way in. Its requests skip
// HTTPS enforcement; the same request over the network is still redirected (CONTRACT §6).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenHealthSocket } from '../src/modules/health/socket.js';
import { createTestApp, type TestApp } from './helpers/app.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pcs-health-socket-'));
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ HTTPS_ENFORCE: 'true' });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function get(socketPath: string, urlPath: string, method = 'GET'): Promise<{ status: number; body: string; requestId: unknown }> {
  return new Promise((resolve, reject) => {
    httpRequest({ socketPath, path: urlPath, method }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, requestId: res.headers['x-request-id'] }));
    })
      .on('error', reject)
      .end();
  });
}

describe('the health socket', () => {
  it('serves liveness and readiness through the app, unaffected by HTTPS enforcement', async () => {
    const socketPath = path.join(dir, 'app.sock');
    const close = await listenHealthSocket(socketPath, (request, response) => t.app.routing(request, response));
    try {
      expect(await get(socketPath, '/api/health')).toEqual({ status: 200, body: '{"status":"ok"}', requestId: expect.any(String) });
      expect((await get(socketPath, '/api/health/ready')).status).toBe(200);
      expect((await get(socketPath, '/api/health', 'HEAD')).status).toBe(200);
      // Anything else is not served there: the socket is no way around HTTPS or authentication.
      for (const [method, urlPath] of [
        ['GET', '/api/games'],
        ['POST', '/api/health'],
        ['GET', '/api/health?x=1'],
        ['GET', '/metrics'],
      ]) {
        const res = await get(socketPath, urlPath!, method);
        expect(res.status, `${method} ${urlPath}`).toBe(404);
        expect(JSON.parse(res.body)).toMatchObject({ statusCode: 404, error: 'RESOURCE_NOT_FOUND' });
        expect(res.requestId).toEqual(expect.any(String));
      }
      // The same request over the network: redirected.
      expect((await t.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(301);
    } finally {
      await close();
    }
  });

  it('refuses a path that another process serves, or that is not a socket', async () => {
    const socketPath = path.join(dir, 'taken.sock');
    const close = await listenHealthSocket(socketPath, (_request, response) => response.end());
    try {
      await expect(listenHealthSocket(socketPath, (_request, response) => response.end())).rejects.toThrow(/served by another process/);
    } finally {
      await close();
    }
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'keep me');
    await expect(listenHealthSocket(file, (_request, response) => response.end())).rejects.toThrow(/is not a socket/);
  });
});
