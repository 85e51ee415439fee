import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { ExportQueue } from '../../jobs/queue.js';
import { envelopeSchema } from '../../lib/pagination.js';
import { idParam } from '../../lib/schemas.js';
import { callerOf } from '../../plugins/auth.js';
import type { ObjectStore } from '../../storage/types.js';
import { createVariantBody, listVariantsQuery, updateVariantBody, variantSchema } from './schemas.js';
import { createVariantService } from './service.js';

const tags = ['variants'];

export const variantRoutes: FastifyPluginAsyncZod<{ db: Database; store: ObjectStore; queue: ExportQueue }> = async (app, { db, store, queue }) => {
  const variants = createVariantService(db, store, queue);

  app.post('/games/:id/variants', {
    config: { scope: 'games:write' },
    schema: { tags, operationId: 'createVariant', summary: 'Create a variant of a game', params: idParam, body: createVariantBody, response: { 201: variantSchema } },
    handler: async (request, reply) => reply.code(201).send(await variants.create(callerOf(request), request.params.id, request.body)),
  });

  app.get('/games/:id/variants', {
    config: { scope: 'games:read' },
    schema: {
      tags,
      operationId: 'listVariants',
      summary: "List a game's variants",
      params: idParam,
      querystring: listVariantsQuery,
      response: { 200: envelopeSchema(variantSchema) },
    },
    handler: async (request) => variants.list(callerOf(request), request.params.id, request.query),
  });

  app.get('/variants/:id', {
    config: { scope: 'games:read' },
    schema: { tags, operationId: 'getVariant', summary: 'One variant', params: idParam, response: { 200: variantSchema } },
    handler: async (request) => variants.get(callerOf(request), request.params.id),
  });

  app.patch('/variants/:id', {
    config: { scope: 'games:write' },
    schema: { tags, operationId: 'updateVariant', summary: 'Change a variant', params: idParam, body: updateVariantBody, response: { 200: variantSchema } },
    handler: async (request) => variants.update(callerOf(request), request.params.id, request.body),
  });

  app.delete('/variants/:id', {
    config: { scope: 'games:write' },
    schema: { tags, operationId: 'deleteVariant', summary: 'Delete a variant and its exports', params: idParam, response: { 204: z.null() } },
    handler: async (request, reply) => {
      await variants.remove(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  });
};
