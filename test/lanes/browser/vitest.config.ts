// The browser lane (.ci/run): exported playables opened in headless Chromium (Debian's package,
// driven by playwright-core). Needs /usr/bin/chromium; not part of `npm test`.
import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: path.resolve(import.meta.dirname, '../../..'),
    globalSetup: ['test/global-setup.ts'],
    include: ['test/lanes/browser/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
