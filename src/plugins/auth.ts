// Who is calling: resolves `Authorization: Bearer <token>` (an API token `pcs_…` or a session
// JWT) or the `session` cookie into request.caller, for every /api route that is not declared
// `config: { auth: 'public' }`. Routes declare what they need; handlers never re-check it.
import jwt from '@fastify/jwt';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { AuthenticationError, ForbiddenError } from '../errors.js';
import type { Role, Session, User } from '../generated/prisma/client.js';
import { isUuid } from '../lib/uuid.js';
import { MANAGER_ROLES } from '../modules/organizations/access.js';
import { hashTokenSecret, TOKEN_PREFIX } from '../modules/tokens/secret.js';
import { isHttps } from './https.js';
import { type ApiTokenGrant, findApiTokenGrant, recordApiTokenUse } from '../modules/tokens/service.js';
import type { Scope } from './scopes.js';
import { ApiTokenCache } from './token-cache.js';
import { listenForRevocations } from './token-revocations.js';

export type SessionCaller = { kind: 'session'; userId: string; sessionId: string; roles: Map<string, Role> };
export type TokenCaller = {
  kind: 'token';
  tokenId: string;
  organizationId: string;
  scopes: string[];
  /** The user the token acts for: its creator (for a token made by a token, the parent's). */
  createdById: string;
};
export type Caller = SessionCaller | TokenCaller;

/** The authenticated caller of a route that is not public. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new AuthenticationError();
  return request.caller;
}

/** The credential of an `Authorization: Bearer <credential>` header (the scheme in any case, RFC 9110), or null. */
export function bearerCredential(header: string): string | null {
  return /^Bearer[ ]+(\S+)\s*$/i.exec(header)?.[1] ?? null;
}

/** The value of a cookie of the request. Cookies are parsed only when read: most API calls carry none. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header ? request.server.parseCookie(header)[name] : undefined;
}

/** The session of a route declared `auth: 'session'`. */
export function sessionOf(request: FastifyRequest): SessionCaller {
  const caller = callerOf(request);
  if (caller.kind !== 'session') throw new ForbiddenError('Insufficient permissions. This endpoint needs a browser session');
  return caller;
}

export interface SessionClaims {
  sub: string;
  sid: string;
  iat?: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'public': no credentials needed; 'session': browser sessions only; default: any caller. */
    auth?: 'public' | 'session';
    scope?: Scope;
    /** The scope is waived for an API token whose own id is the `id` path parameter (it may revoke itself). */
    scopeWaivedForOwnToken?: boolean;
  }
  interface FastifyRequest {
    caller: Caller | null;
  }
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: SessionClaims;
    user: SessionClaims;
  }
}

const SESSION_COOKIE = 'session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** lastUsedAt is precise to this much, which spares a write on most requests. */
const LAST_USED_PRECISION_MS = 60_000;

export interface SessionCookieOptions {
  path: string;
  httpOnly: true;
  sameSite: 'lax';
  secure: boolean;
  maxAge: number;
}

async function authPlugin(app: FastifyInstance, opts: { config: Config; db: Database }) {
  const { config, db } = opts;
  const cookieOptions: SessionCookieOptions = {
    path: '/api',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.auth.cookieSecure,
    maxAge: config.auth.sessionTtlSeconds,
  };
  const allowedOrigins = new Set([new URL(config.publicUrl).origin, ...config.auth.webAppOrigins]);

  await app.register(jwt, {
    secret: config.auth.jwtSecret,
    sign: { algorithm: 'HS256', expiresIn: config.auth.sessionTtlSeconds },
    verify: { algorithms: ['HS256'] },
  });
  app.decorateRequest('caller', null);
  const tokenCache = new ApiTokenCache(config.auth.apiTokenCacheSeconds * 1000);
  if (config.auth.apiTokenCacheSeconds > 0) {
    const revocations = listenForRevocations(
      db.pool,
      { onRevoked: (tokenId) => tokenCache.forget(tokenId), onPaused: () => tokenCache.pause(), onListening: () => tokenCache.resume() },
      app.log,
    );
    app.addHook('onClose', () => revocations.close());
    app.decorate('forgetApiTokens', async (tokenIds: string[]) => {
      for (const tokenId of tokenIds) tokenCache.forget(tokenId);
      // The revocation is committed: another instance that misses a message drops the token
      // within API_TOKEN_CACHE_SECONDS anyway.
      await Promise.all(
        tokenIds.map((tokenId) => revocations.publish(tokenId).catch((error) => app.log.warn({ err: error, tokenId }, 'token revocation not broadcast'))),
      );
    });
  } else {
    // Nothing is cached, so nothing needs forgetting.
    app.decorate('forgetApiTokens', async () => {});
  }

  // `Secure` when the service is configured for HTTPS or this request came over it.
  const cookieOptionsFor = (reply: FastifyReply): SessionCookieOptions => ({
    ...cookieOptions,
    secure: cookieOptions.secure || isHttps(reply.request),
  });

  /** Issues a session JWT for the session row and puts it in the cookie. */
  app.decorate('issueSessionCookie', (reply: FastifyReply, claims: SessionClaims) => {
    const token = app.jwt.sign({ sub: claims.sub, sid: claims.sid });
    reply.setCookie(SESSION_COOKIE, token, cookieOptionsFor(reply));
    return token;
  });

  /** Moves the session's end 7 days ahead and issues a fresh JWT for it in the cookie. */
  app.decorate('renewSession', async (reply: FastifyReply, sessionId: string) => {
    const session = await db.session.update({
      where: { id: sessionId },
      data: { expiresAt: new Date(Date.now() + config.auth.sessionTtlSeconds * 1000) },
      include: { user: true },
    });
    app.issueSessionCookie(reply, { sub: session.userId, sid: session.id });
    return session;
  });

  /** Tells the browser to drop the cookie (same attributes, so it matches the one it has). */
  app.decorate('clearSessionCookie', (reply: FastifyReply) => {
    const { maxAge: _maxAge, ...attributes } = cookieOptionsFor(reply);
    reply.clearCookie(SESSION_COOKIE, attributes);
  });

  /** The caller of an API token; synchronous when the token is cached and its lastUsedAt is fresh. */
  function fromApiToken(secret: string): Caller | Promise<Caller> {
    const hash = hashTokenSecret(secret);
    const cached = tokenCache.get(hash);
    if (cached) return tokenCaller(cached);
    return findApiTokenGrant(db, hash).then((token) => {
      if (token) tokenCache.set(hash, token);
      return tokenCaller(token);
    });
  }

  function tokenCaller(token: ApiTokenGrant | null): Caller | Promise<Caller> {
    const now = new Date();
    if (!token || token.revokedAt || (token.expiresAt && token.expiresAt <= now)) {
      throw new AuthenticationError('Invalid, expired or revoked API token');
    }
    // A token acts for its creator, so it is worth no more than the creator's role (CONTRACT §8).
    if (!token.createdById || !token.creatorRole || !MANAGER_ROLES.includes(token.creatorRole)) {
      throw new AuthenticationError('The creator of this API token is no longer an owner or admin of its organization');
    }
    const caller: TokenCaller = {
      kind: 'token',
      tokenId: token.id,
      organizationId: token.organizationId,
      scopes: token.scopes,
      createdById: token.createdById,
    };
    if (token.lastUsedAt && now.getTime() - token.lastUsedAt.getTime() <= LAST_USED_PRECISION_MS) return caller;
    return recordApiTokenUse(db, token.id, now).then(() => {
      token.lastUsedAt = now; // the cached row too, so the next write is a minute away
      return caller;
    });
  }

  async function fromSessionJwt(token: string, reply: FastifyReply): Promise<Caller> {
    let claims: SessionClaims;
    try {
      claims = app.jwt.verify<SessionClaims>(token);
    } catch {
      throw new AuthenticationError('Invalid or expired session');
    }
    if (typeof claims.sid !== 'string' || !isUuid(claims.sid)) throw new AuthenticationError('Invalid session');
    const session = await db.session.findUnique({
      where: { id: claims.sid },
      include: { user: { select: { memberships: { select: { organizationId: true, role: true } } } } },
    });
    const now = Date.now();
    if (!session || session.userId !== claims.sub || session.revokedAt || session.expiresAt.getTime() <= now) {
      throw new AuthenticationError('Session has ended; sign in again');
    }
    // Rolling refresh: a JWT older than a day is swapped for a fresh 7-day one.
    if (claims.iat !== undefined && now / 1000 - claims.iat > config.auth.refreshAfterSeconds) {
      await app.renewSession(reply, session.id);
    }
    return {
      kind: 'session',
      userId: session.userId,
      sessionId: session.id,
      roles: new Map(session.user.memberships.map((m) => [m.organizationId, m.role])),
    };
  }

  /** The caller of the request's credentials: the bearer token or JWT, else the session cookie. */
  function callerFrom(request: FastifyRequest, reply: FastifyReply): Caller | Promise<Caller> {
    const header = request.headers.authorization;
    let credential: string | undefined;
    if (header !== undefined) {
      const bearer = bearerCredential(header);
      if (!bearer) throw new AuthenticationError('Authorization header must be "Bearer <token>"');
      credential = bearer;
    } else {
      credential = cookieOf(request, SESSION_COOKIE);
      // The cookie is the browser's session (CONTRACT §3); API tokens go in the header only.
      if (credential?.startsWith(TOKEN_PREFIX))
        throw new AuthenticationError('The session cookie holds a session; send an API token as Authorization: Bearer <token>');
    }
    if (!credential) throw new AuthenticationError('Authentication required: send Authorization: Bearer <token>');
    return credential.startsWith(TOKEN_PREFIX) ? fromApiToken(credential) : fromSessionJwt(credential, reply);
  }

  /** Sets request.caller (so the rate limit counts the caller), then refuses what it may not do on this route. */
  function admit(request: FastifyRequest, caller: Caller, auth: FastifyContextConfig['auth']): void {
    request.caller = caller;
    // A cookie is sent by the browser on its own; refuse writes started by another site's page.
    const origin = request.headers.origin;
    const viaCookie = request.headers.authorization === undefined;
    if (viaCookie && !SAFE_METHODS.has(request.method) && origin && !allowedOrigins.has(origin)) {
      throw new ForbiddenError(`Cross-origin request from ${origin} refused`);
    }
    if (auth === 'session') sessionOf(request);
  }

  // Called by the /api routes' one onRequest hook (src/plugins/access.ts), before the rate limit.
  app.decorate('identifyCaller', (request: FastifyRequest, reply: FastifyReply, auth: FastifyContextConfig['auth']) => {
    if (auth === 'public') return;
    const caller = callerFrom(request, reply);
    if (caller instanceof Promise) return caller.then((resolved) => admit(request, resolved, auth));
    admit(request, caller, auth);
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    issueSessionCookie(reply: FastifyReply, claims: SessionClaims): string;
    renewSession(reply: FastifyReply, sessionId: string): Promise<Session & { user: User }>;
    /**
     * Call after revoking tokens, or changing their creator's role (the rows committed): every
     * instance drops them from its cache, so their next use anywhere is checked afresh. Resolves
     * once the messages are sent; never throws.
     */
    forgetApiTokens(tokenIds: string[]): Promise<void>;
    /**
     * Sets request.caller from the request's credentials, unless the route is public; throws (or
     * rejects with) the refusal. Synchronous when an API token is in the cache and its lastUsedAt
     * needs no write: most requests of a script.
     */
    identifyCaller(request: FastifyRequest, reply: FastifyReply, auth: FastifyContextConfig['auth']): void | Promise<void>;
    clearSessionCookie(reply: FastifyReply): void;
  }
}

// @fastify/cookie (registered in src/app.ts without its parsing hook) parses and signs cookies.
export default fp(authPlugin, { name: 'auth', dependencies: ['@fastify/cookie'] });
