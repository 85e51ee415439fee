// The Redis connection of an instance (REDIS_URL): rate-limit counters shared by every instance
// (src/plugins/rate-limit.ts), reported by readiness. Commands give up quickly and nothing is
// queued while it is down: a missing Redis must not stall requests (the rate limits fail open).
import { Redis } from 'ioredis';

const COMMAND_TIMEOUT_MS = 500;

interface Log {
  warn(object: object, message: string): void;
  info(message: string): void;
}

export async function connectRedis(url: string, log: Log): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
  });
  // ioredis reconnects on its own; log the state changes, not every failed attempt.
  let down = false;
  redis.on('error', (error) => {
    if (!down) log.warn({ err: error }, 'Redis unavailable; rate limits are not applied until it is back');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.info('Redis available again');
    down = false;
  });
  await redis.connect().catch(() => undefined);
  return redis;
}
