// The one place errors become responses. Every error — ours, Fastify's, a validation failure,
// an unknown route, an unexpected exception — leaves with the body of CONTRACT §2.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, type ErrorDetail, ServiceUnavailableError } from '../errors.js';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'AUTHENTICATION_REQUIRED',
  403: 'INSUFFICIENT_PERMISSIONS',
  404: 'RESOURCE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
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
const underlying = (e: unknown): unknown =>
  (e as { cause?: unknown }).cause ?? (e as { meta?: { driverAdapterError?: unknown } }).meta?.driverAdapterError;

/** Errors meaning the database cannot be reached (driver, pool or Prisma engine level). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = underlying(e), depth++) {
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    if (name === 'PrismaClientInitializationError') return true;
    if (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P03', 'P1001', 'P1017'].includes(code)) {
      return true;
    }
    if (typeof message === 'string' && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|DatabaseNotReachable/i.test(message)) {
      return true;
    }
  }
  return false;
}

function toResponse(error: FastifyError | Error, request: FastifyRequest): ErrorBody {
  if (error instanceof AppError) return errorBody(error.statusCode, error.message, error.details);

  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'request';
    const details = error.validation.map((issue) => ({
      path: [where, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
      message: issue.message ?? 'is invalid',
    }));
    const first = details[0];
    return errorBody(400, first ? `Invalid request: ${first.path}: ${first.message}` : `Invalid ${where}`, details);
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

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const body = toResponse(error, request);
    if (body.statusCode === 503) request.log.warn({ err: error }, 'dependency unavailable');
    return sendError(reply, body);
  });
  app.setNotFoundHandler((request, reply) => {
    const body = errorBody(404, `Route ${request.method} ${request.url.split('?')[0]} not found`);
    return sendError(reply, body);
  });
}
