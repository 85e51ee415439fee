// GET /auth/oidc/login and /auth/oidc/callback (CONTRACT §3). Registered only when OpenID
// Connect is configured; otherwise both are 404. Between the two redirects, state, nonce and
// the PKCE verifier wait in a short-lived, signed, HTTP-only cookie scoped to these paths, so
// any instance can finish a sign-in another one started and no table fills with abandoned ones.
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config, OidcConfig } from '../../config.js';
import type { Database } from '../../db/client.js';
import { AuthenticationError } from '../../errors.js';
import { cookieOf } from '../../plugins/auth.js';
import { type LoginAttempt, createOidcService } from './service.js';

const tags = ['auth'];
const ATTEMPT_COOKIE = 'oidc_login';
const ATTEMPT_TTL_SECONDS = 10 * 60;

/**
 * What the provider sends back (RFC 6749 §4.1.2, RFC 9207's `iss`); others pass through. The
 * handler hands the raw query to openid-client, which checks it; declared here so the query is
 * documented and checked for NUL characters like every query the service reads.
 */
const callbackQuery = z.looseObject({
  code: z.string().optional(),
  state: z.string().optional(),
  iss: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

export const oidcRoutes: FastifyPluginAsyncZod<{ db: Database; config: Config; oidc: OidcConfig }> = async (app, { db, config, oidc }) => {
  const service = createOidcService(db, config, oidc, app.log);
  const attemptCookie = {
    path: '/api/auth/oidc',
    httpOnly: true,
    sameSite: 'lax' as const, // sent on the provider's top-level redirect back to us
    secure: config.auth.cookieSecure,
    signed: true,
  };
  const routeConfig = { auth: 'public', rateLimitTier: 'sensitive' } as const;

  app.get('/auth/oidc/login', {
    config: routeConfig,
    schema: {
      tags,
      operationId: 'startOidcLogin',
      summary: 'Sign in with the identity provider: redirects (302) the browser there',
      description: 'Only when OpenID Connect is configured (404 otherwise).',
    },
    handler: async (_request, reply) => {
      const { url, attempt } = await service.startLogin();
      const value = JSON.stringify({ ...attempt, expiresAt: Date.now() + ATTEMPT_TTL_SECONDS * 1000 });
      reply.setCookie(ATTEMPT_COOKIE, value, { ...attemptCookie, maxAge: ATTEMPT_TTL_SECONDS });
      return reply.redirect(url, 302);
    },
  });

  app.get('/auth/oidc/callback', {
    config: routeConfig,
    schema: {
      tags,
      operationId: 'finishOidcLogin',
      querystring: callbackQuery,
      summary: "The identity provider's redirect back: signs in and redirects (302) to the web app",
      description:
        'Finds the user by the provider identity or verified e-mail (linking it to an existing account), or creates one; sets the session cookie. 401 when the answer does not verify (state, nonce, PKCE, unverified e-mail).',
    },
    handler: async (request, reply) => {
      const attempt = readAttempt(request.unsignCookie(cookieOf(request, ATTEMPT_COOKIE) ?? ''), reply);
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const { user, session } = await service.finishLogin(query, attempt);
      app.issueSessionCookie(reply, { sub: user.id, sid: session.id });
      return reply.redirect(oidc.postLoginRedirectUrl, 302);
    },
  });

  /** The attempt this browser started, used once: the cookie is cleared whatever the outcome. */
  function readAttempt(cookie: { valid: boolean; value: string | null }, reply: FastifyReply): LoginAttempt {
    reply.clearCookie(ATTEMPT_COOKIE, { path: attemptCookie.path });
    const attempt = cookie.valid && cookie.value ? parseAttempt(cookie.value) : null;
    if (!attempt || attempt.expiresAt < Date.now()) {
      throw new AuthenticationError('No sign-in in progress in this browser, or it expired; start again at /api/auth/oidc/login');
    }
    return attempt;
  }
};

function parseAttempt(value: string): (LoginAttempt & { expiresAt: number }) | null {
  try {
    const parsed = JSON.parse(value);
    const fields = [parsed.state, parsed.nonce, parsed.codeVerifier];
    return fields.every((f) => typeof f === 'string') && typeof parsed.expiresAt === 'number' ? parsed : null;
  } catch {
    return null;
  }
}
