// CONTRACT §11: the public side of a preview link, over HTTP. The page and the artifact open
// without credentials behind the signed URL, with a CSP that allows only the page's own script
// and style (by hash) and frames from its origin, the playable sandboxed to scripts alone and its
// files sent without cookies; a tampered, expired or revoked URL — or one whose export is gone —
// answers 403 with the contract's body on every path under it.
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerScript, PARENT_FRAME_HOST } from '../src/exporters/containers/index.js';
import { GOOGLE_EXIT_API_URL } from '../src/exporters/rules.js';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';
import { exportSampleGame } from './helpers/exports.js';

let t: TestApp;
let owner: RegisteredUser;
let applovin: { exported: { id: string; fileName: string }; sample: { variant: { id: string } } };

beforeAll(async () => {
  t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5' });
  owner = await t.register();
  applovin = await exportSampleGame(t, 'applovin', owner);
});
afterAll(async () => {
  await t?.close();
});

async function previewOf(exportId: string, expiresInSeconds?: number) {
  const res = await t.as(owner).post(`/exports/${exportId}/previews`, expiresInSeconds ? { expiresInSeconds } : {});
  expect(res.statusCode, res.body).toBe(201);
  const preview = res.json() as { id: string; url: string };
  return { ...preview, path: preview.url.slice(t.config.publicUrl.length) };
}

/** A GET outside /api, with no credentials unless given. */
const get = (path: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url: path, headers });

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const between = (html: string, open: string, close: string) => html.slice(html.indexOf(open) + open.length, html.indexOf(close, html.indexOf(open)));

function expectNoCookies(res: LightMyRequestResponse) {
  expect(res.headers['set-cookie']).toBeUndefined();
}

describe('the page', () => {
  it('serves the frame, the log and the QR code under a CSP that allows its own script and style by hash only', async () => {
    const preview = await previewOf(applovin.exported.id);
    const res = await get(preview.path);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expectNoCookies(res);
    const html = res.body;
    expect(html).toMatch(/<iframe data-preview-frame sandbox="allow-scripts" src="\/previews\/[^"]+\/play"/);
    expect(html).not.toContain('allow-same-origin');
    expect(html).toContain('<ol class="log" data-preview-log');
    expect(html).toMatch(/<figure data-preview-qr><svg [^>]*viewBox/);
    expect(html).toContain(`<code class="link">${preview.url}</code>`);
    expect(html).toContain('data-preview-orientation="landscape"');

    const csp = res.headers['content-security-policy'] as string;
    expect(csp).not.toContain('unsafe');
    const directives = new Map(csp.split(/;\s*/).map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives.get('default-src')).toBe("'none'");
    expect(directives.get('script-src')).toBe(sha256(between(html, '<script>', '</script>')));
    expect(directives.get('style-src')).toBe(sha256(between(html, '<style>', '</style>')));
    expect(directives.get('frame-src')).toBe("'self'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
  });

  it('sets no cookie, even for a browser that sends an old session cookie along', async () => {
    const preview = await previewOf(applovin.exported.id);
    const aged = t.agedSession(owner, 2 * 24 * 3600);
    for (const path of [preview.path, `${preview.path}/play/${applovin.exported.fileName}`, `${preview.path}/container.js`]) {
      const res = await get(path, aged.headers);
      expect(res.statusCode, path).toBe(200);
      expectNoCookies(res);
    }
  });
});

describe('the artifact behind the page', () => {
  it('serves one HTML file with the network container first, sandboxed, loadable from the opaque origin, without cookies', async () => {
    const preview = await previewOf(applovin.exported.id);
    const play = await get(`${preview.path}/play`);
    expect(play.statusCode).toBe(302);
    expect(play.headers.location).toBe(`${preview.path}/play/${applovin.exported.fileName}`);

    const entry = await get(play.headers.location as string);
    expect(entry.statusCode).toBe(200);
    expect(entry.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(entry.headers['content-security-policy']).toMatch(/^sandbox allow-scripts; default-src 'self' data: blob:/);
    expect(entry.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(entry.headers['access-control-allow-origin']).toBe('*');
    expectNoCookies(entry);
    const firstScript = entry.body.indexOf('<script');
    expect(entry.body.slice(firstScript)).toMatch(new RegExp(`^<script src="${preview.path}/container.js"></script>`));
    expect(firstScript).toBeLessThan(entry.body.indexOf('mraid.js'));

    // The same container stubs as the export's browser validation, reporting to the parent frame.
    const stub = containerScript('applovin', PARENT_FRAME_HOST);
    const container = await get(`${preview.path}/container.js`);
    expect(container.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(container.body).toBe(stub);
    // What the artifact loads as the network's own mraid.js.
    expect((await get(`${preview.path}/play/mraid.js`)).body).toBe(stub);
    expectError(await get(`${preview.path}/play/nothing-here.js`), 404, 'RESOURCE_NOT_FOUND');
  });

  it("serves a ZIP's files under their paths, the network's own script pointed at the container", async () => {
    const google = await exportSampleGame(t, 'google', owner);
    const preview = await previewOf(google.exported.id);
    // The artifact is read from the store once for the page's files, not once per file.
    const reads: string[] = [];
    const read = t.store.read.bind(t.store);
    t.store.read = (key) => {
      reads.push(key);
      return read(key);
    };
    const play = await get(`${preview.path}/play`);
    expect(play.headers.location).toBe(`${preview.path}/play/index.html`);
    const entry = await get(`${preview.path}/play/index.html`);
    expect(entry.body).not.toContain(GOOGLE_EXIT_API_URL);
    expect(entry.body).toContain(`<script src="${preview.path}/container.js"></script>`);
    const css = await get(`${preview.path}/play/style.css`);
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['content-security-policy']).toMatch(/^sandbox allow-scripts;/);
    expect((await get(`${preview.path}/container.js`)).body).toBe(containerScript('google', PARENT_FRAME_HOST));
    t.store.read = read;
    expect(reads).toHaveLength(1);

    // An entry in a folder: its files beside it, typed by their own names.
    const mintegral = await previewOf((await exportSampleGame(t, 'mintegral', owner)).exported.id);
    expect((await get(`${mintegral.path}/play`)).headers.location).toBe(`${mintegral.path}/play/meadow-mayhem/meadow-mayhem.html`);
    const script = await get(`${mintegral.path}/play/meadow-mayhem/game.js`);
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });
});

describe('a link that no longer opens (403)', () => {
  /** Every path under a link answers 403 with the contract's body. */
  async function expectRefused(path: string, message: RegExp) {
    for (const under of ['', '/play', `/play/${applovin.exported.fileName}`, '/container.js']) {
      const body = expectError(await get(`${path}${under}`), 403, 'INSUFFICIENT_PERMISSIONS');
      expect(body.message, `${path}${under}`).toMatch(message);
    }
  }

  it('refuses a tampered URL: signature, expiry or id changed, or no token at all', async () => {
    const preview = await previewOf(applovin.exported.id);
    const other = await previewOf(applovin.exported.id);
    const [id, expires, signature] = preview.path.slice('/previews/'.length).split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const otherId = other.path.slice('/previews/'.length).split('.')[0];
    for (const token of [`${id}.${expires}.${flipped}`, `${id}.${Number(expires) + 3600}.${signature}`, `${otherId}.${expires}.${signature}`, id, 'x'.repeat(99)]) {
      await expectRefused(`/previews/${token}`, /not valid/);
    }
    expect((await get(preview.path)).statusCode).toBe(200);
  });

  it('refuses an expired URL, on an instance whose clock is past its expiry', async () => {
    const short = await previewOf(applovin.exported.id, 60);
    const long = await previewOf(applovin.exported.id);
    const later = await t.anotherInstance({}, { now: () => Date.now() + 120_000 });
    const body = expectError(await later.app.inject({ method: 'GET', url: short.path }), 403, 'INSUFFICIENT_PERMISSIONS');
    expect(body.message).toMatch(/expired/);
    expect((await later.app.inject({ method: 'GET', url: long.path })).statusCode).toBe(200);
    expect((await get(short.path)).statusCode).toBe(200);
  });

  it('refuses a revoked URL, and one whose export was deleted with its variant', async () => {
    const preview = await previewOf(applovin.exported.id);
    expect((await t.as(owner).delete(`/previews/${preview.id}`)).statusCode).toBe(204);
    await expectRefused(preview.path, /revoked/);

    const doomed = await exportSampleGame(t, 'unity', owner);
    const orphan = await previewOf(doomed.exported.id);
    expect((await get(orphan.path)).statusCode).toBe(200);
    expect((await t.as(owner).delete(`/variants/${doomed.sample.variant.id}`)).statusCode).toBe(204);
    await expectRefused(orphan.path, /no longer available/);
  });
});
