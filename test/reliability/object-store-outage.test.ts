// Object store unreachable (the S3 store pointed at a closed port): endpoints that must talk to
// the store answer 503 SERVICE_UNAVAILABLE with the contract's body, readiness says so, and
// everything that needs only the database — games above all — keeps working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../global-setup.js';
import { createTestApp, expectError, type TestApp, type TokenCaller } from '../helpers/app.js';

let t: TestApp;
let token: TokenCaller;

beforeAll(async () => {
  const closedPort = await freePort(); // nothing listens here
  t = await createTestApp({
    S3_BUCKET: 'unreachable',
    S3_ENDPOINT: `http://127.0.0.1:${closedPort}`,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'test',
    S3_SECRET_ACCESS_KEY: 'test',
    S3_FORCE_PATH_STYLE: 'true',
  });
  const alice = await t.register();
  token = await t.createToken(alice, ['games:write', 'assets:write']);
});
afterAll(() => t.close());

describe('object store unreachable', () => {
  it('answers 503 where the store is needed and keeps games working', async () => {
    // Signing an upload URL is local computation: the client PUTs to the store directly.
    const upload = await t.as(token).post('/storage/urls', { fileName: 'hero.png', contentType: 'image/png' });
    expect(upload.statusCode).toBe(201);
    const { assetId } = upload.json();

    expectError(await t.as(token).post(`/assets/${assetId}/complete`), 503, 'SERVICE_UNAVAILABLE');
    expectError(await t.as(token).get(`/assets/${assetId}`), 503, 'SERVICE_UNAVAILABLE');
    const ready = await t.as(null).get('/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ error: 'SERVICE_UNAVAILABLE', checks: { database: 'ok' } });

    const game = await t.as(token).post('/games', { name: 'Still here' });
    expect(game.statusCode).toBe(201);
    expect((await t.as(token).get(`/games/${game.json().id}`)).statusCode).toBe(200);
    expect((await t.as(token).get('/games')).json().meta.total).toBe(1);
    expect((await t.as(token).get('/assets')).statusCode).toBe(200);
    expect((await t.as(null).get('/health')).statusCode).toBe(200);
  });

  it('refuses to delete an asset it cannot delete from the store, and keeps the asset', async () => {
    const { assetId } = (await t.as(token).post('/storage/urls', { fileName: 'level.json', contentType: 'application/json' })).json();
    expectError(await t.as(token).delete(`/assets/${assetId}`), 503, 'SERVICE_UNAVAILABLE');
    expect((await t.sql('SELECT id FROM assets WHERE id = $1', [assetId])).length).toBe(1);
  });
});
