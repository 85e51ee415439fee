import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Several lanes of .ci/run (Redis, browser) run their own files with their own settings.
    exclude: ['**/node_modules/**', 'test/lanes/**'],
  },
});
