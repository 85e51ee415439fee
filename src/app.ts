// Builds the Fastify instance (no listen): plugins, the /api route groups, OpenAPI and docs.
// src/server.ts starts it; tests build it with app.inject or a port of their own.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { ServiceUnavailableError } from './errors.js';
import { authRoutes } from './modules/auth/routes.js';
import { gameRoutes } from './modules/games/routes.js';
import { healthRoutes } from './modules/health/routes.js';
import { oidcRoutes } from './modules/oidc/routes.js';
import { organizationRoutes } from './modules/organizations/routes.js';
import { assetRoutes } from './modules/assets/routes.js';
import { tokenRoutes } from './modules/tokens/routes.js';
import { variantRoutes } from './modules/variants/routes.js';
import { exportRoutes } from './modules/exports/routes.js';
import { startExportWorker } from './jobs/export-worker.js';
import { type ExportQueue, startExportQueue } from './jobs/queue.js';
import auth from './plugins/auth.js';
import browserSecurity from './plugins/browser-security.js';
import { frameworkErrors, registerErrorHandling } from './plugins/errors.js';
import https from './plugins/https.js';
import { registerJsonBodyParsing } from './plugins/json-body.js';
import { logRedaction, logSerializers } from './plugins/logging.js';
import rateLimits from './plugins/rate-limit.js';
import { serializerCompiler } from './plugins/response-serializer.js';
import { createObjectStore } from './storage/index.js';
import { isLocalStore } from './storage/local.js';
import { localObjectRoutes } from './storage/local-routes.js';
import type { ObjectStore } from './storage/types.js';

export const API_PREFIX = '/api';
export const API_VERSION = '1';
/** JSON bodies are small by design; files go straight to the object store. */
const BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppDependencies {
  db: Database;
  /** The clock (ms since the epoch) of the sliding rate-limit window and of the local store's URL expiry; Date.now unless a test moves it. */
  now?: () => number;
  /** Where log lines go (default stdout); tests read them. */
  logStream?: DestinationStream;
  /** The object store; by default the one config chooses (src/storage/index.ts). */
  store?: ObjectStore;
  /** The database of the export queue (pg-boss); DATABASE_URL by default. */
  databaseUrl?: string;
}

export async function buildApp(config: Config, deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    // An HTTPS server when TLS files are configured; typed as the HTTP one, as it is used the same way.
    ...((config.http.tls ? { https: readTlsFiles(config.http.tls) } : {}) as Record<never, never>),
    trustProxy: config.http.trustProxy,
    logger: { level: config.logLevel, redact: logRedaction, serializers: logSerializers, ...(deps.logStream && { stream: deps.logStream }) },
    bodyLimit: BODY_LIMIT_BYTES,
    // In-flight requests finish on close; requests still arriving on open keep-alive
    // connections get 503 from the hook below, with the contract's body (Fastify's own has not).
    return503OnClosing: false,
    // Errors the router raises before any route runs (bad URL encoding, over-long id). Hooks
    // do not run for them, hence the header here.
    frameworkErrors: (error, request, reply) => frameworkErrors(error, request, reply.header('API-Version', API_VERSION)),
  }).withTypeProvider<ZodTypeProvider>();
  const store = deps.store ?? createObjectStore(config, { now: deps.now });
  const queue = await startQueue(app, config, deps, store);

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
  app.addHook('onRequest', async () => {
    if (closing) throw new ServiceUnavailableError('The server is shutting down; retry the request');
  });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('API-Version', API_VERSION);
    if (closing) reply.header('Connection', 'close');
  });

  // First: a plain-HTTP request is answered before anything else runs.
  await app.register(https, { config });
  await app.register(browserSecurity, { config });
  // Signed cookies (the OpenID Connect sign-in attempt) use a key derived from the JWT secret.
  await app.register(cookie, { secret: createHmac('sha256', config.auth.jwtSecret).update('cookie-signing').digest() });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Playable Content Service',
        version: API_VERSION,
        description: 'Games, assets, variants and ad-network exports of HTML5 playable ads. See README.md.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API token (pcs_…) or a session JWT' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: 'session' },
        },
      },
      security: [{ bearer: [] }, { sessionCookie: [] }],
    },
    transform: jsonSchemaTransform,
  });

  await app.register(
    async (api) => {
      // Rate limits first: their hook resolves the caller (via auth) before auth's own hook runs.
      await api.register(rateLimits, { config, now: deps.now });
      await api.register(auth, { config, db: deps.db });
      await api.register(healthRoutes, { db: deps.db, checks: { objectStore: () => store.check() } });
      await api.register(authRoutes, { db: deps.db, config });
      if (config.oidc) await api.register(oidcRoutes, { db: deps.db, config, oidc: config.oidc });
      await api.register(organizationRoutes, { db: deps.db });
      await api.register(tokenRoutes, { db: deps.db });
      await api.register(gameRoutes, { db: deps.db, store });
      await api.register(variantRoutes, { db: deps.db, store });
      await api.register(exportRoutes, { db: deps.db, store, queue, downloadUrlTtlSeconds: config.storage.downloadUrlTtlSeconds });
      await api.register(assetRoutes, { db: deps.db, store, config });
      api.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: API_PREFIX },
  );
  await app.register(swaggerUi, {
    routePrefix: `${API_PREFIX}/docs`,
    // The page's own CSP (its scripts and styles by hash), in place of the API's; without
    // upgrade-insecure-requests, which would break the page on a plain-HTTP development server.
    staticCSP: true,
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
  });
  // The local store's signed URLs: outside /api, authorized by their signature alone.
  if (isLocalStore(store)) await app.register(localObjectRoutes, { store });

  return app;
}

/** The export queue, stopped when the app closes; its worker runs here unless EXPORT_WORKER_IN_API=false. */
async function startQueue(app: FastifyInstance, config: Config, deps: AppDependencies, store: ObjectStore): Promise<ExportQueue> {
  const databaseUrl = deps.databaseUrl ?? config.database.url;
  if (!databaseUrl) throw new Error('The export queue needs a database URL (DATABASE_URL or deps.databaseUrl)');
  const queue = await startExportQueue(databaseUrl, config.exports, (error) => app.log.error({ err: error }, 'export queue error'));
  app.addHook('onClose', () => queue.stop());
  if (config.exports.workerInApi) await startExportWorker(queue, { db: deps.db, store, log: app.log }, config.exports);
  return queue;
}

function readTlsFiles(tls: { certFile: string; keyFile: string }) {
  return { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) };
}
