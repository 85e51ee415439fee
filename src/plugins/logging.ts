// One structured (pino, JSON lines) logger per process, and what it must never write.
// Credentials never reach the logs. pino redacts these paths in every log line (headers, and
// any logged object holding a password or a secret one level down); request URLs are logged
// with the values of credential-like query parameters (OIDC code and state, signed-URL
// signatures, tokens) and a preview link's signature (in its path) replaced. Every line logged
// for a request carries its `reqId` (X-Request-Id, src/plugins/request-id.ts).
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { type Bindings, type ChildLoggerOptions, type DestinationStream, type Level, type Logger, pino } from 'pino';

const CENSOR = '[redacted]';

export const logRedaction = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    'req.body.password',
    'req.body.token',
    ...['password', 'passwordHash', 'token', 'tokenHash', 'secret', 'clientSecret', 'codeVerifier', 'accessToken', 'idToken', 'refreshToken'].map(
      (field) => `*.${field}`,
    ),
  ],
  censor: CENSOR,
};

const SECRET_QUERY_PARAMETER = /code|state|token|secret|signature|sig$|credential|password/i;

/** A preview page's path, `/previews/<id>.<expires>.<signature>/…`: the signature is the link's secret. */
const PREVIEW_SIGNATURE = /^(\/previews\/[^/.?]+\.[^/.?]+\.)[^/?]+/;

/** The URL with the values of credential-like query parameters, and a preview link's signature, replaced. */
export function redactUrl(url: string): string {
  url = url.replace(PREVIEW_SIGNATURE, `$1${CENSOR}`);
  const query = url.indexOf('?');
  if (query < 0) return url;
  const params = new URLSearchParams(url.slice(query + 1));
  for (const name of new Set(params.keys())) {
    if (SECRET_QUERY_PARAMETER.test(name)) params.set(name, CENSOR);
  }
  return `${url.slice(0, query)}?${params.toString()}`;
}

/** Fastify's request serializer, with the URL redacted. */
export const logSerializers = {
  // pg attaches its whole client (connection state, type parsers) to its errors: pool, queue.
  err: (error: Error) => {
    const { client: _client, ...fields } = pino.stdSerializers.err(error) as ReturnType<typeof pino.stdSerializers.err> & { client?: unknown };
    return fields;
  },
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
};

/** The process's logger: the API hands it to Fastify, server.ts and the worker log through it. */
export function createLogger(level: string, stream?: DestinationStream): Logger {
  return pino({ level, redact: logRedaction, serializers: logSerializers }, stream);
}

/**
 * Fastify's `childLoggerFactory`: the request's logger (bound to its `reqId`), made only when
 * the request first logs a line its level lets through. pino builds a child's bindings eagerly,
 * through the redaction above, for every request (~7 µs of CPU, README "Benchmarks") — mostly
 * for nothing, as most requests log nothing at the production level. What is logged is the same.
 */
export function deferredChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  const parent = logger as Logger;
  // A route's own level or serializers: a real child at once (no route of ours sets them).
  if (options.level || options.serializers || typeof parent.isLevelEnabled !== 'function') return logger.child(bindings, options);
  return new DeferredChildLogger(parent, bindings, options);
}

class DeferredChildLogger implements FastifyBaseLogger {
  #child: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.#logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#write('error', args);
  }

  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }

  info(...args: unknown[]): void {
    this.#write('info', args);
  }

  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }

  #logger(): Logger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  #write(level: Level, args: unknown[]): void {
    if (!(this.#child ?? this.parent).isLevelEnabled(level)) return;
    const logger = this.#logger();
    (logger[level] as (...args: unknown[]) => void).apply(logger, args);
  }
}
