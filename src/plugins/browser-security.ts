// What browsers are told: security headers (helmet) tuned for a JSON API — nothing may be
// framed, run or loaded from its responses — except the docs page, whose CSP comes from
// @fastify/swagger-ui (see app.ts); and CORS for the web app's origins, with credentials so
// the session cookie goes along. Strict-Transport-Security is set by https.ts, on HTTPS only.
//
// The headers are the ones OWASP's REST Security Cheat Sheet lists for API responses, not
// helmet's whole set for HTML pages: COOP, Origin-Agent-Cluster, X-DNS-Prefetch-Control,
// X-Download-Options, X-Permitted-Cross-Domain-Policies and X-XSS-Protection concern documents
// (or IE and Flash) and cost every response its share of the per-request time measured in README
// "Benchmarks". Without WEB_APP_ORIGINS there is no CORS at all: no origin may read, no
// preflight is answered (404), and no CORS header is sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { ValidationError } from '../errors.js';

/** Response headers a script of the web app may read. */
const EXPOSED_HEADERS = ['API-Version', 'Location', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The headers a helmet middleware sets, collected once. They are the same on every response,
 * and @fastify/helmet would rebuild the middleware on each request (~16 µs of CPU, README
 * "Benchmarks").
 */
function headersOf(middleware: ReturnType<typeof helmet>): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = { setHeader: (name: string, value: string) => (headers[name.toLowerCase()] = value), removeHeader: () => {} };
  middleware({} as IncomingMessage, response as unknown as ServerResponse, () => {});
  return headers;
}

/** The security headers of every response; src/app.ts sets them in its first hook, with API-Version. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = headersOf(
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    hsts: false,
    // Same-site pages (the web app on a sibling host) may embed files the service serves.
    crossOriginResourcePolicy: { policy: 'same-site' },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  }),
);

async function browserSecurityPlugin(app: FastifyInstance, { config }: { config: Config }) {
  if (config.auth.webAppOrigins.length === 0) return;
  // @fastify/cors would refuse an OPTIONS that lacks these with a text/plain 400 of its own.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.method === 'OPTIONS' && (!request.headers.origin || !request.headers['access-control-request-method'])) {
      return done(new ValidationError('OPTIONS is only for CORS preflights, which carry Origin and Access-Control-Request-Method'));
    }
    done();
  });
  await app.register(cors, {
    origin: config.auth.webAppOrigins,
    credentials: true,
    // PUT: browser uploads to the local store's signed URLs.
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
}

export default fp(browserSecurityPlugin, { name: 'browser-security' });
