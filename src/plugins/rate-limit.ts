// The rate limits of CONTRACT §7. A route declares its tier — `config: { rateLimitTier:
// 'sensitive' }`, 'export', or false for none (health); the default is 'standard' — and each
// request is counted once, in that tier only, per caller: the API token, the session's user,
// or else the client IP (including requests whose credentials are refused). The counters are
// @fastify/rate-limit's stores and ours (rate-limit-stores.ts: memory, or Redis when REDIS_URL
// is set). src/plugins/access.ts calls `countRequest` from the /api routes' one onRequest hook.
//
// Why not @fastify/rate-limit's own hook: it is an async function with four awaits per request
// (key, store callback, …), which cost more than the count itself; counting straight into the
// store is synchronous for the memory stores (README "Benchmarks"). The headers and the 429
// are the same as the plugin's: X-RateLimit-Limit, -Remaining, -Reset, and Retry-After.
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { Config, RateLimitTier } from '../config.js';
import { RateLimitError } from '../errors.js';
import { type CounterStore, createTierStore, type WindowStrategy } from './rate-limit-stores.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** CONTRACT §7 tier of the route; 'standard' when absent; false: not limited. */
    rateLimitTier?: RateLimitTier | false;
  }
  interface FastifyInstance {
    /**
     * Counts the request in `tier` against its caller (request.caller, else the client IP), sets
     * the X-RateLimit-* headers, and calls back with a RateLimitError once the tier's budget is
     * spent. Synchronous with the memory stores. When the store fails, the request passes uncounted.
     */
    countRequest(request: FastifyRequest, reply: FastifyReply, tier: RateLimitTier, done: (error?: RateLimitError) => void): void;
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
  // A client that hung up while its credential was looked up has no address any more.
  return `ip:${request.ip ? normalizeIP(request.ip) : 'unknown'}`;
}

interface Tier {
  name: RateLimitTier;
  max: number;
  windowMs: number;
  windowSeconds: number;
  store: CounterStore;
}

async function rateLimitPlugin(app: FastifyInstance, { config, redis, now = Date.now }: RateLimitPluginOptions) {
  const tiers = Object.fromEntries(
    Object.entries(config.rateLimit.tiers).map(([name, { max, windowSeconds }]) => {
      const store = createTierStore(STRATEGY[name as RateLimitTier], { redis, now });
      return [name, { name, max, windowMs: windowSeconds * 1000, windowSeconds, store }];
    }),
  ) as Record<RateLimitTier, Tier>;

  app.decorate('countRequest', (request: FastifyRequest, reply: FastifyReply, tierName: RateLimitTier, done: (error?: RateLimitError) => void) => {
    const tier = tiers[tierName];
    let answered = false;
    const counted = (error: Error | null, result?: { current: number; ttl: number }) => {
      if (answered) return;
      answered = true;
      // Fail open: when the store cannot count (Redis down), the request is served uncounted,
      // the full budget shown.
      if (error) app.log.debug({ err: error }, 'rate limit not counted');
      const tally = error ? undefined : result;
      const current = tally?.current ?? 0;
      const resetSeconds = tally ? Math.ceil(tally.ttl / 1000) : 0;
      reply.header('x-ratelimit-limit', tier.max);
      reply.header('x-ratelimit-remaining', Math.max(0, tier.max - current));
      reply.header('x-ratelimit-reset', resetSeconds);
      if (current <= tier.max) return done();
      done(new RateLimitError(`Rate limit exceeded: ${tier.max} requests per ${tier.windowSeconds} s (${tier.name} tier). Retry in ${resetSeconds} s`, resetSeconds));
    };
    // Never throws: this runs in a promise callback too (access.ts), where a throw would go unhandled.
    try {
      tier.store.incr(`${tier.name}:${callerKey(request)}`, counted, tier.windowMs, tier.max);
    } catch (error) {
      counted(error as Error);
    }
  });
}

export default fp(rateLimitPlugin, { name: 'rate-limit' });
