// The one place errors become responses. Every error — ours, Fastify's, a validation failure,
// an unknown route, an unexpected exception — leaves with the body of CONTRACT §2.
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  AppError,
  detailLabel,
  type ErrorDetail,
  type ErrorLocation,
  invalidRequestMessage,
  RateLimitError,
  ServiceUnavailableError,
  UNKNOWN_FIELD,
} from '../errors.js';
import { newRequestId, REQUEST_ID_HEADER, requestIdOf } from './request-id.js';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'AUTHENTICATION_REQUIRED',
  403: 'INSUFFICIENT_PERMISSIONS',
  404: 'RESOURCE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  409: 'DUPLICATE_RESOURCE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details?: ErrorDetail[];
}

export function errorBody(statusCode: number, message: string, details?: ErrorDetail[]): ErrorBody {
  const body: ErrorBody = { statusCode, error: CODE_BY_STATUS[statusCode] ?? 'ERROR', message };
  if (details?.length) body.details = details;
  return body;
}

/** Fastify's own client errors, by code, with messages a user of the API can act on. */
const FASTIFY_ERRORS: Record<string, { status: number; message?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Request body must be JSON (Content-Type: application/json)' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Content-Length does not match the body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'Body cannot be empty when Content-Type is application/json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'Malformed JSON body' },
};

/** The next error down: `cause`, or the driver error Prisma keeps in `meta.driverAdapterError`. */
const underlying = (e: unknown): unknown => (e as { cause?: unknown }).cause ?? (e as { meta?: { driverAdapterError?: unknown } }).meta?.driverAdapterError;

/**
 * What "the database cannot be reached or will not take connections" looks like at each layer,
 * so that it is 503 (CONTRACT §2) and not 500. Every other query error keeps its own answer.
 * - Node's socket errors (pg, and the adapter's pass-through).
 * - PostgreSQL SQLSTATEs, from pg (`code`) or inside Prisma's adapter error (`originalCode`):
 *   class 08 connection exceptions (not 08P01, a protocol violation: a bug, not an outage), 53300 too many connections, 57P01–57P03 shutdowns and
 *   "cannot connect now", 3D000 no such database, 28000/28P01 authentication refused at connect.
 * - @prisma/adapter-pg's kinds for those (`cause.kind`), and the codes Prisma gives them (P1xxx, P2037).
 */
const UNAVAILABLE_CODES = new Set([
  ...['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'],
  ...['08000', '08003', '08006', '08001', '08004', '53300', '57P01', '57P02', '57P03', '3D000', '28000', '28P01'],
  ...['P1000', 'P1001', 'P1003', 'P1008', 'P1010', 'P1017', 'P2037'],
]);
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'TooManyConnections',
  'ConnectionClosed',
  'SocketTimeout',
]);
/** pg's own errors, with no code: the connection dropped or never came. */
const UNAVAILABLE_MESSAGE = /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|DatabaseNotReachable/i;
/**
 * 55000 (object not in prerequisite state) is also raised by ordinary statements (ERROR); at
 * connect it is the database refusing connections (ALLOW_CONNECTIONS false): FATAL, with this
 * message. Both are in the server's language (pg reports the localized severity): a server with
 * translated messages is not recognized here, and such a refusal stays a 500.
 */
const NOT_ACCEPTING = /not (currently )?accepting connections/i;

/** Errors meaning the database cannot be reached or will not take connections (driver, pool or Prisma level). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; e = underlying(e), depth++) {
    const { code, originalCode, kind, name, message, originalMessage, severity } = e as Record<string, unknown>;
    if (name === 'PrismaClientInitializationError') return true;
    const codes = [code, originalCode].filter((c): c is string => typeof c === 'string');
    const text = [message, originalMessage].filter((m): m is string => typeof m === 'string').join('\n');
    if (codes.some((c) => UNAVAILABLE_CODES.has(c)) || (typeof kind === 'string' && UNAVAILABLE_KINDS.has(kind))) return true;
    if (codes.includes('55000') && (severity === 'FATAL' || NOT_ACCEPTING.test(text))) return true;
    if (UNAVAILABLE_MESSAGE.test(text)) return true;
  }
  return false;
}

/** Fastify's names of a request's parts (its `validationContext`), as a 400's details name them. */
const LOCATION_OF_CONTEXT: Record<string, ErrorLocation> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function toResponse(error: FastifyError | Error, request: FastifyRequest): ErrorBody {
  if (error instanceof AppError) return errorBody(error.statusCode, error.message, error.details);

  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = LOCATION_OF_CONTEXT[error.validationContext ?? 'body'] ?? 'body';
    const details = error.validation.flatMap((issue) => {
      const path = issue.instancePath.split('/').filter(Boolean);
      // One detail per unknown field, at the field itself (zod reports them together, at their object).
      const unknownKeys = issue.keyword === 'unrecognized_keys' ? (issue.params as { keys?: string[] }).keys : undefined;
      if (unknownKeys?.length) return unknownKeys.map((key) => ({ in: where, path: [...path, key].join('.'), message: UNKNOWN_FIELD }));
      return [{ in: where, path: path.join('.'), message: issue.message ?? 'is invalid' }];
    });
    const first = details[0];
    return errorBody(400, first ? invalidRequestMessage(first) : `Invalid ${detailLabel({ in: where, path: '' })}`, details);
  }

  const known = 'code' in error && typeof error.code === 'string' ? FASTIFY_ERRORS[error.code] : undefined;
  if (known) return errorBody(known.status, known.message ?? error.message);

  if (isDatabaseUnavailable(error)) return errorBody(503, new ServiceUnavailableError().message);

  const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 400 && status < 500) return errorBody(status, error.message);

  request.log.error({ err: error }, 'unhandled error');
  return errorBody(500, 'An unexpected error occurred');
}

export function sendError(reply: FastifyReply, body: ErrorBody): FastifyReply {
  return reply.code(body.statusCode).type('application/json; charset=utf-8').send(body);
}

/**
 * Fastify's `frameworkErrors` option: errors of the router, before a route is chosen. A path
 * parameter too long for the router is an id that cannot exist (404, CONTRACT §1); a URL
 * that cannot be decoded is a bad request.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const body =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? errorBody(404, 'Resource not found')
      : error.code === 'FST_ERR_BAD_URL'
        ? errorBody(400, 'The URL is not correctly encoded')
        : toResponse(error, request);
  return sendError(reply, body);
}

/** Node's own refusals that say more than "bad request", by error code (as Node answers them itself). */
const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  // 400, not 431: CONTRACT §8 has every request the parser refuses answered with a 400.
  HPE_HEADER_OVERFLOW: { status: 400, message: 'The request headers are too large' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: 'The chunk extensions of the request body are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time' },
};

/**
 * The headers of every response (API-Version, the security headers), for the answers written
 * before Fastify sees a request; each also gets its X-Request-Id (CONTRACT §13).
 */
export type EveryResponseHeaders = Readonly<Record<string, string>>;

/** Writes the contract's error body straight to a socket Fastify does not serve, and closes it once written. */
function answerOnSocket(socket: Duplex, body: ErrorBody, headers: EveryResponseHeaders, requestId: string): void {
  const json = JSON.stringify(body);
  const lines = Object.entries({ ...headers, [REQUEST_ID_HEADER]: requestId }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(
    `HTTP/1.1 ${body.statusCode} ${STATUS_CODES[body.statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(json)}\r\n${lines.join('')}Connection: close\r\n\r\n${json}`,
    () => socket.destroy(),
  );
}

/**
 * Fastify's `clientErrorHandler` option: requests Node's HTTP parser refuses before any route
 * or hook sees them (bad header characters, a body longer than its Content-Length, broken
 * chunks …). Answered on the socket, as Node would, but with the contract's body, and only while
 * nothing of a response in flight has been written; then the connection closes. The request's
 * own X-Request-Id could not be read: it gets a fresh one.
 */
export function clientErrorHandler(error: Error & { code?: string; reason?: string }, socket: Socket, headers: EveryResponseHeaders): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy(error);
    return;
  }
  const known = CLIENT_ERRORS[error.code ?? ''];
  answerOnSocket(
    socket,
    known ? errorBody(known.status, known.message) : errorBody(400, `The request is not valid HTTP${error.reason ? `: ${error.reason}` : ''}`),
    headers,
    newRequestId(),
  );
}

/**
 * A CONNECT request: Node hands it to the server's 'connect' event and, with no listener, drops
 * the connection without a word. No route of an API is a tunnel: 404, as for any unknown route.
 */
export function refuseTunnel(request: IncomingMessage, socket: Duplex, headers: EveryResponseHeaders): void {
  if (socket.destroyed) return;
  answerOnSocket(socket, errorBody(404, `Route ${request.method} ${request.url} not found`), headers, requestIdOf(request));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const body = toResponse(error, request);
    if (body.statusCode === 503) request.log.warn({ err: error }, 'dependency unavailable');
    if (error instanceof RateLimitError && error.retryAfterSeconds !== undefined) {
      reply.header('retry-after', error.retryAfterSeconds);
      if (error.limit !== undefined) {
        reply.headers({ 'x-ratelimit-limit': error.limit, 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': error.retryAfterSeconds });
      }
    }
    return sendError(reply, body);
  });
  app.setNotFoundHandler(notFound);
}

/** The 404 of a URL no route matches; /api sets it again so that its hooks (rate limit) run for it. */
export function notFound(request: FastifyRequest, reply: FastifyReply) {
  const body = errorBody(404, `Route ${request.method} ${request.url.split('?')[0]} not found`);
  return sendError(reply, body);
}
