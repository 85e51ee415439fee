// One structured (pino, JSON lines) logger per process, and what it must never write.
// Credentials never reach the logs. pino redacts these paths in every log line (headers, and
// any logged object holding a password or a secret one level down); request URLs are logged
// with the values of credential-like query parameters (OIDC code and state, signed-URL
// signatures, tokens) replaced. Every line logged for a request carries its `reqId`
// (X-Request-Id, src/plugins/request-id.ts).
import type { FastifyRequest } from 'fastify';
import { type DestinationStream, type Logger, pino } from 'pino';

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

/** The URL with the values of credential-like query parameters replaced. */
export function redactUrl(url: string): string {
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
