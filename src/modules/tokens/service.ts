import type { Database } from '../../db/client.js';
import { AuthenticationError, MissingScopeError, NotFoundError } from '../../errors.js';
import type { ApiToken, Prisma, Role } from '../../generated/prisma/client.js';
import { envelope, type PageRequest, pageArgs } from '../../lib/pagination.js';
import { iso, isoOrNull } from '../../lib/schemas.js';
import type { Caller, SessionCaller, TokenCaller } from '../../plugins/auth.js';
import { grants, type Scope } from '../../plugins/scopes.js';
import {
  assertId,
  assertRole,
  assertVisible,
  hasRole,
  lockedRoleOf,
  MANAGER_ROLES,
  requireRole,
  resolveOrganizationId,
  visibleOrganizationIds,
} from '../organizations/access.js';
import { descendsFrom, lockOrganizationTokens, revokeTree } from './lineage.js';
import { newTokenSecret } from './secret.js';

export const toTokenDto = (t: ApiToken) => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  scopes: t.scopes,
  organizationId: t.organizationId,
  createdAt: iso(t.createdAt),
  expiresAt: isoOrNull(t.expiresAt),
  lastUsedAt: isoOrNull(t.lastUsedAt),
  revokedAt: isoOrNull(t.revokedAt),
});

/** What authenticating with a token needs: its row and its creator's role in its organization. */
export interface ApiTokenGrant {
  id: string;
  organizationId: string;
  scopes: string[];
  createdById: string | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** Null when the creator is no longer a member (or the user is gone). */
  creatorRole: Role | null;
}

/**
 * The token with this secret hash, in one statement through the unique index on token_hash and
 * the memberships primary key: the API-token path is benchmarked (README "Benchmarks").
 */
export async function findApiTokenGrant(db: Database, tokenHash: string): Promise<ApiTokenGrant | null> {
  const { rows } = await db.pool.query<ApiTokenGrant>(
    `SELECT t.id, t.organization_id AS "organizationId", t.scopes, t.created_by_id AS "createdById",
            t.expires_at AS "expiresAt", t.revoked_at AS "revokedAt", t.last_used_at AS "lastUsedAt",
            m.role AS "creatorRole"
       FROM api_tokens t
       LEFT JOIN memberships m ON m.organization_id = t.organization_id AND m.user_id = t.created_by_id
      WHERE t.token_hash = $1`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

/**
 * Stamps a token's last use. Through `pg`, as its lookup above: it is the only write on the
 * API-token read path, and through Prisma it would load Prisma's query compiler (~30 MiB of RSS)
 * into an API that otherwise serves those reads without it (README "Benchmarks").
 */
export async function recordApiTokenUse(db: Database, tokenId: string, at: Date): Promise<void> {
  await db.pool.query('UPDATE api_tokens SET last_used_at = $2 WHERE id = $1', [tokenId, at]);
}

/**
 * A user stopped managing an organization: the tokens they created there (those made by their
 * tokens included, which act for them too) are revoked. Returns their ids for the caches.
 */
export async function revokeTokensCreatedBy(tx: Prisma.TransactionClient, organizationId: string, userId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`
    UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now())
    WHERE organization_id = ${organizationId}::uuid AND created_by_id = ${userId}::uuid
    RETURNING id`;
  return rows.map((row) => row.id);
}

const tokenRevoked = () => new AuthenticationError('Invalid, expired or revoked API token');

export function createTokenService(db: Database) {
  /** A token made by a token: same creator, expiry capped at the parent's, created only while the parent lives. */
  async function createChild(caller: TokenCaller, data: Omit<Prisma.ApiTokenUncheckedCreateInput, 'createdById'>) {
    return db.$transaction(async (tx) => {
      await lockOrganizationTokens(tx, caller.organizationId);
      // The creator is still an owner or admin now: a demotion committed meanwhile revoked the parent.
      const creatorRole = await lockedRoleOf(tx, caller.organizationId, caller.createdById);
      if (!creatorRole || !MANAGER_ROLES.includes(creatorRole)) throw tokenRevoked();
      const parent = await tx.apiToken.findUnique({ where: { id: caller.tokenId } });
      if (!parent || parent.revokedAt || (parent.expiresAt && parent.expiresAt <= new Date())) throw tokenRevoked();
      const requested = data.expiresAt ? new Date(data.expiresAt) : null;
      const expiresAt = parent.expiresAt && (!requested || requested > parent.expiresAt) ? parent.expiresAt : requested;
      return tx.apiToken.create({ data: { ...data, expiresAt, createdById: caller.createdById, parentTokenId: parent.id } });
    });
  }

  /**
   * A token made by a session user who is an owner or admin as committed now: one demoted
   * meanwhile (whose tokens that demotion revoked) gets no new one (CONTRACT §8).
   */
  async function createForSession(caller: SessionCaller, data: Omit<Prisma.ApiTokenUncheckedCreateInput, 'createdById'>) {
    return db.$transaction(async (tx) => {
      assertRole(await lockedRoleOf(tx, data.organizationId, caller.userId), MANAGER_ROLES);
      return tx.apiToken.create({ data: { ...data, createdById: caller.userId } });
    });
  }

  return {
    async create(caller: Caller, input: { name: string; organizationId?: string; scopes: Scope[]; expiresAt?: string | null }) {
      const organizationId = resolveOrganizationId(caller, input.organizationId);
      requireRole(caller, organizationId, MANAGER_ROLES);
      // A token may only hand out what it holds itself.
      if (caller.kind === 'token') {
        const missing = input.scopes.find((scope) => !grants(caller.scopes, scope));
        if (missing) throw new MissingScopeError(missing);
      }
      const { secret, prefix, hash } = newTokenSecret();
      const data = {
        organizationId,
        name: input.name,
        scopes: input.scopes,
        prefix,
        tokenHash: hash,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
      };
      const token = caller.kind === 'session' ? await createForSession(caller, data) : await createChild(caller, data);
      const { revokedAt: _revokedAt, ...dto } = toTokenDto(token);
      return { ...dto, token: secret };
    },

    /** Roles gate tokens: a session user sees the tokens of the organizations they manage. */
    async list(caller: Caller, query: PageRequest<'createdAt' | 'name'> & { organizationId?: string }) {
      const visible = visibleOrganizationIds(caller, query.organizationId);
      if (query.organizationId !== undefined) requireRole(caller, query.organizationId, MANAGER_ROLES);
      const managed = visible.filter((organizationId) => hasRole(caller, organizationId, MANAGER_ROLES));
      const where = { organizationId: { in: managed } };
      const [rows, total] = await Promise.all([
        db.apiToken.findMany({ where, include: { createdBy: { select: { id: true, email: true } } }, ...pageArgs(query) }),
        db.apiToken.count({ where }),
      ]);
      const items = rows.map((row) => ({ ...toTokenDto(row), createdBy: row.createdBy, parentTokenId: row.parentTokenId }));
      return envelope(items, total, query);
    },

    /**
     * Revokes the token and every token made from it; revoking a revoked token again changes
     * nothing. An owner or admin session may revoke any token of the organization, a token
     * itself and its descendants; anyone else is told it does not exist. Returns the ids of
     * every token of the tree, for the token caches to forget.
     */
    async revoke(caller: Caller, id: string): Promise<string[]> {
      assertId(id, 'Token');
      const token = assertVisible(caller, await db.apiToken.findUnique({ where: { id } }), 'Token');
      if (!hasRole(caller, token.organizationId, MANAGER_ROLES)) throw new NotFoundError('Token');
      return db.$transaction(async (tx) => {
        await lockOrganizationTokens(tx, token.organizationId);
        if (caller.kind === 'token' && !(await descendsFrom(tx, id, caller.tokenId))) throw new NotFoundError('Token');
        return revokeTree(tx, id);
      });
    },
  };
}
