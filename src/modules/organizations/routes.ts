import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { envelopeSchema } from '../../lib/pagination.js';
import { idParam } from '../../lib/schemas.js';
import { callerOf, sessionOf } from '../../plugins/auth.js';
import {
  addMemberBody,
  changeMemberBody,
  createOrganizationBody,
  listMembersQuery,
  listOrganizationsQuery,
  memberParams,
  memberSchema,
  organizationSchema,
  organizationWithUsageSchema,
} from './schemas.js';
import { createOrganizationService } from './service.js';

const tags = ['organizations'];

export const organizationRoutes: FastifyPluginAsyncZod<{ db: Database; storageQuotaBytes: number }> = async (app, { db, storageQuotaBytes }) => {
  const organizations = createOrganizationService(db, storageQuotaBytes);

  app.post('/organizations', {
    config: { auth: 'session' },
    schema: {
      tags,
      operationId: 'createOrganization',
      summary: 'Create an organization; the caller becomes its owner',
      body: createOrganizationBody,
      response: { 201: organizationSchema },
    },
    handler: async (request, reply) => reply.code(201).send(await organizations.create(sessionOf(request), request.body.name)),
  });

  app.get('/organizations', {
    schema: {
      tags,
      operationId: 'listOrganizations',
      summary: "The caller's organizations (an API token sees its own)",
      querystring: listOrganizationsQuery,
      response: { 200: envelopeSchema(organizationSchema) },
    },
    handler: async (request) => organizations.list(callerOf(request), request.query),
  });

  app.get('/organizations/:id', {
    schema: {
      tags,
      operationId: 'getOrganization',
      summary: 'One organization, with its storage usage',
      params: idParam,
      response: { 200: organizationWithUsageSchema },
    },
    handler: async (request) => organizations.get(callerOf(request), request.params.id),
  });

  app.get('/organizations/:id/members', {
    config: { auth: 'session' },
    schema: {
      tags,
      operationId: 'listMembers',
      summary: 'Members of an organization (owner or admin)',
      params: idParam,
      querystring: listMembersQuery,
      response: { 200: envelopeSchema(memberSchema) },
    },
    handler: async (request) => organizations.listMembers(sessionOf(request), request.params.id, request.query),
  });

  app.post('/organizations/:id/members', {
    config: { auth: 'session', rateLimitTier: 'sensitive' },
    schema: {
      tags,
      operationId: 'addMember',
      summary: 'Add an existing user to an organization (owner or admin)',
      params: idParam,
      body: addMemberBody,
      response: { 201: memberSchema },
    },
    handler: async (request, reply) => reply.code(201).send(await organizations.addMember(sessionOf(request), request.params.id, request.body)),
  });

  app.patch('/organizations/:id/members/:userId', {
    config: { auth: 'session' },
    schema: {
      tags,
      operationId: 'changeMemberRole',
      summary: "Change a member's role (owner or admin; only an owner makes or unmakes owners); never the last owner's",
      description: 'A demotion to member revokes the API tokens the member created in the organization (they act for an owner or admin).',
      params: memberParams,
      body: changeMemberBody,
      response: { 200: memberSchema },
    },
    handler: async (request) => {
      const { member, revokedTokenIds } = await organizations.changeMemberRole(sessionOf(request), request.params.id, request.params.userId, request.body.role);
      await app.forgetApiTokens(revokedTokenIds);
      return member;
    },
  });

  app.delete('/organizations/:id/members/:userId', {
    config: { auth: 'session' },
    schema: {
      tags,
      operationId: 'removeMember',
      summary: 'Remove a member (owner or admin; anyone may leave); never the last owner. Revokes the API tokens the member created there',
      params: memberParams,
      response: { 204: z.null() },
    },
    handler: async (request, reply) => {
      await app.forgetApiTokens(await organizations.removeMember(sessionOf(request), request.params.id, request.params.userId));
      return reply.code(204).send(null);
    },
  });
};
