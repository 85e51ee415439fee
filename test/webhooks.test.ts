// CONTRACT §12: webhook subscriptions, signed deliveries to a real receiver on 127.0.0.1 with
// retries and a delivery log, and the refusal of private targets at creation and at delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../src/config.js';
import { createTestApp, expectError, type RegisteredUser, TEST_ENV, type TestApp } from './helpers/app.js';
import { createSampleVariant, pollUntil, waitForBatch, waitForExport } from './helpers/exports.js';
import { hostTable, type Receiver, signatureIsValid, startReceiver } from './helpers/webhooks.js';

const hosts = hostTable({
  'loop.test': '127.0.0.1',
  'private.test': '10.1.2.3',
  'metadata.test': '169.254.169.254',
  'ula.test': 'fd00::1',
  'public.test': '93.184.215.14',
  'internal.test': '10.1.2.3',
  'ten-nine.test': '10.9.3.4',
});

let t: TestApp;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await createTestApp(
    {
      QUEUE_POLL_INTERVAL_SECONDS: '0.5',
      WEBHOOK_POLL_INTERVAL_SECONDS: '0.5',
      WEBHOOK_RETRY_DELAY_SECONDS: '1',
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_TIMEOUT_SECONDS: '2',
    },
    { resolveHost: hosts },
  );
});
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await t.close();
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

/** A new organization (owner session) subscribed with `url` to `events`. */
async function subscribed(url: string, events: string[]) {
  const owner = await t.register();
  const res = await t.as(owner).post('/webhooks', { url, events });
  expect(res.statusCode, res.body).toBe(201);
  return { owner, webhook: res.json() };
}

/** Exports the sample game for `network` and waits for the export to finish. */
async function exportOnce(owner: RegisteredUser, network = 'unity') {
  const sample = await createSampleVariant(t, owner);
  const queued = (await t.as(owner).post('/export', { variantId: sample.variant.id, network })).json();
  return waitForExport(t, owner, queued.id);
}

const deliveries = async (owner: RegisteredUser, webhookId: string) => (await t.as(owner).get(`/webhooks/${webhookId}/deliveries`)).json();
const withoutDownloadUrl = ({ downloadUrl: _, ...rest }: Record<string, unknown>) => rest;

/** webhook_deliveries_total of export.succeeded in this app's /metrics, by outcome. */
async function deliveriesCounted(): Promise<{ failed: number; delivered: number }> {
  const text = (await t.inject({ method: 'GET', url: '/metrics' })).body;
  const count = (outcome: string) => Number(new RegExp(`webhook_deliveries_total\\{event="export.succeeded",outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  return { failed: count('failed'), delivered: count('delivered') };
}

describe('subscriptions', () => {
  it('creates a webhook with a whsec_ secret shown once, lists it without the secret, deletes it', async () => {
    const owner = await t.register();
    const res = await t.as(owner).post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['export.succeeded', 'export_batch.finished'] });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      id: expect.any(String),
      url: 'http://127.0.0.1:9/hook',
      events: ['export.succeeded', 'export_batch.finished'],
      organizationId: owner.organization.id,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.any(String),
    });
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);

    const { secret: _, ...shown } = created;
    expect((await t.as(owner).get('/webhooks')).json()).toEqual({ data: [shown], meta: { page: 1, limit: 20, total: 1, totalPages: 1 } });
    expect(await deliveries(owner, created.id)).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0, totalPages: 0 } });
    expect((await t.as(owner).delete(`/webhooks/${created.id}`)).statusCode).toBe(204);
    expectError(await t.as(owner).delete(`/webhooks/${created.id}`), 404, 'RESOURCE_NOT_FOUND');
    expect((await t.as(owner).get('/webhooks')).json().data).toEqual([]);
  });

  it('needs webhooks:read / webhooks:write, and owner or admin in a session; other organizations see nothing', async () => {
    const owner = await t.register();
    const member = await t.register();
    const stranger = await t.register();
    await t.addMember(owner, owner.organization.id, member, 'member');
    const hook = (await t.as(owner).post('/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['export.failed'] })).json();
    const reader = await t.createToken(owner, ['webhooks:read']);
    const newHook = { url: 'http://127.0.0.1:9/x', events: ['export.failed'], organizationId: owner.organization.id };
    const before = await t.rowCounts();

    expect((await t.as(reader).get('/webhooks')).json().meta.total).toBe(1);
    expect((await t.as(reader).get(`/webhooks/${hook.id}/deliveries`)).statusCode).toBe(200);
    expect(expectError(await t.as(reader).post('/webhooks', newHook), 403, 'INSUFFICIENT_PERMISSIONS').message).toBe(
      'Insufficient permissions. Required: webhooks:write',
    );
    expectError(await t.as(reader).delete(`/webhooks/${hook.id}`), 403, 'INSUFFICIENT_PERMISSIONS');

    expectError(await t.as(member).post('/webhooks', newHook), 403, 'INSUFFICIENT_PERMISSIONS');
    expectError(await t.as(member).delete(`/webhooks/${hook.id}`), 403, 'INSUFFICIENT_PERMISSIONS');
    expectError(await t.as(member).get(`/webhooks/${hook.id}/deliveries`), 403, 'INSUFFICIENT_PERMISSIONS');
    expectError(await t.as(member).get(`/webhooks?organizationId=${owner.organization.id}`), 403, 'INSUFFICIENT_PERMISSIONS');
    expect((await t.as(member).get('/webhooks')).json().meta.total).toBe(0);

    expectError(await t.as(stranger).delete(`/webhooks/${hook.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(stranger).get(`/webhooks/${hook.id}/deliveries`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(stranger).post('/webhooks', newHook), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(owner).get('/webhooks/nope/deliveries'), 404, 'RESOURCE_NOT_FOUND');
    expect(await t.rowCounts()).toEqual(before);
  });

  it('takes organizationId in the query too (SPEC §4)', async () => {
    const owner = await t.register();
    const second = (await t.as(owner).post('/organizations', { name: 'Hooks by query' })).json();
    const res = await t.as(owner).post(`/webhooks?organizationId=${second.id}`, { url: 'http://127.0.0.1:9/hook', events: ['export.failed'] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().organizationId).toBe(second.id);
  });

  it('refuses bad bodies with 400, creating nothing', async () => {
    const owner = await t.register();
    const before = await t.rowCounts();
    const bad = [
      { url: 'http://127.0.0.1:9/x', events: [] },
      { url: 'http://127.0.0.1:9/x', events: ['export.started'] },
      { url: 'http://127.0.0.1:9/x', events: ['export.failed', 'export.failed'] },
      { url: 'http://127.0.0.1:9/x' },
      { events: ['export.failed'] },
      { url: `http://127.0.0.1:9/${'x'.repeat(2100)}`, events: ['export.failed'] },
      { url: 'http://127.0.0.1:9/x', events: ['export.failed'], secret: 'mine' },
    ];
    for (const body of bad) expectError(await t.as(owner).post('/webhooks', body), 400, 'VALIDATION_ERROR');
    expect(await t.rowCounts()).toEqual(before);
  });
});

describe('refused targets (no SSRF)', () => {
  const refusedEverywhere = [
    ['ftp://public.test/x', 'must be an http or https URL'],
    ['not a url', 'must be an absolute http(s) URL'],
    ['http://10.0.0.1/x', 'must not point at a private address: 10.0.0.1'],
    ['http://172.16.5.4/', 'must not point at a private address: 172.16.5.4'],
    ['http://192.168.1.1/', 'must not point at a private address: 192.168.1.1'],
    ['http://100.64.0.1/', 'must not point at a private address: 100.64.0.1'],
    ['http://[fd00::1]/', 'must not point at a private address: fd00::1'],
    ['http://[::ffff:10.0.0.1]/', 'must not point at a private address: ::ffff:a00:1'],
    ['http://0x0a000001/', 'must not point at a private address: 10.0.0.1'],
    ['http://169.254.169.254/latest/meta-data/', 'must not point at a link-local address: 169.254.169.254'],
    ['http://[fe80::1]/', 'must not point at a link-local address: fe80::1'],
    ['http://224.0.0.1/', 'must not point at a multicast address: 224.0.0.1'],
    ['http://[ff02::1]/', 'must not point at a multicast address: ff02::1'],
    ['http://240.0.0.1/', 'must not point at a reserved address: 240.0.0.1'],
    ['http://192.0.2.10/', 'must not point at a reserved address: 192.0.2.10'],
    ['http://0.0.0.0/', 'must not point at an unspecified address: 0.0.0.0'],
    ['http://private.test/', 'must not point at a private address: private.test resolves to 10.1.2.3'],
    ['http://ula.test/', 'must not point at a private address: ula.test resolves to fd00::1'],
    ['http://metadata.test/', 'must not point at a link-local address: metadata.test resolves to 169.254.169.254'],
    ['http://nowhere.test/', 'has a host that does not resolve: nowhere.test'],
    // Credentials in the URL would be shown to every reader of GET /webhooks; the signature authenticates.
    ['https://user:secret@public.test/hook', 'must not carry a user name or password; deliveries are signed (webhook-signature)'],
    ['https://token@public.test/hook', 'must not carry a user name or password; deliveries are signed (webhook-signature)'],
  ];

  it.each(refusedEverywhere)('refuses %s with 400, creating nothing', async (url, reason) => {
    const owner = await t.register();
    const before = await t.rowCounts();
    const body = expectError(await t.as(owner).post('/webhooks', { url, events: ['export.failed'] }), 400, 'VALIDATION_ERROR');
    expect(body.message).toBe(`url ${reason}`);
    expect(body.details).toEqual([{ in: 'body', path: 'url', message: reason }]);
    expect(await t.rowCounts()).toEqual(before);
  });

  it('allows loopback (by address or by name) and public hosts outside production', async () => {
    const owner = await t.register();
    for (const url of ['http://127.0.0.1:9/x', 'http://[::1]:9/x', 'http://loop.test/x', 'https://public.test/hook']) {
      expect((await t.as(owner).post('/webhooks', { url, events: ['export.failed'] })).statusCode, url).toBe(201);
    }
  });

  describe('in production', () => {
    let production: Awaited<ReturnType<TestApp['anotherInstance']>>;
    let owner: RegisteredUser;

    beforeAll(async () => {
      production = await t.anotherInstance(
        {
          NODE_ENV: 'production',
          HTTPS_ENFORCE: 'false',
          // Only this file's main instance works off the shared queue.
          EXPORT_WORKER_IN_API: 'false',
          STORAGE_SIGNING_SECRET: 'production-signing-secret-0123456789abcdef',
          WEBHOOK_ALLOWED_HOSTS: 'internal.test, 10.9.0.0/16',
        },
        { resolveHost: hosts },
      );
      owner = await t.register();
    });

    it.each([
      ['http://public.test/hook', 'must be an https URL'],
      ['https://127.0.0.1/hook', 'must not point at a loopback address: 127.0.0.1'],
      ['https://[::1]/hook', 'must not point at a loopback address: ::1'],
      ['https://loop.test/hook', 'must not point at a loopback address: loop.test resolves to 127.0.0.1'],
      ['https://metadata.test/hook', 'must not point at a link-local address: metadata.test resolves to 169.254.169.254'],
      ['https://private.test/hook', 'must not point at a private address: private.test resolves to 10.1.2.3'],
    ])('refuses %s', async (url, reason) => {
      const before = await t.rowCounts();
      const body = expectError(await production.as(owner).post('/webhooks', { url, events: ['export.failed'] }), 400, 'VALIDATION_ERROR');
      expect(body.message).toBe(`url ${reason}`);
      expect(await t.rowCounts()).toEqual(before);
    });

    it('accepts a public https URL, and the WEBHOOK_ALLOWED_HOSTS exceptions (a name, a CIDR range)', async () => {
      for (const url of ['https://public.test/hook', 'https://internal.test/hook', 'https://ten-nine.test/hook']) {
        expect((await production.as(owner).post('/webhooks', { url, events: ['export.failed'] })).statusCode, url).toBe(201);
      }
    });
  });

  it('checks the address again at delivery, connects to that address, and sends nothing to a private one', async () => {
    const target = await receiver();
    hosts.set('rebind.test', '127.0.0.1');
    const { owner, webhook } = await subscribed(`http://rebind.test:${target.port}/hook`, ['export.succeeded']);
    // The name now resolves to a private address (DNS rebinding): the attempt is refused.
    hosts.set('rebind.test', '10.0.0.7');
    await exportOnce(owner);
    const refused = await pollUntil(t, owner, `/webhooks/${webhook.id}/deliveries`, (page) => page.data[0]?.attempts === 1);
    expect(refused.data[0]).toMatchObject({
      status: 'pending',
      lastStatusCode: null,
      lastError: 'Not sent: the URL must not point at a private address: rebind.test resolves to 10.0.0.7',
    });
    expect(target.requests).toEqual([]);

    // Back to the receiver's address: the retry goes to 127.0.0.1, with the name in Host.
    hosts.set('rebind.test', '127.0.0.1');
    const [request] = await target.received(1);
    expect(request!.headers.host).toBe(`rebind.test:${target.port}`);
    const done = await pollUntil(t, owner, `/webhooks/${webhook.id}/deliveries`, (page) => page.data[0]?.status !== 'pending');
    expect(done.data[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  });
});

describe('deliveries', () => {
  it('retries a failed delivery with the same webhook-id; each attempt is signed per Standard Webhooks', async () => {
    const target = await receiver();
    target.answer((_request, index) => ({ status: index === 0 ? 500 : 200 }));
    const { owner, webhook } = await subscribed(target.url(), ['export.succeeded']);
    const before = await deliveriesCounted();
    const exported = await exportOnce(owner);
    const [first, second] = await target.received(2);

    for (const attempt of [first!, second!]) {
      expect(attempt).toMatchObject({ method: 'POST', path: '/hooks' });
      expect(attempt.headers['content-type']).toBe('application/json');
      expect(attempt.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(signatureIsValid(webhook.secret, attempt.headers, attempt.body)).toBe(true);
      expect(signatureIsValid(webhook.secret, attempt.headers, attempt.body.replace('succeeded', 'failed'))).toBe(false);
      expect(Math.abs(Number(attempt.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body).toBe(first!.body);
    // The maintained implementation agrees (it also checks the timestamp is recent).
    expect(new Webhook(webhook.secret).verify(second!.body, second!.headers as Record<string, string>)).toMatchObject({ type: 'export.succeeded' });

    const message = JSON.parse(second!.body);
    expect(Object.keys(message)).toEqual(['type', 'timestamp', 'data']);
    expect(message.type).toBe('export.succeeded');
    expect(Date.parse(message.timestamp)).toBeGreaterThanOrEqual(Date.parse(exported.finishedAt));
    expect(withoutDownloadUrl(message.data)).toEqual(withoutDownloadUrl(exported));
    expect(message.data.downloadUrl).toEqual(expect.any(String));

    const log = await pollUntil(t, owner, `/webhooks/${webhook.id}/deliveries`, (page) => page.data[0]?.status === 'succeeded');
    expect(log.data).toEqual([
      {
        id: first!.headers['webhook-id'],
        event: 'export.succeeded',
        status: 'succeeded',
        attempts: 2,
        lastStatusCode: 200,
        lastError: null,
        createdAt: expect.any(String),
        deliveredAt: expect.any(String),
      },
    ]);
    // Each attempt is counted in /metrics: one failed, one delivered.
    expect(await deliveriesCounted()).toEqual({ failed: before.failed + 1, delivered: before.delivered + 1 });
  });

  it('does not follow redirects, and fails the delivery after its last attempt', async () => {
    const target = await receiver();
    target.answer(() => ({ status: 302, location: '/elsewhere' }));
    const { owner, webhook } = await subscribed(target.url(), ['export.succeeded']);
    await exportOnce(owner);
    const log = await pollUntil(t, owner, `/webhooks/${webhook.id}/deliveries`, (page) => page.data[0]?.status === 'failed', 30_000);
    expect(log.data[0]).toMatchObject({ attempts: 3, lastStatusCode: 302, lastError: 'The receiver answered 302 (redirects are not followed)', deliveredAt: null });
    expect(target.requests.map((r) => r.path)).toEqual(['/hooks', '/hooks', '/hooks']);
    expect(new Set(target.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect((await t.as(owner).get(`/webhooks/${webhook.id}/deliveries?status=succeeded`)).json().data).toEqual([]);
  });

  it('gives up on an attempt with no answer within the timeout, and retries', async () => {
    const target = await receiver();
    target.answer((_request, index) => (index === 0 ? 'hang' : { status: 204 }));
    const { owner, webhook } = await subscribed(target.url(), ['export.succeeded']);
    await exportOnce(owner);
    const timedOut = await pollUntil(t, owner, `/webhooks/${webhook.id}/deliveries`, (page) => page.data[0]?.attempts >= 1);
    expect(timedOut.data[0]).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: 'The request failed: no answer within 2 s' });
    const log = await pollUntil(t, owner, `/webhooks/${webhook.id}/deliveries`, (page) => page.data[0]?.status === 'succeeded');
    expect(log.data[0]).toMatchObject({ attempts: 2, lastStatusCode: 204 });
  });

  it('sends only the events subscribed to: export.failed carries the failed export', async () => {
    const target = await receiver();
    const { owner, webhook } = await subscribed(target.url(), ['export.failed']);
    await exportOnce(owner);
    const sample = await createSampleVariant(t, owner, { change: (game) => void (game.assets = game.assets.filter((a) => a.fileName !== 'logo.png')) });
    const failed = await waitForExport(t, owner, (await t.as(owner).post('/export', { variantId: sample.variant.id, network: 'unity' })).json().id);
    const [request] = await target.received(1);
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'export.failed', data: { ...failed, downloadUrl: null } });
    const log = await pollUntil(t, owner, `/webhooks/${webhook.id}/deliveries`, (page) => page.data[0]?.status === 'succeeded');
    expect(log.meta.total).toBe(1);
  });

  it('sends export_batch.finished with the batch as GET returns it', async () => {
    const target = await receiver();
    const { owner } = await subscribed(target.url(), ['export_batch.finished']);
    const sample = await createSampleVariant(t, owner);
    const created = (await t.as(owner).post('/export-batches', { variantIds: [sample.variant.id], networks: ['unity', 'snapchat'] })).json();
    const finished = await waitForBatch(t, owner, created.id);
    const [request] = await target.received(1);
    const message = JSON.parse(request!.body);
    expect(message.type).toBe('export_batch.finished');
    expect(withoutDownloadUrl(message.data)).toEqual(withoutDownloadUrl(finished));
    expect(message.data.downloadUrl).toEqual(expect.any(String));
    await new Promise((r) => setTimeout(r, 500));
    expect(target.requests).toHaveLength(1);
  });

  it('retries 8 times by default, the first retry within 10 s', () => {
    const { webhooks } = loadConfig(TEST_ENV);
    expect(webhooks).toMatchObject({ maxAttempts: 8, timeoutSeconds: 10, retryDelaySeconds: 4 });
    // pg-boss waits retryDelay × 2^(n-1) × (1 + random()) before the n-th retry: 4–8 s for the first.
    expect(webhooks.retryDelaySeconds * 2).toBeLessThan(10);
  });
});
