import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { iso } from '../../lib/schemas.js';
import { sessionOf } from '../../plugins/auth.js';
import { changePasswordBody, loginBody, meResponse, registerBody, registerResponse, sessionResponse } from './schemas.js';
import { createAuthService, toUserDto } from './service.js';

const tags = ['auth'];

export const authRoutes: FastifyPluginAsyncZod<{ db: Database; config: Config }> = async (app, { db, config }) => {
  const auth = createAuthService(db, config);

  app.post('/auth/register', {
    config: { auth: 'public', rateLimitTier: 'sensitive' },
    schema: {
      tags,
      operationId: 'register',
      summary: 'Create an account and its first organization; signs in',
      body: registerBody,
      response: { 201: registerResponse },
    },
    handler: async (request, reply) => {
      const { user, organization, session } = await auth.register(request.body);
      app.issueSessionCookie(reply, { sub: user.id, sid: session.id });
      return reply.code(201).send({
        user: toUserDto(user),
        organization: { id: organization.id, name: organization.name, role: 'owner' as const, createdAt: iso(organization.createdAt) },
      });
    },
  });

  app.post('/auth/login', {
    // A wrong e-mail or password is 401; signing in creates nothing that could conflict.
    config: { auth: 'public', rateLimitTier: 'sensitive', documentedErrors: { add: [401], omit: [409] } },
    schema: {
      tags,
      operationId: 'login',
      summary: 'Sign in with e-mail and password; sets the session cookie',
      description: 'After 10 failed sign-ins for one account within 15 minutes, further ones get 429 with Retry-After, from any address.',
      body: loginBody,
      response: { 200: sessionResponse },
    },
    handler: async (request, reply) => {
      const { user, session } = await auth.login(request.body);
      app.issueSessionCookie(reply, { sub: user.id, sid: session.id });
      return { user: toUserDto(user), expiresAt: iso(session.expiresAt) };
    },
  });

  app.post('/auth/refresh', {
    config: { auth: 'session', rateLimitTier: 'sensitive' },
    schema: { tags, operationId: 'refreshSession', summary: 'Replace the session JWT with a fresh 7-day one', response: { 200: sessionResponse } },
    handler: async (request, reply) => {
      const session = await app.renewSession(reply, sessionOf(request).sessionId);
      return { user: toUserDto(session.user), expiresAt: iso(session.expiresAt) };
    },
  });

  app.post('/auth/logout', {
    config: { auth: 'session' },
    schema: { tags, operationId: 'logout', summary: 'End the session; its JWTs are refused from now on', response: { 204: z.null() } },
    handler: async (request, reply) => {
      const caller = sessionOf(request);
      await auth.logout(caller.sessionId);
      app.clearSessionCookie(reply);
      return reply.code(204).send(null);
    },
  });

  // The standard tier, as CONTRACT §7 lists it: wrong current passwords count towards the
  // account lockout, which bounds guessing.
  app.post('/auth/password', {
    config: { auth: 'session' },
    schema: {
      tags,
      operationId: 'changePassword',
      summary: "Change the password; ends the user's other sessions",
      description: 'A wrong currentPassword is 400 (this session stays valid) and counts towards the account lockout (10 failures in 15 minutes → 429).',
      body: changePasswordBody,
      response: { 204: z.null() },
    },
    handler: async (request, reply) => {
      const caller = sessionOf(request);
      await auth.changePassword(caller.userId, caller.sessionId, request.body);
      return reply.code(204).send(null);
    },
  });

  app.get('/auth/me', {
    config: { auth: 'session' },
    schema: { tags, operationId: 'getMe', summary: 'The signed-in user and their organizations', response: { 200: meResponse } },
    handler: async (request) => {
      const caller = sessionOf(request);
      const user = await auth.me(caller.userId);
      return {
        user: toUserDto(user),
        organizations: user.memberships.map((m) => ({ id: m.organization.id, name: m.organization.name, role: m.role })),
      };
    },
  });
};
