import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { NETWORK_RULES, NETWORKS } from '../../exporters/rules.js';
import type { ExportQueue } from '../../jobs/queue.js';
import { envelopeSchema } from '../../lib/pagination.js';
import { idParam } from '../../lib/schemas.js';
import { callerOf } from '../../plugins/auth.js';
import type { ObjectStore } from '../../storage/types.js';
import { createExportBody, createExportDescription, exportCreatedSchema, exportSchema, idempotencyHeaders, listExportsQuery, networkSchema } from './schemas.js';
import { createExportService } from './service.js';

const tags = ['exports'];

export interface ExportRoutesOptions {
  db: Database;
  store: ObjectStore;
  queue: ExportQueue;
  downloadUrlTtlSeconds: number;
}

export const exportRoutes: FastifyPluginAsyncZod<ExportRoutesOptions> = async (app, options) => {
  const exports = createExportService(options);

  app.post('/export', {
    config: { scope: 'exports:write', rateLimitTier: 'export' },
    schema: {
      tags,
      operationId: 'createExport',
      summary: 'Export a variant to an ad network',
      description: createExportDescription,
      headers: idempotencyHeaders,
      body: createExportBody,
      response: { 202: exportCreatedSchema },
    },
    handler: async (request, reply) => reply.code(202).send(await exports.create(callerOf(request), request.body, request.headers['idempotency-key'])),
  });

  app.get('/exports', {
    config: { scope: 'exports:read' },
    schema: { tags, operationId: 'listExports', summary: 'List exports', querystring: listExportsQuery, response: { 200: envelopeSchema(exportSchema) } },
    handler: async (request) => exports.list(callerOf(request), request.query),
  });

  app.get('/exports/networks', {
    config: { scope: 'exports:read' },
    schema: {
      tags,
      operationId: 'listNetworks',
      summary: 'The ad networks and their packaging rules',
      response: { 200: z.object({ data: z.array(networkSchema) }) },
    },
    handler: async () => ({ data: NETWORKS.map((network) => ({ network, ...NETWORK_RULES[network] })) }),
  });

  app.get('/exports/:id', {
    config: { scope: 'exports:read' },
    schema: { tags, operationId: 'getExport', summary: 'One export, with a downloadUrl once it succeeded', params: idParam, response: { 200: exportSchema } },
    handler: async (request) => exports.get(callerOf(request), request.params.id),
  });
};
