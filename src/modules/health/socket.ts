// The health endpoints on a Unix socket (HEALTH_SOCKET), for the container's own probe (the
// image's HEALTHCHECK). Only processes that can open the socket file — those in the container —
// reach it, so its requests skip HTTPS enforcement (src/plugins/https.ts), while a plain-HTTP
// request to the port still gets CONTRACT §6's 301. Nothing but the health endpoints is served
// here; they run through the app itself (app.routing), hooks and all.
import { lstatSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { errorBody } from '../../plugins/errors.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../../plugins/request-id.js';

const HEALTH_PATHS = new Set(['/api/health', '/api/health/ready']);
const fromSocket = new WeakSet<IncomingMessage>();

/** Whether the request arrived on the health socket. */
export const isHealthSocketRequest = (request: IncomingMessage): boolean => fromSocket.has(request);

/** Serves GET/HEAD of the health paths on `socketPath` through `route`; resolves to a function that closes it. */
export async function listenHealthSocket(socketPath: string, route: (request: IncomingMessage, response: ServerResponse) => void): Promise<() => Promise<void>> {
  await removeStaleSocket(socketPath);
  const server = createServer((request, response) => {
    if ((request.method === 'GET' || request.method === 'HEAD') && HEALTH_PATHS.has(request.url ?? '')) {
      fromSocket.add(request);
      route(request, response);
      return;
    }
    const body = JSON.stringify(errorBody(404, 'Only the health endpoints are served on this socket'));
    response.writeHead(404, { 'content-type': 'application/json; charset=utf-8', [REQUEST_ID_HEADER]: requestIdOf(request) }).end(body);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** A socket file left by a process that died is removed; one that another process still serves is an error. */
async function removeStaleSocket(socketPath: string): Promise<void> {
  const existing = lstatSync(socketPath, { throwIfNoEntry: false });
  if (!existing) return;
  if (!existing.isSocket()) throw new Error(`HEALTH_SOCKET ${socketPath} exists and is not a socket`);
  const inUse = await new Promise<boolean>((resolve) => {
    const probe = connect(socketPath);
    probe.once('connect', () => resolve(probe.end() && true));
    probe.once('error', () => resolve(false));
  });
  if (inUse) throw new Error(`HEALTH_SOCKET ${socketPath} is served by another process`);
  rmSync(socketPath, { force: true });
}
