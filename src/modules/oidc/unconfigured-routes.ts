// Without OpenID Connect configured its endpoints are 404 (CONTRACT §3), yet still in the
// sensitive tier (§7 lists `/auth/oidc/*`): probing a sign-in that is not there costs what a real
// one would. Kept apart from routes.ts, which loads openid-client.
import type { FastifyPluginAsync } from 'fastify';
import { NotFoundError } from '../../errors.js';

export const unconfiguredOidcRoutes: FastifyPluginAsync = async (app) => {
  app.get('/auth/oidc/*', { config: { auth: 'public', rateLimitTier: 'sensitive' }, schema: { hide: true } }, async () => {
    throw new NotFoundError('Sign-in with OpenID Connect (not configured)');
  });
};
