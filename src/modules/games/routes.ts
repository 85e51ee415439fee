import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { ExportQueue } from '../../jobs/queue.js';
import { cursorEnvelopeSchema } from '../../lib/pagination.js';
import { idParam, organizationQuery } from '../../lib/schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { requestedOrganizationId } from '../organizations/access.js';
import type { ObjectStore } from '../../storage/types.js';
import { createGameBody, gameSchema, listGamesQuery, updateGameBody } from './schemas.js';
import { createGameService } from './service.js';

const tags = ['games'];

export const gameRoutes: FastifyPluginAsyncZod<{ db: Database; store: ObjectStore; queue: ExportQueue }> = async (app, { db, store, queue }) => {
  const games = createGameService(db, store, queue);

  app.get('/games', {
    config: { scope: 'games:read' },
    schema: { tags, operationId: 'listGames', summary: 'List games', querystring: listGamesQuery, response: { 200: cursorEnvelopeSchema(gameSchema) } },
    handler: async (request) => games.list(callerOf(request), request.query),
  });

  app.post('/games', {
    config: { scope: 'games:write' },
    schema: { tags, operationId: 'createGame', summary: 'Create a game', querystring: organizationQuery, body: createGameBody, response: { 201: gameSchema } },
    handler: async (request, reply) =>
      reply.code(201).send(await games.create(callerOf(request), { ...request.body, organizationId: requestedOrganizationId(request) })),
  });

  app.get('/games/:id', {
    config: { scope: 'games:read' },
    schema: { tags, operationId: 'getGame', summary: 'One game', params: idParam, response: { 200: gameSchema } },
    handler: async (request) => games.get(callerOf(request), request.params.id),
  });

  app.patch('/games/:id', {
    config: { scope: 'games:write' },
    schema: {
      tags,
      operationId: 'updateGame',
      summary: 'Rename a game or change its description',
      params: idParam,
      body: updateGameBody,
      response: { 200: gameSchema },
    },
    handler: async (request) => games.update(callerOf(request), request.params.id, request.body),
  });

  app.delete('/games/:id', {
    config: { scope: 'games:write' },
    schema: { tags, operationId: 'deleteGame', summary: 'Delete a game and its variants', params: idParam, response: { 204: z.null() } },
    handler: async (request, reply) => {
      await games.remove(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  });
};
