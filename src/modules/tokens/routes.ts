import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { envelopeSchema } from '../../lib/pagination.js';
import { idParam } from '../../lib/schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { createdTokenSchema, createTokenBody, listTokensQuery, tokenSchema } from './schemas.js';
import { createTokenService } from './service.js';

const tags = ['tokens'];

export const tokenRoutes: FastifyPluginAsyncZod<{ db: Database }> = async (app, { db }) => {
  const tokens = createTokenService(db);

  app.post('/tokens', {
    config: { scope: 'tokens:write', rateLimitTier: 'sensitive' },
    schema: {
      tags,
      summary: 'Create an API token (the secret is returned only here)',
      description: 'A session user must be owner or admin of the organization. An API token can only grant scopes it holds.',
      body: createTokenBody,
      response: { 201: createdTokenSchema },
    },
    handler: async (request, reply) => reply.code(201).send(await tokens.create(callerOf(request), request.body)),
  });

  app.get('/tokens', {
    config: { scope: 'tokens:read' },
    schema: { tags, summary: 'List API tokens (never their secrets)', querystring: listTokensQuery, response: { 200: envelopeSchema(tokenSchema) } },
    handler: async (request) => tokens.list(callerOf(request), request.query),
  });

  app.delete('/tokens/:id', {
    config: { scope: 'tokens:write', rateLimitTier: 'sensitive' },
    schema: { tags, summary: 'Revoke an API token', params: idParam, response: { 204: z.null() } },
    handler: async (request, reply) => {
      await tokens.revoke(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  });
};
