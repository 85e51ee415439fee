// CONTRACT §4: organizations, members and roles, the last owner, organizationId resolution.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp } from './helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const membersOf = async (caller: RegisteredUser, organizationId: string) =>
  (await t.as(caller).get(`/organizations/${organizationId}/members`)).json().data as Array<{ userId: string; role: string }>;

describe('POST /organizations and GET /organizations', () => {
  it('creates an organization owned by its creator and lists it', async () => {
    const user = await t.register();
    const res = await t.as(user).post('/organizations', { name: 'Studio' });
    expect(res.statusCode).toBe(201);
    const org = res.json();
    expect(org).toEqual({ id: expect.any(String), name: 'Studio', role: 'owner', createdAt: expect.any(String), updatedAt: expect.any(String) });

    const list = (await t.as(user).get('/organizations')).json();
    expect(list.meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(list.data.map((o: { id: string }) => o.id).sort()).toEqual([user.organization.id, org.id].sort());
    // One organization also shows its storage against the quota (CONTRACT §8).
    expect((await t.as(user).get(`/organizations/${org.id}`)).json()).toEqual({ ...org, usage: { storageBytes: 0, quotaBytes: 10 * 1024 ** 3 } });
  });

  it('shows an API token its own organization only, with role null', async () => {
    const user = await t.register();
    await t.as(user).post('/organizations', { name: 'Second' });
    const token = await t.createToken(user, ['games:read'], { organizationId: user.organization.id });
    const list = (await t.as(token).get('/organizations')).json();
    expect(list.data).toEqual([expect.objectContaining({ id: user.organization.id, role: null })]);
  });

  it('refuses a bad name with 400, creating nothing', async () => {
    const user = await t.register();
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(201) }, { name: 'ok', extra: 1 }, { name: 'tab\there' }]) {
      const before = await t.rowCounts();
      expectError(await t.as(user).post('/organizations', body), 400, 'VALIDATION_ERROR');
      expect(await t.rowCounts()).toEqual(before);
    }
  });
});

describe('members', () => {
  it('lets an owner add members by e-mail with a role, and list them', async () => {
    const owner = await t.register();
    const admin = await t.register();
    const member = await t.register();
    const res = await t.as(owner).post(`/organizations/${owner.organization.id}/members`, {
      email: admin.user.email.toUpperCase(),
      role: 'admin',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ userId: admin.user.id, email: admin.user.email, name: admin.user.name, role: 'admin', createdAt: expect.any(String) });
    await t.addMember(admin, owner.organization.id, member, 'member');

    const members = await membersOf(owner, owner.organization.id);
    expect(members.map((m) => [m.userId, m.role]).sort()).toEqual(
      [
        [owner.user.id, 'owner'],
        [admin.user.id, 'admin'],
        [member.user.id, 'member'],
      ].sort(),
    );
  });

  it('answers 409 for a user who is already a member, 404 for an unknown e-mail, 400 for a bad role', async () => {
    const owner = await t.register();
    const other = await t.register();
    await t.addMember(owner, owner.organization.id, other, 'member');
    const url = `/organizations/${owner.organization.id}/members`;
    const before = await t.rowCounts();
    expectError(await t.as(owner).post(url, { email: other.user.email, role: 'admin' }), 409, 'DUPLICATE_RESOURCE');
    expectError(await t.as(owner).post(url, { email: 'nobody@example.com', role: 'member' }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(owner).post(url, { email: other.user.email, role: 'superuser' }), 400, 'VALIDATION_ERROR');
    expect(await t.rowCounts()).toEqual(before);
  });

  it('keeps members out of member management (403), and admins from making owners', async () => {
    const owner = await t.register();
    const admin = await t.register();
    const member = await t.register();
    const outsider = await t.register();
    await t.addMember(owner, owner.organization.id, admin, 'admin');
    await t.addMember(owner, owner.organization.id, member, 'member');
    const url = `/organizations/${owner.organization.id}/members`;

    expectError(await t.as(member).get(url), 403, 'INSUFFICIENT_PERMISSIONS');
    expectError(await t.as(member).post(url, { email: outsider.user.email, role: 'member' }), 403, 'INSUFFICIENT_PERMISSIONS');
    expectError(await t.as(member).delete(`${url}/${admin.user.id}`), 403, 'INSUFFICIENT_PERMISSIONS');
    expectError(await t.as(admin).post(url, { email: outsider.user.email, role: 'owner' }), 403, 'INSUFFICIENT_PERMISSIONS');
    expectError(await t.as(admin).delete(`${url}/${owner.user.id}`), 403, 'INSUFFICIENT_PERMISSIONS');
    expect((await membersOf(owner, owner.organization.id)).length).toBe(3);
  });

  it('lets owners and admins remove members, and anyone leave', async () => {
    const owner = await t.register();
    const admin = await t.register();
    const member = await t.register();
    const leaver = await t.register();
    for (const [user, role] of [
      [admin, 'admin'],
      [member, 'member'],
      [leaver, 'member'],
    ] as const) {
      await t.addMember(owner, owner.organization.id, user, role);
    }
    const url = `/organizations/${owner.organization.id}/members`;
    expect((await t.as(admin).delete(`${url}/${member.user.id}`)).statusCode).toBe(204);
    expect((await t.as(leaver).delete(`${url}/${leaver.user.id}`)).statusCode).toBe(204);
    expect((await membersOf(owner, owner.organization.id)).map((m) => m.userId).sort()).toEqual([owner.user.id, admin.user.id].sort());
    // A removed member no longer reaches the organization's data.
    expectError(await t.as(member).get(`/games?organizationId=${owner.organization.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(owner).delete(`${url}/${member.user.id}`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('never removes the last owner (409), but removes an owner who is not the last', async () => {
    const owner = await t.register();
    const second = await t.register();
    const url = `/organizations/${owner.organization.id}/members`;
    const before = await t.rowCounts();
    expectError(await t.as(owner).delete(`${url}/${owner.user.id}`), 409, 'DUPLICATE_RESOURCE');
    expect(await t.rowCounts()).toEqual(before);

    await t.addMember(owner, owner.organization.id, second, 'owner');
    expect((await t.as(second).delete(`${url}/${owner.user.id}`)).statusCode).toBe(204);
    expectError(await t.as(second).delete(`${url}/${second.user.id}`), 409, 'DUPLICATE_RESOURCE');
  });

  it('keeps one owner when two owners remove each other at the same time', async () => {
    const a = await t.register();
    const b = await t.register();
    await t.addMember(a, a.organization.id, b, 'owner');
    const url = `/organizations/${a.organization.id}/members`;
    const results = await Promise.all([t.as(a).delete(`${url}/${b.user.id}`), t.as(b).delete(`${url}/${a.user.id}`)]);
    // The second to get the lock is no longer a member by then: 404, as for anyone outside.
    expect(results.map((r) => r.statusCode).sort()).toEqual([204, 404]);
    const owners = await t.sql(`SELECT user_id FROM memberships WHERE organization_id = $1 AND role = 'owner'`, [a.organization.id]);
    expect(owners).toHaveLength(1);
  });
});

describe("changing a member's role (PATCH /organizations/{id}/members/{userId})", () => {
  /** An organization with an owner, an admin and a member. */
  async function team() {
    const owner = await t.register();
    const [admin, member] = [await t.register(), await t.register()];
    const organizationId = owner.organization.id;
    await t.addMember(owner, organizationId, admin, 'admin');
    await t.addMember(owner, organizationId, member, 'member');
    const url = (user: RegisteredUser) => `/organizations/${organizationId}/members/${user.user.id}`;
    return { owner, admin, member, organizationId, url };
  }

  it('lets owners change any role and admins those of admins and members, answering the member', async () => {
    const { owner, admin, member, organizationId, url } = await team();
    const promoted = await t.as(owner).patch(url(member), { role: 'admin' });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json()).toEqual({ userId: member.user.id, email: member.user.email, name: member.user.name, role: 'admin', createdAt: expect.any(String) });
    expect((await t.as(admin).patch(url(member), { role: 'member' })).json().role).toBe('member');
    expect((await membersOf(owner, organizationId)).find((m) => m.userId === member.user.id)?.role).toBe('member');

    const outsider = await t.register();
    const token = await t.createToken(owner, ['games:write'], { organizationId });
    const before = await t.rowCounts();
    const roles = await t.sql('SELECT user_id, role FROM memberships WHERE organization_id = $1 ORDER BY user_id', [organizationId]);
    // Only an owner makes an owner or changes an owner's role; a member changes none.
    expectError(await t.as(admin).patch(url(member), { role: 'owner' }), 403, 'INSUFFICIENT_PERMISSIONS');
    expectError(await t.as(admin).patch(url(owner), { role: 'member' }), 403, 'INSUFFICIENT_PERMISSIONS');
    expectError(await t.as(member).patch(url(admin), { role: 'member' }), 403, 'INSUFFICIENT_PERMISSIONS');
    // Outsiders, unknown members and bad bodies.
    expectError(await t.as(outsider).patch(url(member), { role: 'admin' }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(owner).patch(url(outsider), { role: 'admin' }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(owner).patch(`/organizations/${organizationId}/members/not-a-uuid`, { role: 'admin' }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(owner).patch(url(member), { role: 'boss' }), 400, 'VALIDATION_ERROR');
    expectError(await t.as(owner).patch(url(member), { role: 'admin', extra: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await t.as(owner).patch(url(member), {}), 400, 'VALIDATION_ERROR');
    // A browser session's business, like the other member endpoints.
    expectError(await t.as(token).patch(url(member), { role: 'admin' }), 403, 'INSUFFICIENT_PERMISSIONS');
    expect(await t.rowCounts()).toEqual(before);
    expect(await t.sql('SELECT user_id, role FROM memberships WHERE organization_id = $1 ORDER BY user_id', [organizationId])).toEqual(roles);
  });

  it('never demotes the last owner (409); with two owners, one may demote the other or itself', async () => {
    const { owner, admin, url } = await team();
    expectError(await t.as(owner).patch(url(owner), { role: 'admin' }), 409, 'DUPLICATE_RESOURCE');
    expect((await t.as(owner).patch(url(admin), { role: 'owner' })).statusCode).toBe(200);
    expect((await t.as(admin).patch(url(owner), { role: 'member' })).json().role).toBe('member');
    expectError(await t.as(admin).patch(url(admin), { role: 'member' }), 409, 'DUPLICATE_RESOURCE');
  });

  it('lets one of two owners demoting each other at once win; the other is no longer an owner by then (403)', async () => {
    const [a, b, c] = [await t.register(), await t.register(), await t.register()];
    const organizationId = a.organization.id;
    await t.addMember(a, organizationId, b, 'owner');
    await t.addMember(a, organizationId, c, 'owner');
    const url = (user: RegisteredUser) => `/organizations/${organizationId}/members/${user.user.id}`;
    const results = await Promise.all([t.as(a).patch(url(b), { role: 'member' }), t.as(b).patch(url(a), { role: 'member' })]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 403]);
    const owners = await t.sql(`SELECT user_id FROM memberships WHERE organization_id = $1 AND role = 'owner'`, [organizationId]);
    expect(owners).toHaveLength(2);
  });

  it('revokes the API tokens an owner or admin created there on demotion to member (CONTRACT §8)', async () => {
    const { owner, admin, organizationId, url } = await team();
    const token = await t.createToken(admin, ['games:read'], { organizationId });
    expect((await t.as(token).get('/games')).statusCode).toBe(200);
    // admin → owner → admin keeps the token; → member ends it, for good.
    expect((await t.as(owner).patch(url(admin), { role: 'owner' })).statusCode).toBe(200);
    expect((await t.as(owner).patch(url(admin), { role: 'admin' })).statusCode).toBe(200);
    expect((await t.as(token).get('/games')).statusCode).toBe(200);
    expect((await t.as(owner).patch(url(admin), { role: 'member' })).statusCode).toBe(200);
    expectError(await t.as(token).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    expect((await t.as(owner).patch(url(admin), { role: 'admin' })).statusCode).toBe(200);
    expectError(await t.as(token).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
  });
});

describe('organizationId resolution (CONTRACT §4)', () => {
  it('defaults to the only organization of a session user', async () => {
    const user = await t.register();
    const game = (await t.as(user).post('/games', { name: 'Default' })).json();
    expect(game.organizationId).toBe(user.organization.id);
  });

  it('requires it from a session user in several organizations (400), and accepts it', async () => {
    const user = await t.register();
    const second = (await t.as(user).post('/organizations', { name: 'Two' })).json();
    const before = await t.rowCounts();
    const error = expectError(await t.as(user).post('/games', { name: 'Which?' }), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([expect.objectContaining({ in: 'body', path: 'organizationId' })]);
    expect(await t.rowCounts()).toEqual(before);
    const game = (await t.as(user).post('/games', { name: 'There', organizationId: second.id })).json();
    expect(game.organizationId).toBe(second.id);
  });

  it("defaults to an API token's organization and treats any other as not found", async () => {
    const user = await t.register();
    const other = await t.register();
    const token = await t.createToken(user, ['games:write']);
    expect((await t.as(token).post('/games', { name: 'Mine' })).json().organizationId).toBe(user.organization.id);
    expect((await t.as(token).post('/games', { name: 'Mine too', organizationId: user.organization.id })).statusCode).toBe(201);
    expectError(await t.as(token).post('/games', { name: 'Theirs', organizationId: other.organization.id }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(token).get(`/games?organizationId=${other.organization.id}`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('takes it in the query of a create as well as in the body (SPEC §4); both, differing, is 400', async () => {
    const user = await t.register();
    const second = (await t.as(user).post('/organizations', { name: 'By query' })).json();
    const query = `?organizationId=${second.id}`;
    const game = await t.as(user).post(`/games${query}`, { name: 'Named in the query' });
    expect(game.statusCode, game.body).toBe(201);
    expect(game.json().organizationId).toBe(second.id);
    const upload = await t.as(user).post(`/storage/urls${query}`, { fileName: 'logo.png', contentType: 'image/png' });
    expect(upload.statusCode, upload.body).toBe(201);
    expect((await t.as(user).get(`/assets/${upload.json().assetId}`)).json().organizationId).toBe(second.id);
    const token = await t.as(user).post(`/tokens${query}`, { name: 'Named in the query', scopes: ['games:write'] });
    expect(token.statusCode, token.body).toBe(201);
    expect(token.json().organizationId).toBe(second.id);
    // The same organization in both is fine.
    expect((await t.as(user).post(`/games${query}`, { name: 'In both', organizationId: second.id })).statusCode).toBe(201);

    const other = await t.register();
    const bearer = await t.createToken(user, ['games:write'], { organizationId: user.organization.id });
    const before = await t.rowCounts();
    const differing = expectError(await t.as(user).post(`/games${query}`, { name: 'Which?', organizationId: user.organization.id }), 400, 'VALIDATION_ERROR');
    expect(differing.details).toEqual([expect.objectContaining({ in: 'query', path: 'organizationId' })]);
    // An API token naming another organization in the query: 404, as in the body.
    expectError(await t.as(bearer).post(`/games?organizationId=${other.organization.id}`, { name: 'Theirs' }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await t.as(user).post(`/games?organizationId=${other.organization.id}`, { name: 'Theirs' }), 404, 'RESOURCE_NOT_FOUND');
    expect(await t.rowCounts()).toEqual(before);
  });

  it('answers 404 for an organization the caller is not in, or a malformed id', async () => {
    const user = await t.register();
    const other = await t.register();
    for (const organizationId of [other.organization.id, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      expectError(await t.as(user).post('/games', { name: 'x', organizationId }), 404, 'RESOURCE_NOT_FOUND');
      expectError(await t.as(user).get(`/games?organizationId=${organizationId}`), 404, 'RESOURCE_NOT_FOUND');
    }
  });

  it('narrows a list to one organization, which otherwise shows all of the caller’s', async () => {
    const user = await t.register();
    const second = (await t.as(user).post('/organizations', { name: 'Narrow' })).json();
    await t.as(user).post('/games', { name: 'In first', organizationId: user.organization.id });
    await t.as(user).post('/games', { name: 'In second', organizationId: second.id });
    expect((await t.as(user).get('/games')).json().meta.total).toBe(2);
    const narrowed = (await t.as(user).get(`/games?organizationId=${second.id}`)).json();
    expect(narrowed.data.map((g: { name: string }) => g.name)).toEqual(['In second']);
  });
});
