import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { envelopeSchema } from '../../lib/pagination.js';
import { idParam } from '../../lib/schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { idempotencyHeaders } from '../exports/schemas.js';
import { batchCreatedSchema, batchSchema, createBatchBody, createBatchDescription, listBatchesQuery } from './schemas.js';
import { createExportBatchService, type ExportBatchServiceDeps } from './service.js';

const tags = ['exports'];

export const exportBatchRoutes: FastifyPluginAsyncZod<ExportBatchServiceDeps> = async (app, options) => {
  const batches = createExportBatchService(options);

  app.post('/export-batches', {
    config: { scope: 'exports:write', rateLimitTier: 'export' },
    schema: {
      tags,
      operationId: 'createExportBatch',
      summary: 'Export variants to networks as one batch',
      description: createBatchDescription,
      headers: idempotencyHeaders,
      body: createBatchBody,
      response: { 202: batchCreatedSchema },
    },
    handler: async (request, reply) => reply.code(202).send(await batches.create(callerOf(request), request.body, request.headers['idempotency-key'])),
  });

  app.get('/export-batches', {
    config: { scope: 'exports:read' },
    schema: { tags, operationId: 'listExportBatches', summary: 'List export batches', querystring: listBatchesQuery, response: { 200: envelopeSchema(batchSchema) } },
    handler: async (request) => batches.list(callerOf(request), request.query),
  });

  app.get('/export-batches/:id', {
    config: { scope: 'exports:read' },
    schema: {
      tags,
      operationId: 'getExportBatch',
      summary: 'One export batch: its exports, counts and, once finished, the ZIP',
      params: idParam,
      response: { 200: batchSchema },
    },
    handler: async (request) => batches.get(callerOf(request), request.params.id),
  });
};
