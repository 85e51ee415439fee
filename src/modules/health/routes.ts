import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { checkReadiness, type ReadinessCheck } from './readiness.js';

const tags = ['health'];
const checkStatus = z.record(z.string(), z.enum(['ok', 'unavailable']));

export interface HealthRouteOptions {
  db: Database;
  /** Dependencies the instance cannot serve without (the database is always one). */
  checks?: Record<string, ReadinessCheck>;
  /** Dependencies only reported: their failure does not make the instance unready. */
  advisoryChecks?: Record<string, ReadinessCheck>;
}

export const healthRoutes: FastifyPluginAsyncZod<HealthRouteOptions> = async (app, { db, checks = {}, advisoryChecks = {} }) => {
  const required: Record<string, ReadinessCheck> = { database: () => db.$queryRaw`SELECT 1`, ...checks };

  app.get('/health', {
    config: { auth: 'public', rateLimitTier: false },
    schema: { tags, operationId: 'getHealth', summary: 'Liveness', response: { 200: z.object({ status: z.literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.get('/health/ready', {
    config: { auth: 'public', rateLimitTier: false },
    schema: {
      tags,
      operationId: 'getReadiness',
      summary: `Readiness: ${[...Object.keys(required), ...Object.keys(advisoryChecks).map((name) => `${name} (reported only)`)].join(', ')}`,
      response: {
        200: z.object({ status: z.literal('ok'), checks: checkStatus }),
        503: z.object({
          statusCode: z.literal(503),
          error: z.literal('SERVICE_UNAVAILABLE'),
          message: z.string(),
          checks: checkStatus,
        }),
      },
    },
    handler: async (request, reply) => {
      const report = await checkReadiness(required, advisoryChecks);
      for (const { check, error } of report.failures) request.log.warn({ err: error, check }, 'readiness check failed');
      if (report.ready) return { status: 'ok' as const, checks: report.checks };
      return reply.code(503).send({
        statusCode: 503 as const,
        error: 'SERVICE_UNAVAILABLE' as const,
        message: `Not ready: ${report.down.join(', ')} unavailable`,
        checks: report.checks,
      });
    },
  });
};
