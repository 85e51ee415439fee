import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/client.js';

const tags = ['health'];

/** Checks a dependency the service needs; resolves when it is reachable. */
export type ReadinessCheck = () => Promise<unknown>;

export const healthRoutes: FastifyPluginAsyncZod<{ db: Database; checks?: Record<string, ReadinessCheck> }> = async (
  app,
  { db, checks = {} },
) => {
  const readiness: Record<string, ReadinessCheck> = { database: () => db.$queryRaw`SELECT 1`, ...checks };

  app.get('/health', {
    config: { auth: 'public', rateLimitTier: false },
    schema: { tags, summary: 'Liveness', response: { 200: z.object({ status: z.literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.get('/health/ready', {
    config: { auth: 'public', rateLimitTier: false },
    schema: {
      tags,
      summary: 'Readiness: the database and the object store answer',
      response: {
        200: z.object({ status: z.literal('ok'), checks: z.record(z.string(), z.literal('ok')) }),
        503: z.object({
          statusCode: z.literal(503),
          error: z.literal('SERVICE_UNAVAILABLE'),
          message: z.string(),
          checks: z.record(z.string(), z.enum(['ok', 'unavailable'])),
        }),
      },
    },
    handler: async (request, reply) => {
      const names = Object.keys(readiness);
      const results = await Promise.allSettled(names.map((name) => withTimeout(readiness[name]!(), 3_000)));
      const status = Object.fromEntries(names.map((name, i) => [name, results[i]!.status === 'fulfilled' ? 'ok' : 'unavailable'] as const));
      const down = names.filter((name) => status[name] !== 'ok');
      if (down.length === 0) return { status: 'ok' as const, checks: status as Record<string, 'ok'> };
      results.forEach((r, i) => r.status === 'rejected' && request.log.warn({ err: r.reason, check: names[i] }, 'readiness check failed'));
      return reply.code(503).send({
        statusCode: 503 as const,
        error: 'SERVICE_UNAVAILABLE' as const,
        message: `Not ready: ${down.join(', ')} unavailable`,
        checks: status,
      });
    },
  });
};

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);
}
