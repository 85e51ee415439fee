// The Node HTTP(S) server under Fastify (its `serverFactory`). Node answers some requests itself,
// before Fastify sees them and without the contract's error body (CONTRACT §2, §8); here each of
// those reaches the API's own answer instead. Requests Node's parser refuses outright are
// answered by Fastify's `clientErrorHandler` (src/plugins/errors.ts).
import { readFileSync } from 'node:fs';
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Config } from './config.js';
import { type EveryResponseHeaders, errorBody, refuseTunnel } from './plugins/errors.js';
import { REQUEST_ID_HEADER, requestIdOf } from './plugins/request-id.js';

/** Fastify's default: longer than the idle timeouts of common load balancers (60 s). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** The methods Fastify's router knows; Node's parser also accepts PRI, which would fall through it. */
const ROUTABLE_METHODS = new Set(http.METHODS);

export function httpServerFactory(config: Config, headers: EveryResponseHeaders) {
  return (handler: RequestListener): http.Server => {
    const serve: RequestListener = (request, response) =>
      ROUTABLE_METHODS.has(request.method ?? '') ? handler(request, response) : notFound(request, response, headers);
    // An HTTP/1.1 request without Host would get Node's bare 400; app.ts refuses it with the body.
    const options = { requireHostHeader: false };
    const server = config.http.tls
      ? (https.createServer({ ...options, ...readTlsFiles(config.http.tls) }, serve) as unknown as http.Server)
      : http.createServer(options, serve);
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // No cap on a whole request (Node's default is 5 minutes, Fastify's none): a large upload on
    // a slow link may take longer. A stalled one is cut off by the idle timeout below.
    server.requestTimeout = 0;
    // Node's default keeps a silent connection open forever: an upload that stops sending would
    // hold its socket and file. Longer than keepAliveTimeout, which closes idle keep-alives first.
    server.setTimeout(config.http.idleTimeoutMs);
    // An Expect other than 100-continue would get a bare 417; the expectation is ignored instead
    // (RFC 9110 allows either), so the request gets the API's answer.
    server.on('checkExpectation', serve);
    // CONNECT is not routed at all; with no listener Node drops the connection without a word.
    server.on('connect', (request, socket) => refuseTunnel(request, socket, headers));
    return server;
  };
}

/** The 404 of an unknown route, for a method no route can have. */
function notFound(request: IncomingMessage, response: ServerResponse, headers: EveryResponseHeaders): void {
  const body = JSON.stringify(errorBody(404, `Route ${request.method} ${request.url} not found`));
  response
    .writeHead(404, { ...headers, [REQUEST_ID_HEADER]: requestIdOf(request), 'content-type': 'application/json; charset=utf-8', connection: 'close' })
    .end(body);
}

function readTlsFiles(tls: { certFile: string; keyFile: string }) {
  return { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) };
}
