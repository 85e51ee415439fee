// CONTRACT §1, lists: page/limit/sort/order, the envelope, the edges, and stable ordering.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';

let t: TestApp;
let user: RegisteredUser;
let empty: RegisteredUser;
/** 25 games, all created at the same instant, so every order rests on the id tie-break. */
let gameIds: string[];

beforeAll(async () => {
  t = await createTestApp();
  user = await t.register();
  empty = await t.register();
  gameIds = Array.from({ length: 25 }, () => randomUUID());
  await t.sql(
    `INSERT INTO games (id, organization_id, name, created_at, updated_at)
     SELECT id, $1, 'Game ' || lpad(n::text, 2, '0'), '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z'
     FROM unnest($2::uuid[]) WITH ORDINALITY AS g(id, n)`,
    [user.organization.id, gameIds],
  );
});
afterAll(() => t.close());

const ids = (res: { json(): { data: Array<{ id: string }> } }) => res.json().data.map((g) => g.id);
const byId = (order: 'asc' | 'desc') => [...gameIds].sort((a, b) => (order === 'asc' ? a.localeCompare(b) : b.localeCompare(a)));

describe('list parameters', () => {
  it('defaults to page 1, limit 20, newest first', async () => {
    const res = await t.as(user).get('/games');
    expect(res.statusCode).toBe(200);
    expect(res.json().meta).toEqual({ page: 1, limit: 20, total: 25, totalPages: 2 });
    expect(ids(res)).toEqual(byId('desc').slice(0, 20));
  });

  it('breaks createdAt ties by id, in both directions, with pages that neither overlap nor skip', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await t.as(user).get(`/games?limit=10&page=${page}&order=${order}&sort=createdAt`);
        expect(res.json().meta).toEqual({ page, limit: 10, total: 25, totalPages: 3 });
        seen.push(...ids(res));
      }
      expect(seen).toEqual(byId(order));
    }
  });

  it('sorts by name and updatedAt', async () => {
    const asc = (await t.as(user).get('/games?sort=name&order=asc&limit=3')).json().data.map((g: { name: string }) => g.name);
    expect(asc).toEqual(['Game 01', 'Game 02', 'Game 03']);
    const desc = (await t.as(user).get('/games?sort=name&order=desc&limit=1')).json().data[0].name;
    expect(desc).toBe('Game 25');
    expect(ids(await t.as(user).get('/games?sort=updatedAt&order=asc&limit=100'))).toEqual(byId('asc'));
  });

  it('answers a page past the end with 200, no data and the right meta', async () => {
    const res = await t.as(user).get('/games?page=4&limit=10');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [], meta: { page: 4, limit: 10, total: 25, totalPages: 3 } });
    const huge = await t.as(user).get('/games?page=1000000000');
    expect(huge.json()).toEqual({ data: [], meta: { page: 1000000000, limit: 20, total: 25, totalPages: 2 } });
  });

  it('computes totalPages as ceil(total / limit), 0 when empty', async () => {
    for (const [limit, totalPages] of [
      [1, 25],
      [24, 2],
      [25, 1],
      [100, 1],
    ] as const) {
      expect((await t.as(user).get(`/games?limit=${limit}`)).json().meta.totalPages).toBe(totalPages);
    }
    expect((await t.as(empty).get('/games')).json()).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0, totalPages: 0 } });
  });

  it.each([
    ['limit=101', 'must be at most 100'],
    ['limit=0', 'must be at least 1'],
    ['page=0', 'must be at least 1'],
    ['limit=2.5', 'must be a whole number written in decimal digits'],
  ])('says what is wrong with %s', async (query, message) => {
    const [parameter] = query.split('=');
    const error = expectError(await t.as(user).get(`/games?${query}`), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ in: 'query', path: parameter, message }]);
  });

  it.each([
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['limit=-5', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=2.5', 'limit'],
    ['limit=', 'limit'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['page=abc', 'page'],
    ['page=0x10', 'page'],
    ['page=1e1', 'page'],
    ['page=1&page=2', 'page'],
    ['sort=id', 'sort'],
    ['sort=password', 'sort'],
    ['order=up', 'order'],
    ['order=ASC', 'order'],
  ])('refuses %s with 400 VALIDATION_ERROR naming the parameter', async (query, parameter) => {
    const error = expectError(await t.as(user).get(`/games?${query}`), 400, 'VALIDATION_ERROR');
    expect(error.details).toContainEqual({ in: 'query', path: parameter, message: expect.any(String) });
  });

  it('applies the same rules on every list endpoint', async () => {
    for (const url of ['/games', '/tokens', '/organizations', `/organizations/${user.organization.id}/members`]) {
      expectError(await t.as(user).get(`${url}?limit=101`), 400, 'VALIDATION_ERROR');
      expectError(await t.as(user).get(`${url}?page=0`), 400, 'VALIDATION_ERROR');
      expectError(await t.as(user).get(`${url}?order=sideways`), 400, 'VALIDATION_ERROR');
      expectError(await t.as(user).get(`${url}?sort=nope`), 400, 'VALIDATION_ERROR');
      const res = await t.as(user).get(`${url}?page=50&limit=100`);
      expect(res.statusCode, url).toBe(200);
      expect(res.json().data, url).toEqual([]);
      expect(res.json().meta, url).toMatchObject({ page: 50, limit: 100 });
    }
  });
});
