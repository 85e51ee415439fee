// Counters behind the rate limits of CONTRACT §7, as stores of @fastify/rate-limit's interface.
// Fixed windows are that package's own stores (memory LRU or a Redis INCR+PEXPIRE script); the
// sliding window is ours: a sliding-window *log* of the requests accepted in the last window,
// in memory or as a Redis sorted set updated by one Lua script (atomic, so instances sharing a
// Redis share the budget exactly). A refused request is not logged: a client that keeps
// knocking still gets a slot when its oldest request leaves the window.
import { randomUUID } from 'node:crypto';
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';
import type { Redis } from 'ioredis';

export type WindowStrategy = 'fixed' | 'sliding';
type IncrCallback = Parameters<FastifyRateLimitStore['incr']>[1];
/** What a tier needs of a store: count one request of a key. */
export type CounterStore = Pick<FastifyRateLimitStore, 'incr'>;

/** Distinct callers kept per tier in memory; the least recently seen are forgotten first. */
const MEMORY_CAPACITY = 50_000;
const REDIS_KEY_PREFIX = 'pcs:ratelimit:';

class MemorySlidingWindowStore implements CounterStore {
  private readonly logs = new Map<string, number[]>();

  constructor(private readonly now: () => number) {}

  incr(key: string, done: IncrCallback, windowMs: number, max: number): void {
    const now = this.now();
    const log = (this.logs.get(key) ?? []).filter((at) => at > now - windowMs);
    const accepted = log.length < max;
    if (accepted) log.push(now);
    // Re-inserting keeps the Map in least-recently-used order, so the first key is the one to drop.
    this.logs.delete(key);
    this.logs.set(key, log);
    if (this.logs.size > MEMORY_CAPACITY) this.logs.delete(this.logs.keys().next().value!);
    done(null, { current: accepted ? log.length : max + 1, ttl: (log[0] ?? now) + windowMs - now });
  }
}

/** KEYS[1] the log; ARGV now (ms), window (ms), max, a unique member. Returns {current, ttl}. */
const SLIDING_WINDOW_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local accepted = count < max
if accepted then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]
local ttl = window
if oldest then ttl = tonumber(oldest) + window - now end
if accepted then return {count, ttl} end
return {max + 1, ttl}
`;

class RedisSlidingWindowStore implements CounterStore {
  constructor(
    private readonly redis: Redis & { slidingWindow?: (...args: unknown[]) => Promise<[number, number]> },
    private readonly now: () => number,
  ) {
    if (!redis.slidingWindow) redis.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  }

  incr(key: string, done: IncrCallback, windowMs: number, max: number): void {
    this.redis.slidingWindow!(`${REDIS_KEY_PREFIX}${key}`, this.now(), windowMs, max, randomUUID()).then(
      ([current, ttl]) => done(null, { current, ttl }),
      (error: Error) => done(error),
    );
  }
}

export interface TierStoreOptions {
  redis: Redis | undefined;
  now: () => number;
}

/** The counters of one tier: a fixed or a sliding window, in Redis when it is configured, else in memory. */
export function createTierStore(strategy: WindowStrategy, { redis, now }: TierStoreOptions): CounterStore {
  if (strategy === 'sliding') return redis ? new RedisSlidingWindowStore(redis, now) : new MemorySlidingWindowStore(now);
  return redis ? new RedisStore(false, false, redis, REDIS_KEY_PREFIX) : new LocalStore(false, false, MEMORY_CAPACITY);
}
