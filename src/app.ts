// Builds the Fastify instance (no listen): plugins, the /api route groups, OpenAPI and docs.
// src/server.ts starts it; tests build it with app.inject or a port of their own.
import { createHmac } from 'node:crypto';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { DestinationStream, Logger } from 'pino';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { httpServerFactory } from './http-server.js';
import { ServiceUnavailableError, ValidationError } from './errors.js';
import { authRoutes } from './modules/auth/routes.js';
import { gameRoutes } from './modules/games/routes.js';
import { healthRoutes } from './modules/health/routes.js';
import { unconfiguredOidcRoutes } from './modules/oidc/unconfigured-routes.js';
import { organizationRoutes } from './modules/organizations/routes.js';
import { assetRoutes } from './modules/assets/routes.js';
import { assetStatusByKey } from './modules/assets/service.js';
import { tokenRoutes } from './modules/tokens/routes.js';
import { variantRoutes } from './modules/variants/routes.js';
import { exportBatchRoutes } from './modules/export-batches/routes.js';
import { exportRoutes } from './modules/exports/routes.js';
import type { OptimizationCache } from './exporters/pipeline.js';
import { createPreviewLinks } from './modules/previews/link.js';
import { previewPageRoutes } from './modules/previews/page-routes.js';
import { previewRoutes } from './modules/previews/routes.js';
import { createPreviewService } from './modules/previews/service.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { type ResolveHost, systemResolver } from './modules/webhooks/target.js';
import { startStorageSweeper } from './jobs/storage-sweeper.js';
import { type ExportQueue, startExportQueue } from './jobs/queue.js';
import { createMetrics, type Metrics } from './lib/metrics.js';
import { connectRedis } from './lib/redis.js';
import access from './plugins/access.js';
import auth from './plugins/auth.js';
import browserSecurity, { SECURITY_HEADERS } from './plugins/browser-security.js';
import { clientErrorHandler, frameworkErrors, notFound, registerErrorHandling } from './plugins/errors.js';
import https from './plugins/https.js';
import { registerJsonBodyParsing } from './plugins/json-body.js';
import { createLogger, deferredChildLogger } from './plugins/logging.js';
import metricsPlugin from './plugins/metrics.js';
import { openApiOptions } from './plugins/openapi.js';
import rateLimits from './plugins/rate-limit.js';
import { REQUEST_ID_HEADER, requestIdOf } from './plugins/request-id.js';
import { serializerCompiler } from './plugins/response-serializer.js';
import { createObjectStore } from './storage/index.js';
import { isLocalStore } from './storage/local.js';
import { localObjectRoutes } from './storage/local-routes.js';
import type { ObjectStore } from './storage/types.js';

export const API_PREFIX = '/api';
export const API_VERSION = '1';
const EVERY_RESPONSE_HEADERS = { 'api-version': API_VERSION, ...SECURITY_HEADERS };

/** The headers of every response: set by the app's first hook, and on the router's own errors. */
function setEveryResponseHeaders(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.headers(EVERY_RESPONSE_HEADERS).header(REQUEST_ID_HEADER, request.id);
}
/** JSON bodies are small by design; files go straight to the object store. */
const BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppDependencies {
  db: Database;
  /** The clock (ms since the epoch) of the sliding rate-limit window and of the local store's URL expiry; Date.now unless a test moves it. */
  now?: () => number;
  /** The process's logger (src/server.ts passes its own); by default one on `logStream`. */
  logger?: Logger;
  /** Where log lines go (default stdout) when no logger is given; tests read them. */
  logStream?: DestinationStream;
  /** The object store; by default the one config chooses (src/storage/index.ts). */
  store?: ObjectStore;
  /** The database of the export queue (pg-boss); DATABASE_URL by default. */
  databaseUrl?: string;
  /** The export worker's cache of optimized files; one sized by EXPORT_OPTIMIZE_CACHE_BYTES by default. */
  optimizeCache?: OptimizationCache;
  /** Resolves webhook hosts for the address check (src/modules/webhooks/target.ts); the system resolver by default. */
  resolveHost?: ResolveHost;
}

export async function buildApp(config: Config, deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    // HTTP, or HTTPS when TLS files are configured, with what Node would answer itself routed to the API.
    serverFactory: httpServerFactory(config, EVERY_RESPONSE_HEADERS),
    trustProxy: config.http.trustProxy,
    // Typed as Fastify's logger interface, so that plugins see the usual instance type.
    loggerInstance: (deps.logger ?? createLogger(config.logLevel, deps.logStream)) as FastifyBaseLogger,
    genReqId: requestIdOf,
    childLoggerFactory: deferredChildLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    // In-flight requests finish on close; requests still arriving on open keep-alive
    // connections get 503 from the hook below, with the contract's body (Fastify's own has not).
    return503OnClosing: false,
    // Errors the router raises before any route runs (bad URL encoding, over-long id). Hooks
    // do not run for them, hence the headers here.
    frameworkErrors: (error, request, reply) => frameworkErrors(error, request, setEveryResponseHeaders(request, reply)),
    // Requests Node's HTTP parser refuses, before Fastify sees them (CONTRACT §8).
    clientErrorHandler: (error, socket) => clientErrorHandler(error, socket, EVERY_RESPONSE_HEADERS),
  }).withTypeProvider<ZodTypeProvider>();
  const store = deps.store ?? (await createObjectStore(config, { now: deps.now }));
  const resolveHost = deps.resolveHost ?? systemResolver;
  const metrics = createMetrics({
    pool: deps.db.pool,
    queueCounts: () => queue.counts(),
    onCollectError: (error, metric) => app.log.warn({ err: error, metric }, 'metric not collected'),
  });
  const queue = await startQueue(app, config, { ...deps, resolveHost }, { store, metrics });
  const redis = config.rateLimit.redisUrl ? await connectRedis(config.rateLimit.redisUrl, app.log) : undefined;
  if (redis) app.addHook('onClose', async () => redis.disconnect());

  registerJsonBodyParsing(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  // Graceful close: requests in flight finish and their connections then close (otherwise an
  // idle keep-alive connection holds close() up for keepAliveTimeout); new requests get 503.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks on every request take a callback rather than return a promise, and each phase has as
  // few hooks as it can: each promise and hook costs every request (README "Benchmarks").
  app.addHook('onRequest', (request, reply, done) => {
    setEveryResponseHeaders(request, reply);
    if (closing) return done(new ServiceUnavailableError('The server is shutting down; retry the request'));
    // Node's own check of this answers without a body; it is off (src/http-server.ts) for this one.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      return done(new ValidationError('An HTTP/1.1 request must carry a Host header'));
    }
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });

  // First: a plain-HTTP request is answered before anything else runs.
  await app.register(https, { config });
  await app.register(metricsPlugin, { metrics, token: config.operations.metricsToken });
  await app.register(browserSecurity, { config });
  // Signed cookies (the OpenID Connect sign-in attempt) use a key derived from the JWT secret.
  // No parsing hook: the few routes that read a cookie parse it then (cookieOf in plugins/auth.ts).
  await app.register(cookie, { secret: createHmac('sha256', config.auth.jwtSecret).update('cookie-signing').digest(), hook: false });
  await app.register(swagger, openApiOptions(config, { version: API_VERSION }));
  // Preview links are signed with a key of their own, derived from the JWT secret.
  const previewLinks = createPreviewLinks({
    key: createHmac('sha256', config.auth.jwtSecret).update('preview-links').digest(),
    publicUrl: config.publicUrl,
    now: deps.now,
  });
  const previews = createPreviewService({ db: deps.db, links: previewLinks, now: deps.now });

  await app.register(
    async (api) => {
      await api.register(rateLimits, { config, redis, now: deps.now });
      await api.register(auth, { config, db: deps.db });
      // The caller, its rate limit and its scope: one onRequest hook for every /api route.
      await api.register(access);
      // Unknown /api routes pass the hook above too: counted in the standard tier (CONTRACT §7).
      api.setNotFoundHandler(notFound);
      await api.register(healthRoutes, {
        db: deps.db,
        checks: { objectStore: () => store.check(), queue: () => queue.check() },
        ...(redis && { advisoryChecks: { redis: () => redis.ping() } }),
      });
      await api.register(authRoutes, { db: deps.db, config });
      // Loaded only when configured: openid-client is of no use otherwise.
      if (config.oidc) await api.register((await import('./modules/oidc/routes.js')).oidcRoutes, { db: deps.db, config, oidc: config.oidc });
      else await api.register(unconfiguredOidcRoutes);
      await api.register(organizationRoutes, { db: deps.db, storageQuotaBytes: config.storage.orgQuotaBytes });
      await api.register(tokenRoutes, { db: deps.db });
      await api.register(gameRoutes, { db: deps.db, store, queue });
      await api.register(variantRoutes, { db: deps.db, store, queue });
      await api.register(exportRoutes, { db: deps.db, store, queue, downloadUrlTtlSeconds: config.storage.downloadUrlTtlSeconds });
      await api.register(exportBatchRoutes, {
        db: deps.db,
        store,
        queue,
        downloadUrlTtlSeconds: config.storage.downloadUrlTtlSeconds,
        maxExports: config.exports.batchMaxExports,
      });
      await api.register(assetRoutes, { db: deps.db, store, config });
      await api.register(webhookRoutes, { db: deps.db, config: config.webhooks, resolveHost });
      await api.register(previewRoutes, { previews });
      api.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
      // The docs page and its files: public, in the standard tier like the rest of /api.
      await api.register(async (docs) => {
        docs.addHook('onRoute', (route) => {
          route.config = { ...route.config, auth: 'public' };
        });
        await docs.register(swaggerUi, {
          routePrefix: '/docs',
          // The page's own CSP (its scripts and styles by hash), in place of the API's; without
          // upgrade-insecure-requests, which would break the page on a plain-HTTP development server.
          staticCSP: true,
          transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
        });
      });
    },
    { prefix: API_PREFIX },
  );
  if (config.storage.sweepIntervalSeconds > 0) {
    const sweeper = startStorageSweeper({ db: deps.db, store, settings: config.storage, log: app.log, now: deps.now }, config.storage.sweepIntervalSeconds * 1000);
    app.addHook('onClose', () => sweeper.stop());
  }
  // Preview pages: outside /api, authorized by their signed link alone.
  await app.register(previewPageRoutes, { previews, links: previewLinks, store });
  // The local store's signed URLs: outside /api, authorized by their signature alone.
  if (isLocalStore(store)) {
    await app.register(localObjectRoutes, { store, uploadTargetStatus: (key) => assetStatusByKey(deps.db, key) });
  }

  return app;
}

/**
 * The export queue, stopped when the app closes; its workers run here unless
 * EXPORT_WORKER_IN_API=false, with the validation browser, closed once the running exports finished.
 * The workers and the export pipeline (sharp, svgo, esbuild, css-tree, parse5, …; ~65 MiB of
 * RSS) are imported only then: an API that leaves exports to worker processes never loads them
 * (README "Benchmarks").
 */
async function startQueue(
  app: FastifyInstance,
  config: Config,
  deps: AppDependencies & { resolveHost: ResolveHost },
  { store, metrics }: { store: ObjectStore; metrics: Metrics },
): Promise<ExportQueue> {
  const databaseUrl = deps.databaseUrl ?? config.database.url;
  if (!databaseUrl) throw new Error('The export queue needs a database URL (DATABASE_URL or deps.databaseUrl)');
  const queue = await startExportQueue(databaseUrl, config, (error) => app.log.error({ err: error }, 'export queue error'));
  const browser = config.exports.workerInApi
    ? (await import('./exporters/browser/manager.js')).createBrowserManager({ ...config.exports.browser, concurrency: config.exports.concurrency, log: app.log })
    : null;
  app.addHook('onClose', async () => {
    await queue.stop();
    await browser?.close();
  });
  if (browser) {
    const workerDeps = { db: deps.db, store, queue, log: app.log, metrics, resolveHost: deps.resolveHost, optimizeCache: deps.optimizeCache, browser };
    const { startWorkers } = await import('./jobs/workers.js');
    await startWorkers(workerDeps, config);
  }
  return queue;
}
