// CONTRACT §11: preview links of a succeeded export — created, listed and revoked through /api
// with scopes and organization scoping; the public page and the artifact behind a signed,
// expiring, revocable URL (403 otherwise), with a strict CSP and no cookies. The page in a real
// browser: test/lanes/browser/preview.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';
import { createSampleVariant, exportSampleGame, waitForExport } from './helpers/exports.js';

const WEEK = 604_800;
let t: TestApp;
let owner: RegisteredUser;
let exported: { id: string; fileName: string };

beforeAll(async () => {
  t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5' });
  owner = await t.register();
  ({ exported } = await exportSampleGame(t, 'applovin', owner));
});
afterAll(async () => {
  await t?.close();
});

/** GET of a public URL of the app (outside /api), with no credentials unless given. */
const open = (url: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url: url.slice(t.config.publicUrl.length), headers });

async function createPreview(body?: unknown) {
  const res = await t.as(owner).post(`/exports/${exported.id}/previews`, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; url: string; expiresAt: string; revokedAt: string | null };
}

describe('POST /exports/{id}/previews', () => {
  it('makes a link that lives a week by default, or as long as asked', async () => {
    const before = Date.now();
    const preview = await createPreview({});
    expect(preview).toMatchObject({ exportId: exported.id, revokedAt: null });
    expect(preview.url).toMatch(new RegExp(`^${t.config.publicUrl}/previews/${preview.id}\\.\\d+\\.[A-Za-z0-9_-]{43}$`));
    // Never shorter than asked; rounded up to the whole second the link carries.
    const after = Date.now();
    expect(Date.parse(preview.expiresAt)).toBeGreaterThanOrEqual(before + WEEK * 1000);
    expect(Date.parse(preview.expiresAt)).toBeLessThanOrEqual(after + WEEK * 1000 + 1000);

    const beforeShort = Date.now();
    const short = await createPreview({ expiresInSeconds: 60 });
    expect(Date.parse(short.expiresAt)).toBeGreaterThanOrEqual(beforeShort + 60_000);
    expect(Date.parse(short.expiresAt)).toBeLessThanOrEqual(Date.now() + 61_000);
    // Without a body at all: the defaults.
    const bare = await t.as(owner).post(`/exports/${exported.id}/previews`);
    expect(bare.statusCode, bare.body).toBe(201);
  });

  it.each([
    ['below the minimum', { expiresInSeconds: 59 }],
    ['above the maximum', { expiresInSeconds: 2_592_001 }],
    ['not an integer', { expiresInSeconds: 90.5 }],
    ['a string', { expiresInSeconds: '600' }],
    ['an unknown field', { expiresInSeconds: 600, note: 'x' }],
  ])('refuses expiresInSeconds %s with 400 and creates nothing', async (_what, body) => {
    const before = await t.rowCounts();
    expectError(await t.as(owner).post(`/exports/${exported.id}/previews`, body), 400, 'VALIDATION_ERROR');
    expect(await t.rowCounts()).toEqual(before);
  });

  it('refuses an export that has not succeeded (400) and an unknown or malformed one (404)', async () => {
    const partial = await createSampleVariant(t, owner, { change: (game) => void (game.assets = game.assets.filter((a) => a.fileName !== 'logo.png')) });
    const failed = await waitForExport(t, owner, (await t.as(owner).post('/export', { variantId: partial.variant.id, network: 'applovin' })).json().id);
    expect(failed.status).toBe('failed');
    const before = await t.rowCounts();
    const refused = expectError(await t.as(owner).post(`/exports/${failed.id}/previews`, {}), 400, 'VALIDATION_ERROR');
    expect(refused.message).toContain('failed');
    expectError(await t.as(owner).post('/exports/00000000-0000-4000-8000-000000000000/previews', {}), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(owner).post('/exports/not-an-id/previews', {}), 404, 'RESOURCE_NOT_FOUND');
    expect(await t.rowCounts()).toEqual(before);
  });
});

describe('GET /exports/{id}/previews and DELETE /previews/{id}', () => {
  it('lists the links of an export, sorted as asked, and a revoked one stays listed with revokedAt', async () => {
    const other = await exportSampleGame(t, 'unity', owner);
    const first = (await t.as(owner).post(`/exports/${other.exported.id}/previews`, { expiresInSeconds: 3600 })).json();
    const second = (await t.as(owner).post(`/exports/${other.exported.id}/previews`, { expiresInSeconds: 60 })).json();

    const listed = await t.as(owner).get(`/exports/${other.exported.id}/previews?sort=expiresAt&order=asc`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.map((p: { id: string }) => p.id)).toEqual([second.id, first.id]);
    expect(listed.json().meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(listed.json().data[1]).toEqual({ ...first, revokedAt: null });

    const revoked = await t.as(owner).delete(`/previews/${first.id}`);
    expect(revoked.statusCode).toBe(204);
    const [after] = (await t.as(owner).get(`/exports/${other.exported.id}/previews?sort=createdAt&order=asc`)).json().data;
    expect(after.id).toBe(first.id);
    expect(Date.parse(after.revokedAt)).toBeLessThanOrEqual(Date.now());
    // Revoking again changes nothing.
    expect((await t.as(owner).delete(`/previews/${first.id}`)).statusCode).toBe(204);
    expect((await t.as(owner).get(`/exports/${other.exported.id}/previews?sort=createdAt&order=asc`)).json().data[0].revokedAt).toBe(after.revokedAt);
  });

  it('refuses bad list parameters (400) and unknown previews (404)', async () => {
    expectError(await t.as(owner).get(`/exports/${exported.id}/previews?limit=101`), 400, 'VALIDATION_ERROR');
    expectError(await t.as(owner).get(`/exports/${exported.id}/previews?sort=url`), 400, 'VALIDATION_ERROR');
    expectError(await t.as(owner).delete('/previews/00000000-0000-4000-8000-000000000000'), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(owner).delete('/previews/nope'), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('authorization', () => {
  it('needs exports:write to create and revoke, exports:read to list', async () => {
    const preview = await createPreview();
    const reader = await t.createToken(owner, ['exports:read']);
    const writer = await t.createToken(owner, ['exports:write']);
    const games = await t.createToken(owner, ['games:read']);
    const before = await t.rowCounts();
    expect(expectError(await t.as(reader).post(`/exports/${exported.id}/previews`, {}), 403, 'INSUFFICIENT_PERMISSIONS').message).toBe(
      'Insufficient permissions. Required: exports:write',
    );
    expectError(await t.as(reader).delete(`/previews/${preview.id}`), 403, 'INSUFFICIENT_PERMISSIONS');
    expect(expectError(await t.as(games).get(`/exports/${exported.id}/previews`), 403, 'INSUFFICIENT_PERMISSIONS').message).toBe(
      'Insufficient permissions. Required: exports:read',
    );
    expectError(await t.as(null).post(`/exports/${exported.id}/previews`, {}), 401, 'AUTHENTICATION_REQUIRED');
    expectError(await t.as(null).get(`/exports/${exported.id}/previews`), 401, 'AUTHENTICATION_REQUIRED');
    expectError(await t.as(null).delete(`/previews/${preview.id}`), 401, 'AUTHENTICATION_REQUIRED');
    expect(await t.rowCounts()).toEqual(before);

    expect((await t.as(reader).get(`/exports/${exported.id}/previews`)).statusCode).toBe(200);
    expect((await t.as(writer).post(`/exports/${exported.id}/previews`, {})).statusCode).toBe(201);
    expect((await t.as(writer).delete(`/previews/${preview.id}`)).statusCode).toBe(204);
  });

  it("does not let another organization see, create or revoke an export's links (404)", async () => {
    const preview = await createPreview();
    const stranger = await t.register();
    const strangerToken = await t.createToken(stranger, ['exports:write']);
    const before = await t.rowCounts();
    for (const caller of [stranger, strangerToken]) {
      expectError(await t.as(caller).post(`/exports/${exported.id}/previews`, {}), 404, 'RESOURCE_NOT_FOUND');
      expectError(await t.as(caller).get(`/exports/${exported.id}/previews`), 404, 'RESOURCE_NOT_FOUND');
      expectError(await t.as(caller).delete(`/previews/${preview.id}`), 404, 'RESOURCE_NOT_FOUND');
    }
    expect(await t.rowCounts()).toEqual(before);
    expect((await open(preview.url)).statusCode).toBe(200);
  });
});
