// CONTRACT §8, API tokens (issue #9 findings 2 and 3): a token acts for its creator and stops
// working once the creator no longer manages its organization; a token made by a token never
// outlives its parent, dies with it, and may revoke only itself and what descends from it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type RegisteredUser, type TestApp, type TokenCaller } from './helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const listed = async (caller: RegisteredUser | TokenCaller, id: string) =>
  (await t.as(caller).get('/tokens?limit=100')).json().data.find((x: { id: string }) => x.id === id);

/** An organization with its owner and an admin who creates tokens there. */
async function organizationWithAdmin() {
  const owner = await t.register();
  const admin = await t.register();
  await t.addMember(owner, owner.organization.id, admin, 'admin');
  const asAdmin = (scopes: string[], extra: Record<string, unknown> = {}) => t.createToken(admin, scopes, { organizationId: owner.organization.id, ...extra });
  return { owner, admin, organizationId: owner.organization.id, asAdmin };
}

const works = async (token: TokenCaller) => (await t.as(token).get('/games')).statusCode;

describe("a token acts for its creator's role", () => {
  it('stops working at once when the creator is removed, and so do the tokens it made', async () => {
    const { owner, admin, organizationId, asAdmin } = await organizationWithAdmin();
    const token = await asAdmin(['games:read', 'tokens:write']);
    const child = await t.createToken(token, ['games:read']);
    expect(await works(token)).toBe(200); // both now in the token cache
    expect(await works(child)).toBe(200);

    expect((await t.as(owner).delete(`/organizations/${organizationId}/members/${admin.user.id}`)).statusCode).toBe(204);
    for (const revoked of [token, child]) {
      expectError(await t.as(revoked).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
      expect((await listed(owner, revoked.id)).revokedAt).toEqual(expect.any(String));
    }
    // Adding the user back does not bring the revoked tokens back.
    await t.addMember(owner, organizationId, admin, 'admin');
    expectError(await t.as(token).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('stops working when the creator leaves the organization themselves', async () => {
    const { admin, organizationId, asAdmin } = await organizationWithAdmin();
    const token = await asAdmin(['games:read']);
    expect(await works(token)).toBe(200);
    expect((await t.as(admin).delete(`/organizations/${organizationId}/members/${admin.user.id}`)).statusCode).toBe(204);
    expectError(await t.as(token).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('is refused while its creator is a plain member (demoted outside the API): the role is checked on use', async () => {
    const { admin, organizationId, asAdmin } = await organizationWithAdmin();
    const token = await asAdmin(['games:read']);
    const setRole = (role: string) =>
      t.sql('UPDATE memberships SET role = $1::"Role" WHERE organization_id = $2 AND user_id = $3', [role, organizationId, admin.user.id]);
    await setRole('member');
    const error = expectError(await t.as(token).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    expect(error.message).toMatch(/creator/i);
    // Not revoked: promoted again, the token works (seen by an instance that has not cached it).
    await setRole('admin');
    const other = await t.anotherInstance();
    expect((await other.as(token).get('/games')).statusCode).toBe(200);
  });

  it('is refused once its creator is deleted, and is listed with createdBy null', async () => {
    const { owner, admin, asAdmin } = await organizationWithAdmin();
    const token = await asAdmin(['games:read']);
    await t.sql('DELETE FROM users WHERE id = $1', [admin.user.id]);
    expectError(await t.as(token).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    expect((await listed(owner, token.id)).createdBy).toBeNull();
  });

  it('keeps working for the tokens of the members who stay', async () => {
    const { owner, admin, organizationId } = await organizationWithAdmin();
    const ownersToken = await t.createToken(owner, ['games:read'], { organizationId });
    await t.as(owner).delete(`/organizations/${organizationId}/members/${admin.user.id}`);
    expect(await works(ownersToken)).toBe(200);
    expect((await listed(owner, ownersToken.id)).revokedAt).toBeNull();
  });
});

describe('GET /tokens shows who made each token', () => {
  it('adds createdBy { id, email } and parentTokenId', async () => {
    const { owner, admin, asAdmin } = await organizationWithAdmin();
    const parent = await asAdmin(['tokens:write', 'games:read']);
    const child = await t.createToken(parent, ['games:read']);
    expect(await listed(owner, parent.id)).toMatchObject({ createdBy: { id: admin.user.id, email: admin.user.email }, parentTokenId: null });
    // A token made by a token acts for the same user: the parent's creator.
    expect(await listed(owner, child.id)).toMatchObject({ createdBy: { id: admin.user.id, email: admin.user.email }, parentTokenId: parent.id });
    expect(Object.keys(await listed(parent, child.id)).sort()).toEqual(
      ['id', 'name', 'prefix', 'scopes', 'organizationId', 'createdAt', 'expiresAt', 'lastUsedAt', 'revokedAt', 'createdBy', 'parentTokenId'].sort(),
    );
  });
});

describe('a token made by a token never outlives its parent', () => {
  const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

  it('caps a missing or later expiresAt at the parent, keeps an earlier one', async () => {
    const owner = await t.register();
    const parentExpiry = inHours(1);
    const parent = await t.createToken(owner, ['tokens:write', 'games:read'], { expiresAt: parentExpiry });
    const create = async (expiresAt?: string) =>
      (await t.as(parent).post('/tokens', { name: 'child', scopes: ['games:read'], ...(expiresAt ? { expiresAt } : {}) })).json();

    expect((await create()).expiresAt).toBe(parentExpiry);
    expect((await create(inHours(48))).expiresAt).toBe(parentExpiry);
    const earlier = inHours(0.5);
    expect((await create(earlier)).expiresAt).toBe(earlier);
  });

  it('lets a child of a token that never expires choose its expiry', async () => {
    const owner = await t.register();
    const parent = await t.createToken(owner, ['tokens:write', 'games:read']);
    const res = await t.as(parent).post('/tokens', { name: 'child', scopes: ['games:read'] });
    expect(res.json().expiresAt).toBeNull();
  });

  it('revokes every descendant with the parent, even those cached', async () => {
    const owner = await t.register();
    const parent = await t.createToken(owner, ['tokens:write', 'games:read']);
    const child = await t.createToken(parent, ['tokens:write', 'games:read']);
    const grandchild = await t.createToken(child, ['games:read']);
    const sibling = await t.createToken(owner, ['games:read']);
    for (const token of [parent, child, grandchild, sibling]) expect(await works(token)).toBe(200);

    expect((await t.as(owner).delete(`/tokens/${parent.id}`)).statusCode).toBe(204);
    for (const token of [parent, child, grandchild]) {
      expectError(await t.as(token).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
      expect((await listed(owner, token.id)).revokedAt).toEqual(expect.any(String));
    }
    expect(await works(sibling)).toBe(200);
  });
});

describe('who may revoke a token', () => {
  it('lets a token revoke itself and its descendants, and nothing else (404, nothing changed)', async () => {
    const owner = await t.register();
    const ownersToken = await t.createToken(owner, ['games:read']);
    const parent = await t.createToken(owner, ['tokens:write', 'games:read']);
    const child = await t.createToken(parent, ['tokens:write', 'games:read']);
    const grandchild = await t.createToken(child, ['games:read']);
    const sibling = await t.createToken(parent, ['games:read']);

    const before = await t.rowCounts();
    for (const target of [ownersToken, parent, sibling]) {
      expectError(await t.as(child).delete(`/tokens/${target.id}`), 404, 'RESOURCE_NOT_FOUND');
      expect(await works(target)).toBe(200);
    }
    const [revokedBefore] = await t.sql<{ revoked: number }>('SELECT count(*)::int AS revoked FROM api_tokens WHERE revoked_at IS NOT NULL');
    expect(await t.rowCounts()).toEqual(before);

    expect((await t.as(child).delete(`/tokens/${grandchild.id}`)).statusCode).toBe(204);
    expectError(await t.as(grandchild).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    expect((await t.as(child).delete(`/tokens/${child.id}`)).statusCode).toBe(204);
    expectError(await t.as(child).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    expect(await works(parent)).toBe(200);
    const [after] = await t.sql<{ revoked: number }>('SELECT count(*)::int AS revoked FROM api_tokens WHERE revoked_at IS NOT NULL');
    expect(after!.revoked).toBe(revokedBefore!.revoked + 2);
  });

  it('lets any token revoke itself, without tokens:write (CONTRACT §8); revoking another still needs that scope', async () => {
    const owner = await t.register();
    const reader = await t.createToken(owner, ['games:read']);
    const other = await t.createToken(owner, ['games:read']);
    const denied = expectError(await t.as(reader).delete(`/tokens/${other.id}`), 403, 'INSUFFICIENT_PERMISSIONS');
    expect(denied.message).toBe('Insufficient permissions. Required: tokens:write');
    // The scope is checked first, as on every route: before the body is.
    const withBody = await t.inject({
      method: 'DELETE',
      url: `/api/tokens/${other.id}`,
      payload: '{"x":1}',
      headers: { ...reader.headers, 'content-type': 'application/json' },
    });
    expectError(withBody, 403, 'INSUFFICIENT_PERMISSIONS');
    expect(await works(other)).toBe(200);

    // Its own id in any case (ids are UUIDs, compared as such).
    expect((await t.as(reader).delete(`/tokens/${reader.id.toUpperCase()}`)).statusCode).toBe(204);
    expectError(await t.as(reader).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
    expect(await works(other)).toBe(200);
  });

  it('lets an owner or admin session revoke any token of the organization', async () => {
    const { owner, admin, organizationId, asAdmin } = await organizationWithAdmin();
    const ownersToken = await t.createToken(owner, ['games:read'], { organizationId });
    const adminsToken = await asAdmin(['games:read']);
    expect((await t.as(admin).delete(`/tokens/${ownersToken.id}`)).statusCode).toBe(204);
    expect((await t.as(owner).delete(`/tokens/${adminsToken.id}`)).statusCode).toBe(204);
    for (const token of [ownersToken, adminsToken]) expectError(await t.as(token).get('/games'), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('answers 404 to a member session and to other organizations, changing nothing', async () => {
    const { owner, organizationId } = await organizationWithAdmin();
    const target = await t.createToken(owner, ['games:read'], { organizationId });
    const member = await t.register();
    await t.addMember(owner, organizationId, member, 'member');
    const stranger = await t.register();
    const strangersToken = await t.createToken(stranger, ['tokens:write']);

    const before = await t.rowCounts();
    for (const caller of [member, stranger, strangersToken]) {
      expectError(await t.as(caller).delete(`/tokens/${target.id}`), 404, 'RESOURCE_NOT_FOUND');
    }
    expect(await t.rowCounts()).toEqual(before);
    expect(await works(target)).toBe(200);
  });
});
