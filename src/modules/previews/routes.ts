import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelopeSchema } from '../../lib/pagination.js';
import { idParam } from '../../lib/schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { createPreviewBody, createPreviewDescription, listPreviewsQuery, previewSchema } from './schemas.js';
import type { PreviewService } from './service.js';

const tags = ['previews'];

export const previewRoutes: FastifyPluginAsyncZod<{ previews: PreviewService }> = async (app, { previews }) => {
  app.post('/exports/:id/previews', {
    config: { scope: 'exports:write' },
    schema: {
      tags,
      operationId: 'createPreview',
      summary: 'Make a shareable preview link of a succeeded export',
      description: createPreviewDescription,
      params: idParam,
      body: createPreviewBody,
      response: { 201: previewSchema },
    },
    handler: async (request, reply) => reply.code(201).send(await previews.create(callerOf(request), request.params.id, request.body)),
  });

  app.get('/exports/:id/previews', {
    config: { scope: 'exports:read' },
    schema: {
      tags,
      operationId: 'listPreviews',
      summary: "An export's preview links, revoked and expired ones included",
      params: idParam,
      querystring: listPreviewsQuery,
      response: { 200: envelopeSchema(previewSchema) },
    },
    handler: async (request) => previews.list(callerOf(request), request.params.id, request.query),
  });

  app.delete('/previews/:id', {
    config: { scope: 'exports:write' },
    schema: { tags, operationId: 'revokePreview', summary: 'Revoke a preview link: it answers 403 from now on', params: idParam, response: { 204: z.null() } },
    handler: async (request, reply) => {
      await previews.revoke(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  });
};
