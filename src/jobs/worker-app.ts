// What an export worker process (src/jobs/worker.ts) serves: the health endpoints (on the
// container probe's HEALTH_SOCKET, and with them on WORKER_METRICS_PORT) and GET /metrics — the
// same routes and plugins as the API's, over its database and queue.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Metrics } from '../lib/metrics.js';
import { healthRoutes } from '../modules/health/routes.js';
import { registerErrorHandling } from '../plugins/errors.js';
import metricsPlugin from '../plugins/metrics.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../plugins/request-id.js';
import { serializerCompiler } from '../plugins/response-serializer.js';
import type { ExportQueue } from './queue.js';

export interface WorkerAppDependencies {
  db: Database;
  queue: ExportQueue;
  metrics: Metrics;
  logger: Logger;
}

export async function buildWorkerApp(config: Config, { db, queue, metrics, logger }: WorkerAppDependencies): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, genReqId: requestIdOf }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  await app.register(metricsPlugin, { metrics, token: config.operations.metricsToken });
  await app.register(healthRoutes, { prefix: '/api', db, checks: { queue: () => queue.check() } });
  return app;
}
