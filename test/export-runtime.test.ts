// report.runtime when there is no browser to run the export in (CONTRACT §9): EXPORT_BROWSER=off
// and "no browser found" skip with the reason; EXPORT_BROWSER=required fails the export. The runs
// in a real browser are the browser lane's (test/lanes/browser/runtime.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createTestApp, TEST_ENV, type TestApp } from './helpers/app.js';
import { createSampleVariant, waitForExport } from './helpers/exports.js';

const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((t) => t.close())));

async function exportWith(env: Record<string, string>) {
  const t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5', ...env });
  apps.push(t);
  const user = await t.register();
  const sample = await createSampleVariant(t, user);
  const queued = await t.as(user).post('/export', { variantId: sample.variant.id, network: 'applovin' });
  expect(queued.statusCode, queued.body).toBe(202);
  return waitForExport(t, user, queued.json().id);
}

/** CONTRACT §9's report.runtime when the checks did not run. */
const skipped = (reason: string) => ({ status: 'skipped', reason, browser: null, orientations: [], checks: [], requests: [], consoleErrors: [], bridgeCalls: [] });

describe('report.runtime without a browser', () => {
  it('is skipped with the reason when EXPORT_BROWSER=off (the suite default); the export succeeds', async () => {
    const exported = await exportWith({});
    expect(exported).toMatchObject({ status: 'succeeded', error: null });
    expect(exported.report.runtime).toEqual(skipped('browser validation is off (EXPORT_BROWSER=off)'));
  });

  it('is skipped with the reason when no browser is found (EXPORT_BROWSER=auto)', async () => {
    const exported = await exportWith({ EXPORT_BROWSER: 'auto', BROWSER_EXECUTABLE_PATH: '/nonexistent/chromium' });
    expect(exported.status).toBe('succeeded');
    expect(exported.report.runtime).toEqual(skipped('no browser found: BROWSER_EXECUTABLE_PATH=/nonexistent/chromium is not an executable file'));
  });

  it('fails the export, once, when EXPORT_BROWSER=required and there is none', async () => {
    const exported = await exportWith({ EXPORT_BROWSER: 'required', PATH: '/nonexistent' });
    expect(exported).toMatchObject({ status: 'failed', attempts: 1, downloadUrl: null });
    expect(exported.error).toBe(
      'runtime validation needs a browser (EXPORT_BROWSER=required), but no browser found: none of chromium-headless-shell, chromium, chromium-browser, google-chrome, google-chrome-stable, chrome is on PATH, and BROWSER_EXECUTABLE_PATH is not set',
    );
    expect(exported.report.runtime).toMatchObject({ status: 'skipped' });
  });

  it('refuses an unknown EXPORT_BROWSER at start-up', () => {
    expect(() => loadConfig({ ...TEST_ENV, EXPORT_BROWSER: 'sometimes' })).toThrow(/EXPORT_BROWSER/);
    expect(loadConfig({ ...TEST_ENV, EXPORT_BROWSER: 'required', PATH: '/a:/b' }).exports.browser).toEqual({
      mode: 'required',
      executablePath: undefined,
      searchPath: ['/a', '/b'],
    });
  });
});
