// meta.total from the trigger-kept count, and keyset pagination (cursor → meta.nextCursor)
// beside page/limit. See README "Performance".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';

let t: TestApp;
let alice: RegisteredUser;

beforeAll(async () => {
  t = await createTestApp();
  alice = await t.register();
});
afterAll(() => t.close());

/** Follows nextCursor from the first page to the last; returns the names in order. */
async function walk(query: string): Promise<{ names: string[]; pages: number[] }> {
  const names: string[] = [];
  const pages: number[] = [];
  let url = `/games?${query}&cursor=`;
  for (;;) {
    const res = await t.as(alice).get(url);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    names.push(...body.data.map((g: { name: string }) => g.name));
    pages.push(body.meta.page);
    if (body.meta.nextCursor === null) return { names, pages };
    url = `/games?${query}&cursor=${encodeURIComponent(body.meta.nextCursor)}`;
  }
}

describe('games list: total and cursors', () => {
  it('keeps meta.total exact through creates and deletes, per organization', async () => {
    const other = (await t.as(alice).post('/organizations', { name: 'Second' })).json();
    const before = (await t.as(alice).get(`/games?organizationId=${alice.organization.id}`)).json().meta.total;
    const created = [];
    for (const name of ['Total A', 'Total B', 'Total C']) {
      created.push((await t.as(alice).post('/games', { name, organizationId: alice.organization.id })).json());
    }
    await t.as(alice).post('/games', { name: 'Elsewhere', organizationId: other.id });
    await t.as(alice).delete(`/games/${created[0].id}`);

    const mine = (await t.as(alice).get(`/games?organizationId=${alice.organization.id}`)).json().meta;
    expect(mine.total).toBe(before + 2);
    const [row] = await t.sql<{ count: number }>('SELECT count(*)::int AS count FROM games WHERE organization_id = $1', [alice.organization.id]);
    const count = row!.count;
    expect(mine.total).toBe(count);
    // A user in both organizations sees the sum; a text filter counts exactly too.
    expect((await t.as(alice).get('/games')).json().meta.total).toBe(count + 1);
    expect((await t.as(alice).get(`/games?organizationId=${alice.organization.id}&q=total`)).json().meta.total).toBe(2);
  });

  it('walks every game once, in order, by cursor, for each sort', async () => {
    const org = (await t.as(alice).post('/organizations', { name: 'Walk' })).json();
    // Five games with one identical createdAt: ties must be broken by id, not lost or repeated.
    for (const name of ['w1', 'w2', 'w3', 'w4', 'w5']) await t.as(alice).post('/games', { name, organizationId: org.id });
    await t.sql(`UPDATE games SET created_at = '2030-01-01T00:00:00Z' WHERE organization_id = $1`, [org.id]);

    for (const [sort, order] of [
      ['createdAt', 'desc'],
      ['createdAt', 'asc'],
      ['name', 'asc'],
      ['updatedAt', 'desc'],
    ]) {
      const query = `organizationId=${org.id}&limit=2&sort=${sort}&order=${order}`;
      const byPage = [];
      for (const page of [1, 2, 3]) byPage.push(...(await t.as(alice).get(`/games?${query}&page=${page}`)).json().data.map((g: { name: string }) => g.name));
      const { names, pages } = await walk(query);
      expect(names).toEqual(byPage);
      expect(new Set(names).size).toBe(5);
      expect(pages).toEqual([1, 2, 3]);
    }
    expect((await walk(`organizationId=${org.id}&limit=2&sort=name&order=asc`)).names).toEqual(['w1', 'w2', 'w3', 'w4', 'w5']);
  });

  it("keeps SPEC's meta unless cursors are asked for, and ends with nextCursor null", async () => {
    const plain = await t.as(alice).get('/games?limit=1');
    expect(Object.keys(plain.json().meta).sort()).toEqual(['limit', 'page', 'total', 'totalPages']);
    const last = await t.as(alice).get('/games?limit=100&cursor=');
    expect(last.json().meta).toMatchObject({ page: 1, limit: 100, nextCursor: null });
    expect(Object.keys(last.json().meta).sort()).toEqual(['limit', 'nextCursor', 'page', 'total', 'totalPages']);
  });

  it('refuses a malformed cursor or one made for another sort with 400', async () => {
    const first = (await t.as(alice).get('/games?limit=1&sort=name&order=asc&cursor=')).json();
    expect(first.meta.nextCursor).toEqual(expect.any(String));
    const cursor = encodeURIComponent(first.meta.nextCursor);
    const mismatch = expectError(await t.as(alice).get(`/games?limit=1&cursor=${cursor}`), 400, 'VALIDATION_ERROR');
    expect(mismatch.details?.[0]).toMatchObject({ in: 'query', path: 'cursor' });
    expectError(await t.as(alice).get('/games?cursor=not-a-cursor'), 400, 'VALIDATION_ERROR');
    const forged = Buffer.from(JSON.stringify([2, 'name', 'asc', { s: 'x' }, 'not-a-uuid'])).toString('base64url');
    expectError(await t.as(alice).get(`/games?sort=name&order=asc&cursor=${forged}`), 400, 'VALIDATION_ERROR');
    expectError(await t.as(alice).get(`/games?cursor=${'a'.repeat(600)}`), 400, 'VALIDATION_ERROR');
  });
});
