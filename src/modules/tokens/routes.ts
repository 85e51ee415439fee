import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { envelopeSchema } from '../../lib/pagination.js';
import { idParam, organizationQuery } from '../../lib/schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { requestedOrganizationId } from '../organizations/access.js';
import { createdTokenSchema, createTokenBody, listedTokenSchema, listTokensQuery } from './schemas.js';
import { createTokenService } from './service.js';

const tags = ['tokens'];

export const tokenRoutes: FastifyPluginAsyncZod<{ db: Database }> = async (app, { db }) => {
  const tokens = createTokenService(db);

  app.post('/tokens', {
    config: { scope: 'tokens:write', rateLimitTier: 'sensitive' },
    schema: {
      tags,
      operationId: 'createToken',
      summary: 'Create an API token (the secret is returned only here)',
      description:
        'A session user must be owner or admin of the organization. An API token can only grant scopes it holds; the token it creates acts for the same user and expires no later than it.',
      querystring: organizationQuery,
      body: createTokenBody,
      response: { 201: createdTokenSchema },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await tokens.create(callerOf(request), { ...request.body, organizationId: requestedOrganizationId(request) })),
  });

  app.get('/tokens', {
    config: { scope: 'tokens:read' },
    schema: {
      tags,
      operationId: 'listTokens',
      summary: 'List API tokens (never their secrets)',
      querystring: listTokensQuery,
      response: { 200: envelopeSchema(listedTokenSchema) },
    },
    handler: async (request) => tokens.list(callerOf(request), request.query),
  });

  app.delete('/tokens/:id', {
    config: { scope: 'tokens:write', scopeWaivedForOwnToken: true, rateLimitTier: 'sensitive' },
    schema: {
      tags,
      operationId: 'revokeToken',
      summary: 'Revoke an API token and every token created from it',
      description:
        'An owner or admin session may revoke any token of the organization; an API token only itself (whatever its scopes) and the tokens created from it (scope tokens:write). Anything else is 404.',
      params: idParam,
      response: { 204: z.null() },
    },
    handler: async (request, reply) => {
      await app.forgetApiTokens(await tokens.revoke(callerOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  });
};
