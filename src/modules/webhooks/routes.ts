import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelopeSchema } from '../../lib/pagination.js';
import { idParam, organizationQuery } from '../../lib/schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { requestedOrganizationId } from '../organizations/access.js';
import {
  createWebhookBody,
  createWebhookDescription,
  deliverySchema,
  listDeliveriesQuery,
  listWebhooksQuery,
  webhookCreatedSchema,
  webhookSchema,
} from './schemas.js';
import { createWebhookService, type WebhookServiceDeps } from './service.js';

const tags = ['webhooks'];

export const webhookRoutes: FastifyPluginAsyncZod<WebhookServiceDeps> = async (app, options) => {
  const webhooks = createWebhookService(options);

  app.post('/webhooks', {
    config: { scope: 'webhooks:write' },
    schema: {
      tags,
      operationId: 'createWebhook',
      summary: 'Subscribe a URL to export events',
      description: createWebhookDescription,
      querystring: organizationQuery,
      body: createWebhookBody,
      response: { 201: webhookCreatedSchema },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await webhooks.create(callerOf(request), { ...request.body, organizationId: requestedOrganizationId(request) })),
  });

  app.get('/webhooks', {
    config: { scope: 'webhooks:read' },
    schema: {
      tags,
      operationId: 'listWebhooks',
      summary: 'List webhooks (never their secrets)',
      querystring: listWebhooksQuery,
      response: { 200: envelopeSchema(webhookSchema) },
    },
    handler: async (request) => webhooks.list(callerOf(request), request.query),
  });

  app.delete('/webhooks/:id', {
    config: { scope: 'webhooks:write' },
    schema: { tags, operationId: 'deleteWebhook', summary: 'Delete a webhook and its delivery log', params: idParam, response: { 204: z.null() } },
    handler: async (request, reply) => {
      await webhooks.remove(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  });

  app.get('/webhooks/:id/deliveries', {
    config: { scope: 'webhooks:read' },
    schema: {
      tags,
      operationId: 'listWebhookDeliveries',
      summary: "A webhook's delivery log: one entry per event, with its attempts",
      params: idParam,
      querystring: listDeliveriesQuery,
      response: { 200: envelopeSchema(deliverySchema) },
    },
    handler: async (request) => webhooks.deliveries(callerOf(request), request.params.id, request.query),
  });
};
