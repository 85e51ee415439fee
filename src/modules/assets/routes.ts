import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { envelopeSchema } from '../../lib/pagination.js';
import { idParam, organizationQuery } from '../../lib/schemas.js';
import { callerOf } from '../../plugins/auth.js';
import { requestedOrganizationId } from '../organizations/access.js';
import type { ObjectStore } from '../../storage/types.js';
import { assetSchema, assetWithDownloadSchema, createUploadBody, listAssetsQuery, uploadUrlSchema } from './schemas.js';
import { createAssetService } from './service.js';

const tags = ['assets'];

export const assetRoutes: FastifyPluginAsyncZod<{ db: Database; store: ObjectStore; config: Config }> = async (app, { db, store, config }) => {
  const assets = createAssetService(db, store, config.storage);

  app.post('/storage/urls', {
    config: { scope: 'assets:write' },
    schema: {
      tags,
      operationId: 'createUploadUrl',
      summary: 'Step 1 of an upload: a pending asset and a pre-signed URL to PUT its bytes to',
      querystring: organizationQuery,
      body: createUploadBody(config.storage.maxUploadBytes),
      response: { 201: uploadUrlSchema },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await assets.createUpload(callerOf(request), { ...request.body, organizationId: requestedOrganizationId(request) })),
  });

  app.post('/assets/:id/complete', {
    config: { scope: 'assets:write' },
    schema: {
      tags,
      operationId: 'completeAsset',
      summary: 'Step 2 of an upload: confirm the object is stored (409 while it is not); the asset becomes ready',
      params: idParam,
      response: { 200: assetWithDownloadSchema },
    },
    handler: async (request) => assets.complete(callerOf(request), request.params.id),
  });

  app.get('/assets', {
    config: { scope: 'assets:read' },
    schema: { tags, operationId: 'listAssets', summary: 'List assets', querystring: listAssetsQuery, response: { 200: envelopeSchema(assetSchema) } },
    handler: async (request) => assets.list(callerOf(request), request.query),
  });

  app.get('/assets/:id', {
    config: { scope: 'assets:read' },
    schema: {
      tags,
      operationId: 'getAsset',
      summary: 'One asset; a ready one comes with a short-lived downloadUrl',
      params: idParam,
      response: { 200: assetWithDownloadSchema },
    },
    handler: async (request) => assets.get(callerOf(request), request.params.id),
  });

  app.delete('/assets/:id', {
    config: { scope: 'assets:write' },
    schema: { tags, operationId: 'deleteAsset', summary: 'Delete an asset and its stored object', params: idParam, response: { 204: z.null() } },
    handler: async (request, reply) => {
      await assets.remove(callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  });
};
