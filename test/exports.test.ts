import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETWORKS } from '../src/exporters/rules.js';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';
import { createSampleVariant, downloadArtifact, type SampleVariant, waitForExport } from './helpers/exports.js';
import { artifactFiles, expectSampleArtifact, type sampleGame } from './helpers/sample-game.js';

let t: TestApp;
let alice: RegisteredUser;
let bob: RegisteredUser;
let sample: SampleVariant;

beforeAll(async () => {
  t = await createTestApp({ QUEUE_POLL_INTERVAL_SECONDS: '0.5', RATE_LIMIT_EXPORT_MAX: '500' });
  alice = await t.register();
  bob = await t.register();
  sample = await createSampleVariant(t, alice);
});
afterAll(() => t.close());

const countExports = async () => Number((await t.sql<{ n: string }>('SELECT count(*) AS n FROM exports'))[0]!.n);

describe('POST /export for every network', () => {
  it('builds the sample game for each network; each artifact opens and passes the checks', async () => {
    const queued = await Promise.all(NETWORKS.map((network) => t.as(alice).post('/export', { variantId: sample.variant.id, network })));
    for (const [i, res] of queued.entries()) {
      expect(res.statusCode).toBe(202);
      expect(res.headers['x-ratelimit-limit']).toBe('500'); // the export tier
      expect(res.json()).toEqual({ id: expect.any(String), variantId: sample.variant.id, network: NETWORKS[i], status: 'queued', createdAt: expect.any(String) });
    }
    for (const [i, network] of NETWORKS.entries()) {
      const exported = await waitForExport(t, alice, queued[i]!.json().id);
      expect(exported.status, exported.error).toBe('succeeded');
      const artifact = await downloadArtifact(t, exported);
      expectSampleArtifact(network, artifact);
      expect(exported).toMatchObject({
        network,
        error: null,
        size: artifact.length,
        checksum: createHash('sha256').update(artifact).digest('hex'),
        attempts: 1,
      });
      expect(exported.fileName).toMatch(network === 'unity' ? /^index\.html$/ : /^meadow-mayhem/);
      expect(exported.report.assets.map((a: { fileName: string }) => a.fileName).sort()).toEqual(['game.js', 'level.json', 'logo.png', 'style.css']);
      expect(Date.parse(exported.finishedAt)).toBeGreaterThanOrEqual(Date.parse(exported.startedAt));
    }
  });
});

describe('failed exports', () => {
  it('fails over the size limit, naming the size, the limit and the largest asset', async () => {
    const big = await createSampleVariant(t, alice, {
      change: (game) => {
        game.assets.push({ fileName: 'huge.png', contentType: 'image/png', bytes: Buffer.alloc(1_600_000, 7) });
        game.entry = { ...game.entry, bytes: Buffer.from(game.entry.bytes.toString().replace('</body>', '<img src="huge.png"></body>')) };
      },
    });
    const res = await t.as(alice).post('/export', { variantId: big.variant.id, network: 'meta' });
    const exported = await waitForExport(t, alice, res.json().id);
    expect(exported).toMatchObject({ status: 'failed', downloadUrl: null, size: null });
    expect(exported.error).toMatch(
      /^The meta export is 2\.\d\d MB \(\d+ bytes\), over the network's limit of 2\.00 MB \(2000000 bytes\)\. Largest assets: huge\.png/,
    );
  });

  it('fails naming a referenced file that is not part of the variant', async () => {
    const partial = await createSampleVariant(t, alice, { change: (game) => void (game.assets = game.assets.filter((a) => a.fileName !== 'logo.png')) });
    const res = await t.as(alice).post('/export', { variantId: partial.variant.id, network: 'applovin' });
    const exported = await waitForExport(t, alice, res.json().id);
    expect(exported.status).toBe('failed');
    expect(exported.error).toContain('references files that are not part of the variant: logo.png');
  });
});

describe("Vungle's 2026 rules: no viewport units in CSS, no location.reload", () => {
  type Game = ReturnType<typeof sampleGame>;
  /** Changes the text of one of the sample game's files. */
  const edit = (game: Game, fileName: string, change: (text: string) => string) => {
    const file = fileName === 'index.html' ? game.entry : game.assets.find((a) => a.fileName === fileName)!;
    file.bytes = Buffer.from(change(file.bytes.toString()));
  };
  const exportTo = async (variantId: string, network: string, optimize = 'lossless') => {
    const res = await t.as(alice).post('/export', { variantId, network, optimize });
    expect(res.statusCode, res.body).toBe(202);
    return waitForExport(t, alice, res.json().id);
  };

  it('fails naming each viewport unit and where it is: a style sheet, a <style>, a style attribute', async () => {
    const sized = await createSampleVariant(t, alice, {
      change: (game) => {
        edit(game, 'style.css', (css) => `${css}\ncanvas { width: 100vw; height: 100vh; }\n`);
        edit(game, 'index.html', (html) =>
          html.replace('</head>', '<style>#logo { width: 20VMIN; }</style></head>').replace('<p id="level">', '<p id="level" style="max-height: calc(10dvh + 4px)">'),
        );
      },
    });
    const exported = await exportTo(sized.variant.id, 'vungle');
    expect(exported.status).toBe('failed');
    expect(exported.error).toBe(
      "The vungle artifact does not pass the network's rules: Vungle does not allow viewport units (vw, vh, vmin, vmax…) in CSS, " +
        'found in ad.html <style> (20VMIN), ad.html <p style> (10dvh), style.css (100vw, 100vh): ' +
        'size the game from html and body at 100% (or from window.innerWidth and innerHeight) instead',
    );
    // The rule is Vungle's alone.
    expect((await exportTo(sized.variant.id, 'applovin')).status).toBe('succeeded');
  });

  it('fails naming each script that calls location.reload: a file, an inline script, a handler attribute', async () => {
    const reloading = await createSampleVariant(t, alice, {
      change: (game) => {
        edit(game, 'game.js', (js) => `${js}\nfunction restart() { window.location.reload(); }\n`);
        edit(game, 'index.html', (html) =>
          html
            .replace('</body>', "<script>function again() { document.location['reload'](); }</script></body>")
            .replace('<h1 id="title">', '<h1 id="title" ondblclick="location.reload()">'),
        );
      },
    });
    const exported = await exportTo(reloading.variant.id, 'vungle');
    expect(exported.status).toBe('failed');
    expect(exported.error).toBe(
      "The vungle artifact does not pass the network's rules: Vungle does not allow location.reload, " +
        'called in ad.html <h1 ondblclick>, ad.html <script>, game.js: restart the game by resetting its state instead of reloading the page',
    );
  });

  it('does not count location.reload in a comment or a string', async () => {
    const mentioning = await createSampleVariant(t, alice, {
      change: (game) => edit(game, 'game.js', (js) => `// never location.reload() here\nvar hint = 'location.reload';\n${js}`),
    });
    const exported = await exportTo(mentioning.variant.id, 'vungle', 'none');
    expect(exported.status, exported.error).toBe('succeeded');
  });
});

describe('a script loaded from a data: URI src', () => {
  /** The sample game with its game.js loaded from `src` (a data: URI) instead of a file. */
  const fromDataUri =
    (src: (js: Buffer) => string, attributes = '') =>
    (game: ReturnType<typeof sampleGame>) => {
      const js = game.assets.find((a) => a.fileName === 'game.js')!;
      game.assets = game.assets.filter((a) => a !== js);
      const html = game.entry.bytes.toString().replace('<script src="js/game.js">', `<script${attributes} src="${src(js.bytes)}">`);
      game.entry = { ...game.entry, bytes: Buffer.from(html) };
    };
  const exportTo = async (variantId: string, network: string) => {
    const res = await t.as(alice).post('/export', { variantId, network });
    expect(res.statusCode, res.body).toBe(202);
    return waitForExport(t, alice, res.json().id);
  };
  const entryHtml = async (exported: { downloadUrl: string }, entryPath: string) =>
    artifactFiles(await downloadArtifact(t, exported))
      .get(entryPath)!
      .toString();

  it('becomes inline script text on every output, single HTML or ZIP; report.entry.api sees it', async () => {
    const base64 = await createSampleVariant(t, alice, {
      change: fromDataUri((js) => `data:text/javascript;charset=utf-8;base64,${js.toString('base64')}`),
    });
    for (const [network, entryPath] of [
      ['meta', 'single.html'],
      ['applovin', 'single.html'],
      ['vungle', 'ad.html'],
    ] as const) {
      const exported = await exportTo(base64.variant.id, network);
      expect(exported.status, `${network}: ${exported.error}`).toBe('succeeded');
      // The build calls window.playable from that script (and loads mraid.js, which alone would make it "mraid").
      expect(exported.report.entry.api, network).toBe('playable');
      const html = await entryHtml(exported, entryPath);
      expect(html, network).not.toMatch(/<script[^>]+src="data:/);
      expect(html, network).toContain('<script>// A tiny sample game');
    }
  });

  it('keeps its other attributes and decodes percent-encoded text as UTF-8', async () => {
    const script = 'window.playable.ready(function () { document.title = "Café"; });';
    const encoded = await createSampleVariant(t, alice, {
      change: fromDataUri(() => `data:application/javascript,${encodeURIComponent(script)}`, ' type="module" id="game"'),
    });
    const exported = await exportTo(encoded.variant.id, 'meta');
    expect(exported.status, exported.error).toBe('succeeded');
    expect(await entryHtml(exported, 'single.html')).toContain(`<script type="module" id="game">${script}</script>`);
  });

  it('of another media type stays as it is, and Meta refuses it saying why', async () => {
    const plain = await createSampleVariant(t, alice, {
      change: fromDataUri((js) => `data:text/plain;base64,${js.toString('base64')}`),
    });
    const meta = await exportTo(plain.variant.id, 'meta');
    expect(meta.status).toBe('failed');
    expect(meta.error).toBe(
      "The meta artifact does not pass the network's rules: a script is loaded from a data: URI src (data:text/plain;base64,…), which Meta refuses; " +
        'the export inlines only JavaScript media types (data:text/javascript,…): give it one, or make the script a file of the variant',
    );
    expect(await entryHtml(await exportTo(plain.variant.id, 'applovin'), 'single.html')).toContain('<script src="data:text/plain;base64,');
  });
});

describe('POST /export requests', () => {
  it('returns the same export for a retried request with the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'retry-me-123' };
    const first = await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'unity' }, headers);
    const second = await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'unity' }, headers);
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.json().id).toBe(first.json().id);
    expect(await t.sql('SELECT id FROM exports WHERE idempotency_key = $1', ['retry-me-123'])).toHaveLength(1);

    const other = await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'unity' });
    expect(other.json().id).not.toBe(first.json().id);
    const before = await countExports();
    expectError(await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'meta' }, headers), 409, 'DUPLICATE_RESOURCE');
    expect(await countExports()).toBe(before);
  });

  it('records optimize and validation (defaults lossless and enforce); a key reused with other settings is 409', async () => {
    const plain = await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'applovin' });
    expect((await t.as(alice).get(`/exports/${plain.json().id}`)).json()).toMatchObject({ optimize: 'lossless', validation: 'enforce' });
    const headers = { 'idempotency-key': 'settings-1' };
    const chosen = await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'applovin', optimize: 'none', validation: 'report' }, headers);
    expect(chosen.statusCode, chosen.body).toBe(202);
    expect((await t.as(alice).get(`/exports/${chosen.json().id}`)).json()).toMatchObject({ optimize: 'none', validation: 'report' });

    const before = await countExports();
    expectError(
      await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'applovin', optimize: 'fit', validation: 'report' }, headers),
      409,
      'DUPLICATE_RESOURCE',
    );
    expectError(await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'applovin', optimize: 'max' }), 400, 'VALIDATION_ERROR');
    expectError(await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'applovin', validation: 'off' }), 400, 'VALIDATION_ERROR');
    expect(await countExports()).toBe(before);
  });

  it('refuses an unknown network with 400 listing the allowed values, creating nothing', async () => {
    const before = await countExports();
    const body = expectError(await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'myspace' }), 400, 'VALIDATION_ERROR');
    expect(body.message).toContain(NETWORKS.join(', '));
    expectError(await t.as(alice).post('/export', { variantId: sample.variant.id }), 400, 'VALIDATION_ERROR');
    expectError(await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'unity', extra: 1 }), 400, 'VALIDATION_ERROR');
    expect(await countExports()).toBe(before);
  });

  it("treats another organization's variant and export as not found", async () => {
    const before = await countExports();
    expectError(await t.as(bob).post('/export', { variantId: sample.variant.id, network: 'unity' }), 404, 'RESOURCE_NOT_FOUND');
    expect(await countExports()).toBe(before);
    const mine = (await t.as(alice).post('/export', { variantId: sample.variant.id, network: 'vungle' })).json();
    expectError(await t.as(bob).get(`/exports/${mine.id}`), 404, 'RESOURCE_NOT_FOUND');
    expect((await t.as(bob).get('/exports')).json().meta.total).toBe(0);
    expectError(await t.as(alice).get('/exports/42'), 404, 'RESOURCE_NOT_FOUND');
  });

  it('needs exports:write to export and exports:read to read', async () => {
    const reader = await t.createToken(alice, ['exports:read']);
    const denied = expectError(await t.as(reader).post('/export', { variantId: sample.variant.id, network: 'unity' }), 403, [
      'INSUFFICIENT_PERMISSIONS',
      'Forbidden',
    ]);
    expect(denied.message).toBe('Insufficient permissions. Required: exports:write');
    expect((await t.as(reader).get('/exports')).statusCode).toBe(200);
    const gamesOnly = await t.createToken(alice, ['games:read']);
    expect(expectError(await t.as(gamesOnly).get('/exports'), 403, ['INSUFFICIENT_PERMISSIONS', 'Forbidden']).message).toBe(
      'Insufficient permissions. Required: exports:read',
    );
    const writer = await t.createToken(alice, ['exports:write']);
    expect((await t.as(writer).post('/export', { variantId: sample.variant.id, network: 'unity' })).statusCode).toBe(202);
  });
});

describe('GET /exports', () => {
  it('lists with the envelope and filters by variant, game and status', async () => {
    const other = await createSampleVariant(t, alice, { name: 'Other' });
    const exp = (await t.as(alice).post('/export', { variantId: other.variant.id, network: 'moloco' })).json();
    await waitForExport(t, alice, exp.id);

    const byVariant = (await t.as(alice).get(`/exports?variantId=${other.variant.id}`)).json();
    expect(byVariant.meta).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(byVariant.data[0]).toMatchObject({ id: exp.id, status: 'succeeded', downloadUrl: expect.any(String) });
    expect((await t.as(alice).get(`/exports?gameId=${other.game.id}`)).json().data.map((e: { id: string }) => e.id)).toEqual([exp.id]);
    const failed = (await t.as(alice).get('/exports?status=failed&limit=100')).json();
    expect(failed.data.every((e: { status: string }) => e.status === 'failed')).toBe(true);
    // A filter by a variant or game the caller cannot see is 404, as the variant or game itself is.
    expectError(await t.as(alice).get('/exports?variantId=nope'), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(bob).get(`/exports?variantId=${other.variant.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(bob).get(`/exports?gameId=${other.game.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(alice).get('/exports?status=done'), 400, 'VALIDATION_ERROR');
    expectError(await t.as(alice).get('/exports?limit=101'), 400, 'VALIDATION_ERROR');
  });

  it("narrows to one of a session user's organizations with organizationId (CONTRACT §4)", async () => {
    const carol = await t.register();
    const first = await createSampleVariant(t, carol, { name: 'In the first' });
    const inFirst = (await t.as(carol).post('/export', { variantId: first.variant.id, network: 'unity' })).json();
    const second = (await t.as(carol).post('/organizations', { name: 'Carol second' })).json();
    const ids = async (query: string) => (await t.as(carol).get(`/exports${query}`)).json().data.map((e: { id: string }) => e.id);
    expect(await ids('')).toEqual([inFirst.id]);
    expect(await ids(`?organizationId=${carol.organization.id}`)).toEqual([inFirst.id]);
    expect(await ids(`?organizationId=${second.id}`)).toEqual([]);
    expectError(await t.as(carol).get('/exports?organizationId=nope'), 404, 'RESOURCE_NOT_FOUND');
  });

  it('describes every network, in GET /exports/networks and in the OpenAPI document', async () => {
    const networks = (await t.as(alice).get('/exports/networks')).json().data;
    expect(networks.map((n: { network: string }) => n.network)).toEqual(NETWORKS);
    expect(networks.find((n: { network: string }) => n.network === 'meta')).toMatchObject({ output: 'html', sizeLimitBytes: 2_000_000 });
    const doc = (await t.as(null).get('/openapi.json')).json();
    const description = doc.paths['/api/export'].post.description as string;
    for (const network of NETWORKS) expect(description).toContain(`| \`${network}\` |`);
  });
});

describe('deleting a variant or its game', () => {
  const deletions = [
    { what: 'variant', path: (v: Awaited<ReturnType<typeof createSampleVariant>>) => `/variants/${v.variant.id}` },
    { what: 'game', path: (v: Awaited<ReturnType<typeof createSampleVariant>>) => `/games/${v.game.id}` },
  ];
  it.each(deletions)('deleting the $what deletes its exports and their stored artifacts', async ({ what, path }) => {
    const doomed = await createSampleVariant(t, alice, { name: `Short-lived ${what}` });
    const exp = (await t.as(alice).post('/export', { variantId: doomed.variant.id, network: 'snapchat' })).json();
    await waitForExport(t, alice, exp.id);
    const [{ storage_key: key }] = (await t.sql<{ storage_key: string }>('SELECT storage_key FROM exports WHERE id = $1', [exp.id])) as [{ storage_key: string }];
    expect(await t.store.head(key)).not.toBeNull();

    expect((await t.as(alice).delete(path(doomed))).statusCode).toBe(204);
    expectError(await t.as(alice).get(`/exports/${exp.id}`), 404, 'RESOURCE_NOT_FOUND');
    expect(await t.store.head(key)).toBeNull();
  });
});
