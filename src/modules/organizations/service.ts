import type { Database } from '../../db/client.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { Membership, Organization, Prisma, Role, User } from '../../generated/prisma/client.js';
import { envelope, type PageRequest, pageArgs } from '../../lib/pagination.js';
import { iso } from '../../lib/schemas.js';
import { uniqueOr409 } from '../../lib/unique.js';
import type { Caller, SessionCaller } from '../../plugins/auth.js';
import { revokeTokensCreatedBy } from '../tokens/service.js';
import { storageUsage } from '../assets/quota.js';
import { assertId, assertRole, canSee, lockedRoleOf, MANAGER_ROLES, requireRole, visibleOrganizationIds } from './access.js';

const toOrganizationDto = (org: Organization, role: Role | null) => ({
  id: org.id,
  name: org.name,
  role,
  createdAt: iso(org.createdAt),
  updatedAt: iso(org.updatedAt),
});

/** A member as the API shows them. */
const toMemberDto = (membership: Membership, user: User) => ({
  userId: membership.userId,
  email: user.email,
  name: user.name,
  role: membership.role,
  createdAt: iso(membership.createdAt),
});

/** The organization's owners, locked until the transaction ends: two concurrent changes cannot both leave it without one. */
function lockedOwners(tx: Prisma.TransactionClient, organizationId: string) {
  return tx.$queryRaw<Array<{ user_id: string }>>`
    SELECT user_id FROM memberships WHERE organization_id = ${organizationId}::uuid AND role = 'owner' FOR UPDATE`;
}

export function createOrganizationService(db: Database, storageQuotaBytes: number) {
  const roleOf = (caller: Caller, organizationId: string) => (caller.kind === 'session' ? (caller.roles.get(organizationId) ?? null) : null);

  /** The organization, if the caller may manage its members; otherwise 404 or 403. */
  function manageable(caller: SessionCaller, organizationId: string) {
    assertId(organizationId, 'Organization');
    requireRole(caller, organizationId, MANAGER_ROLES);
  }

  return {
    async create(caller: SessionCaller, name: string) {
      const org = await db.organization.create({
        data: { name, memberships: { create: { userId: caller.userId, role: 'owner' } } },
      });
      return toOrganizationDto(org, 'owner');
    },

    async list(caller: Caller, query: PageRequest<'createdAt' | 'name'>) {
      const where = { id: { in: visibleOrganizationIds(caller, undefined) } };
      const [rows, total] = await Promise.all([db.organization.findMany({ where, ...pageArgs(query) }), db.organization.count({ where })]);
      return envelope(
        rows.map((org) => toOrganizationDto(org, roleOf(caller, org.id))),
        total,
        query,
      );
    },

    async get(caller: Caller, id: string) {
      assertId(id, 'Organization');
      const org = canSee(caller, id) ? await db.organization.findUnique({ where: { id } }) : null;
      if (!org) throw new NotFoundError('Organization');
      const storageBytes = await storageUsage(db, id, new Date());
      return { ...toOrganizationDto(org, roleOf(caller, id)), usage: { storageBytes, quotaBytes: storageQuotaBytes } };
    },

    async listMembers(caller: SessionCaller, organizationId: string, query: PageRequest<'createdAt'>) {
      manageable(caller, organizationId);
      const where = { organizationId };
      const [rows, total] = await Promise.all([
        db.membership.findMany({
          where,
          include: { user: true },
          skip: (query.page - 1) * query.limit,
          take: query.limit,
          orderBy: [{ createdAt: query.order }, { userId: query.order }],
        }),
        db.membership.count({ where }),
      ]);
      return envelope(
        rows.map((m) => toMemberDto(m, m.user)),
        total,
        query,
      );
    },

    async addMember(caller: SessionCaller, organizationId: string, input: { email: string; role: Role }) {
      manageable(caller, organizationId);
      if (input.role === 'owner' && caller.roles.get(organizationId) !== 'owner') {
        throw new ForbiddenError('Insufficient permissions. Required: role owner to add an owner');
      }
      const user = await db.user.findUnique({ where: { email: input.email } });
      if (!user) throw new NotFoundError('User');
      const membership = await uniqueOr409(
        db.membership.create({ data: { organizationId, userId: user.id, role: input.role } }),
        'This user is already a member of the organization',
      );
      return toMemberDto(membership, user);
    },

    /**
     * Owners and admins change roles; only an owner makes an owner or changes an owner's role,
     * and the last owner stays one (409). A demotion to member revokes the API tokens the member
     * created there (CONTRACT §8: a token acts for an owner or admin); returns the member and
     * their ids, for the token caches to forget.
     */
    async changeMemberRole(caller: SessionCaller, organizationId: string, userId: string, role: Role) {
      manageable(caller, organizationId);
      assertId(userId, 'Member');
      return db.$transaction(async (tx) => {
        const owners = await lockedOwners(tx, organizationId);
        const callerRole = await lockedRoleOf(tx, organizationId, caller.userId);
        assertRole(callerRole, MANAGER_ROLES);
        const target = await tx.membership.findUnique({ where: { organizationId_userId: { organizationId, userId } }, include: { user: true } });
        if (!target) throw new NotFoundError('Member');
        if ((role === 'owner' || target.role === 'owner') && callerRole !== 'owner') {
          throw new ForbiddenError("Insufficient permissions. Required: role owner to make an owner or change an owner's role");
        }
        if (target.role === 'owner' && role !== 'owner' && owners.length <= 1) throw new ConflictError('The last owner of an organization must stay an owner');
        const membership = await tx.membership.update({ where: { organizationId_userId: { organizationId, userId } }, data: { role } });
        const revokedTokenIds = MANAGER_ROLES.includes(role) ? [] : await revokeTokensCreatedBy(tx, organizationId, userId);
        return { member: toMemberDto(membership, target.user), revokedTokenIds };
      });
    },

    /**
     * Owners and admins remove members (only owners remove owners); anyone may leave. The
     * tokens the member created there are revoked with the membership (CONTRACT §8); returns
     * their ids, for the token caches to forget.
     */
    async removeMember(caller: SessionCaller, organizationId: string, userId: string): Promise<string[]> {
      assertId(organizationId, 'Organization');
      if (!caller.roles.has(organizationId)) throw new NotFoundError('Organization');
      const leaving = userId === caller.userId;
      if (!leaving) requireRole(caller, organizationId, MANAGER_ROLES);
      assertId(userId, 'Member');
      return db.$transaction(async (tx) => {
        const owners = await lockedOwners(tx, organizationId);
        const callerRole = await lockedRoleOf(tx, organizationId, caller.userId);
        if (!leaving) assertRole(callerRole, MANAGER_ROLES);
        const target = await tx.membership.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
        if (!target) throw new NotFoundError('Member');
        if (target.role === 'owner') {
          if (!leaving && callerRole !== 'owner') {
            throw new ForbiddenError('Insufficient permissions. Required: role owner to remove an owner');
          }
          if (owners.length <= 1) throw new ConflictError('The last owner of an organization cannot be removed');
        }
        await tx.membership.delete({ where: { organizationId_userId: { organizationId, userId } } });
        return revokeTokensCreatedBy(tx, organizationId, userId);
      });
    },
  };
}
