// The browser lane (.ci/run): exported playables opened in headless Chromium (Debian's package,
// driven by playwright-core). Needs /usr/bin/chromium; not part of `npm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/lanes/*.browser.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
