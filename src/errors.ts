// The error hierarchy. Services throw these; src/plugins/errors.ts turns every error, ours or
// Fastify's, into the contract's body { statusCode, error, message } (CONTRACT §2).

export interface ErrorDetail {
  path: string;
  message: string;
}

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
  /** When given, the response carries `Retry-After` with it (whole seconds). */
  constructor(
    message = 'Too many requests, please retry later',
    readonly retryAfterSeconds?: number,
  ) {
    super(429, 'RATE_LIMIT_EXCEEDED', message);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'Service temporarily unavailable') {
    super(503, 'SERVICE_UNAVAILABLE', message);
  }
}
