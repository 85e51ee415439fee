// The rate limits of CONTRACT §7. A route declares its tier — `config: { rateLimitTier:
// 'sensitive' }`, 'export', or false for none (health); the default is 'standard' — and each
// request is counted once, in that tier only, per caller: the API token, the session's user,
// or else the client IP (including requests whose credentials are refused).
// @fastify/rate-limit sets the headers and refuses with 429; the counters are in
// rate-limit-stores.ts (memory, or Redis when REDIS_URL is set).
import rateLimit, { normalizeIP, type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { Config, RateLimitTier } from '../config.js';
import { RateLimitError } from '../errors.js';
import { tierStore, type WindowStrategy } from './rate-limit-stores.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** CONTRACT §7 tier of the route; 'standard' when absent; false: not limited. */
    rateLimitTier?: RateLimitTier | false;
  }
}

const STRATEGY: Record<RateLimitTier, WindowStrategy> = { standard: 'fixed', sensitive: 'sliding', export: 'fixed' };

export interface RateLimitPluginOptions {
  config: Config;
  /** Counters live here when REDIS_URL is set (src/lib/redis.ts), else in memory. */
  redis?: Redis;
  /** The clock of the sliding window (ms since the epoch); tests move it by hand. */
  now?: () => number;
}

function callerKey(request: FastifyRequest): string {
  const caller = request.caller;
  if (caller?.kind === 'token') return `token:${caller.tokenId}`;
  if (caller?.kind === 'session') return `user:${caller.userId}`;
  return `ip:${normalizeIP(request.ip)}`;
}

async function rateLimitPlugin(app: FastifyInstance, { config, redis, now = Date.now }: RateLimitPluginOptions) {
  await app.register(rateLimit, {
    global: false,
    store: tierStore({ redis, now }),
    // Fail open: when Redis cannot answer, requests are served unlimited rather than refused.
    skipOnError: true,
  });

  const limiters = Object.fromEntries(
    Object.entries(config.rateLimit.tiers).map(([tier, { max, windowSeconds }]) => {
      const options: RateLimitOptions & { strategy: WindowStrategy } = {
        max,
        timeWindow: windowSeconds * 1000,
        keyGenerator: (request) => `${tier}:${callerKey(request)}`,
        errorResponseBuilder: (_request, context) =>
          new RateLimitError(`Rate limit exceeded: ${max} requests per ${windowSeconds} s (${tier} tier). Retry in ${Math.ceil(context.ttl / 1000)} s`),
        strategy: STRATEGY[tier as RateLimitTier], // read by the tier store's child() to pick the window
      };
      const limiter = app.rateLimit(options);
      return [tier, (request: FastifyRequest, reply: FastifyReply) => limiter.call(app, request, reply)];
    }),
  ) as Record<RateLimitTier, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>>;

  // Registered before the auth plugin, so it runs first: it resolves the caller (auth
  // memoizes that) to pick the counter; a refused credential is counted against the IP, and
  // the auth hook that follows reports the failure.
  app.addHook('onRequest', async (request, reply) => {
    const tier = request.routeOptions.config.rateLimitTier ?? 'standard';
    if (request.is404 || tier === false) return;
    await app.authenticate(request, reply).catch(() => undefined);
    await limiters[tier](request, reply);
  });
}

export default fp(rateLimitPlugin, { name: 'rate-limit' });
