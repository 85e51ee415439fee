// CONTRACT §13: GET /metrics (outside /api, no rate limit) in Prometheus's text format, and the
// duration of every request in http_request_duration_seconds{method, route, status_code}.
// With METRICS_TOKEN set, /metrics needs `Authorization: Bearer <METRICS_TOKEN>`.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AuthenticationError } from '../errors.js';
import type { Metrics } from '../lib/metrics.js';
import { bearerCredential } from './auth.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's metrics: record through it, or register a metric of your own (src/lib/metrics.ts). */
    metrics: Metrics;
  }
}

const METRICS_PATH = '/metrics';
/** The route label of requests no route matched (404s): one series for all of them, never their URLs. */
const UNMATCHED_ROUTE = 'unmatched';

/** Whether `authorization` carries the bearer token; always true when no token is configured. */
function metricsAuthorized(token: string | undefined, authorization: string | undefined): boolean {
  if (!token) return true;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const presented = authorization === undefined ? null : bearerCredential(authorization);
  return presented !== null && timingSafeEqual(digest(presented), digest(token));
}

async function metricsPlugin(app: FastifyInstance, { metrics, token }: { metrics: Metrics; token: string | undefined }) {
  app.decorate('metrics', metrics);
  const observe = (request: FastifyRequest, reply: FastifyReply) =>
    metrics.httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status_code: reply.statusCode },
      reply.elapsedTime / 1000,
    );
  // A callback hook: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    observe(request, reply);
    done();
  });

  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (!metricsAuthorized(token, request.headers.authorization)) {
      reply.header('www-authenticate', 'Bearer');
      throw new AuthenticationError('Metrics need Authorization: Bearer <METRICS_TOKEN>');
    }
    return reply.type(metrics.contentType).send(await metrics.render());
  });
}

export default fp(metricsPlugin, { name: 'metrics' });
