// The error hierarchy. Services throw these; src/plugins/errors.ts turns every error, ours or
// Fastify's, into the contract's body { statusCode, error, message } (CONTRACT §2).

/** Where a detail of a 400 points: the JSON body, the query string, a parameter of the path, a header. */
export type ErrorLocation = 'body' | 'query' | 'path' | 'header';

/** One problem of a 400: `path` is the field within `in` (`name`, `items.0.id`; empty for the whole body). */
export interface ErrorDetail {
  in: ErrorLocation;
  path: string;
  message: string;
}

/** How a message names a detail's place, with the words of its `in`: `body.name`, `query.limit`, `path.id`. */
export function detailLabel(detail: Pick<ErrorDetail, 'in' | 'path'>): string {
  return detail.path ? `${detail.in}.${detail.path}` : detail.in;
}

/** The message of a detail that names a field the request may not send. */
export const UNKNOWN_FIELD = 'is an unknown field';

/** A 400's message, naming its first detail: `Invalid request: body.name: is too long`. */
export const invalidRequestMessage = (detail: ErrorDetail): string => `Invalid request: ${detailLabel(detail)}: ${detail.message}`;

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'VALIDATION_ERROR', message, details);
  }

  /** The 400 of these details, its message naming the first. */
  static of(details: [ErrorDetail, ...ErrorDetail[]]): ValidationError {
    return new ValidationError(invalidRequestMessage(details[0]), details);
  }
}

export class AuthenticationError extends AppError {
  constructor(message = 'Authentication required') {
    super(401, 'AUTHENTICATION_REQUIRED', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, 'INSUFFICIENT_PERMISSIONS', message);
  }
}

export class MissingScopeError extends ForbiddenError {
  constructor(readonly scope: string) {
    super(`Insufficient permissions. Required: ${scope}`);
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'Resource') {
    super(404, 'RESOURCE_NOT_FOUND', `${what} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'DUPLICATE_RESOURCE', message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body is too large') {
    super(413, 'PAYLOAD_TOO_LARGE', message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'Request body must be JSON (Content-Type: application/json)') {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', message);
  }
}

export class RateLimitError extends AppError {
  /**
   * When given, the response carries `Retry-After` with `retryAfterSeconds` (whole seconds).
   * `limit`: a limit other than the request's tier refused it (the account lockout); the
   * X-RateLimit-* headers then describe that one, exhausted.
   */
  constructor(
    message = 'Too many requests, please retry later',
    readonly retryAfterSeconds?: number,
    readonly limit?: number,
  ) {
    super(429, 'RATE_LIMIT_EXCEEDED', message);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'Service temporarily unavailable') {
    super(503, 'SERVICE_UNAVAILABLE', message);
  }
}
