// The in-process API-token cache (src/plugins/token-cache.ts) must not weaken revocation on
// the instance that revoked, and its cross-instance delay is bounded by the TTL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createDatabase } from '../src/db/client.js';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';

const TTL_SECONDS = 2;
let t: TestApp;
let alice: RegisteredUser;

beforeAll(async () => {
  t = await createTestApp({ API_TOKEN_CACHE_SECONDS: String(TTL_SECONDS) });
  alice = await t.register();
});
afterAll(() => t.close());

describe('API-token cache', () => {
  it('refuses a revoked token at once on the instance that revoked it', async () => {
    const token = await t.createToken(alice, ['games:read']);
    expect((await t.as(token).get('/games')).statusCode).toBe(200); // now cached
    expect((await t.as(alice).delete(`/tokens/${token.id}`)).statusCode).toBe(204);
    expectError(await t.as(token).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('writes lastUsedAt on first use, not on every request', async () => {
    const token = await t.createToken(alice, ['games:read']);
    await t.as(token).get('/games');
    const [first] = await t.sql<{ last_used_at: Date }>('SELECT last_used_at FROM api_tokens WHERE id = $1', [token.id]);
    expect(first?.last_used_at).toBeInstanceOf(Date);
    for (let i = 0; i < 5; i++) await t.as(token).get('/games');
    const [after] = await t.sql<{ last_used_at: Date }>('SELECT last_used_at FROM api_tokens WHERE id = $1', [token.id]);
    expect(after?.last_used_at.getTime()).toBe(first?.last_used_at.getTime());
  });

  it('lets another instance accept a revoked token for at most the TTL', async () => {
    const db = createDatabase(t.databaseUrl, 2);
    const other = await buildApp(t.config, { db });
    try {
      const token = await t.createToken(alice, ['games:read']);
      const viaOther = () => other.inject({ url: '/api/games', headers: token.headers });
      expect((await viaOther()).statusCode).toBe(200);
      await t.as(alice).delete(`/tokens/${token.id}`);
      const revokedAt = Date.now();
      let status = (await viaOther()).statusCode;
      while (status === 200 && Date.now() - revokedAt < (TTL_SECONDS + 1) * 1000) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await viaOther()).statusCode;
      }
      expect(status).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThanOrEqual((TTL_SECONDS + 0.5) * 1000);
    } finally {
      await other.close();
      await db.$disconnect();
    }
  });
});
