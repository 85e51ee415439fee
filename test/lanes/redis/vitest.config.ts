// The Redis lane of .ci/run: tests that need a Redis server (REDIS_URL, default the local one).
// `npm test` leaves them out; run with `npx vitest run --config test/lanes/redis/vitest.config.ts`.
import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: path.resolve(import.meta.dirname, '../../..'),
    globalSetup: ['test/global-setup.ts'],
    include: ['test/lanes/redis/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
