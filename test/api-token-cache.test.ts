// The in-process API-token cache (src/plugins/token-cache.ts) must not weaken revocation: a
// token revoked through any instance is refused by every instance at once (LISTEN/NOTIFY,
// src/plugins/token-revocations.ts), also after the listening connection was lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTENER_NAME } from '../src/plugins/token-revocations.js';
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

  it('refuses a token revoked on another instance at once, long before the TTL', async () => {
    const cached = await createTestApp({ API_TOKEN_CACHE_SECONDS: '300' });
    try {
      const other = await cached.anotherInstance();
      const owner = await cached.register();
      const token = await cached.createToken(owner, ['games:read']);
      await waitUntilListening(cached, 2);
      expect((await other.as(token).get('/games')).statusCode).toBe(200); // cached there for 300 s
      expect((await other.as(token).get('/games')).statusCode).toBe(200);
      expect((await cached.as(owner).delete(`/tokens/${token.id}`)).statusCode).toBe(204);
      expect(await statusOnceSettled(() => other.as(token).get('/games'))).toBe(401);
    } finally {
      await cached.close();
    }
  });

  it('listens again after losing its connection, and trusts no cached token meanwhile', async () => {
    const cached = await createTestApp({ API_TOKEN_CACHE_SECONDS: '300' });
    try {
      const other = await cached.anotherInstance();
      const owner = await cached.register();
      const [first, second] = [await cached.createToken(owner, ['games:read']), await cached.createToken(owner, ['games:read'])];
      await waitUntilListening(cached, 2);
      expect((await other.as(first).get('/games')).statusCode).toBe(200);

      // Both listeners are cut off; a revocation made meanwhile would not be heard...
      await cached.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, [LISTENER_NAME]);
      await cached.sql('UPDATE api_tokens SET revoked_at = now() WHERE id = $1', [first.id]); // no broadcast at all
      // ...so nothing cached before counts: the next use reads the row.
      expect(await statusOnceSettled(() => other.as(first).get('/games'))).toBe(401);

      // Reconnected, the cache works again and hears revocations.
      await waitUntilListening(cached, 2);
      expect((await other.as(second).get('/games')).statusCode).toBe(200);
      expect((await cached.as(owner).delete(`/tokens/${second.id}`)).statusCode).toBe(204);
      expect(await statusOnceSettled(() => other.as(second).get('/games'))).toBe(401);
    } finally {
      await cached.close();
    }
  });
});

/** Waits until `count` instances LISTEN for revocations on the test's database. */
async function waitUntilListening(app: TestApp, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [row] = await app.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND query LIKE 'LISTEN%'`,
      [LISTENER_NAME],
    );
    if (row!.n === count) return;
    if (Date.now() > deadline) throw new Error(`${row!.n} of ${count} instances listen for revocations`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The status once a notification had time to arrive: polls until it is no longer 200, for at
 * most 5 s — far below the 300 s cache TTL, so a 401 here comes from the broadcast.
 */
async function statusOnceSettled(request: () => Promise<{ statusCode: number }>): Promise<number> {
  const deadline = Date.now() + 5_000;
  let status = (await request()).statusCode;
  while (status === 200 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    status = (await request()).statusCode;
  }
  return status;
}
