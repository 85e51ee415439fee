import type { Database } from '../../db/client.js';
import { MissingScopeError } from '../../errors.js';
import type { ApiToken } from '../../generated/prisma/client.js';
import { envelope, type PageRequest, pageArgs } from '../../lib/pagination.js';
import { iso, isoOrNull } from '../../lib/schemas.js';
import type { Caller } from '../../plugins/auth.js';
import { grants, type Scope } from '../../plugins/scopes.js';
import {
  assertId,
  assertVisible,
  hasRole,
  MANAGER_ROLES,
  requireRole,
  resolveOrganizationId,
  visibleOrganizationIds,
} from '../organizations/access.js';
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

export function createTokenService(db: Database) {
  return {
    async create(caller: Caller, input: { name: string; organizationId?: string; scopes: Scope[]; expiresAt?: string }) {
      const organizationId = resolveOrganizationId(caller, input.organizationId);
      requireRole(caller, organizationId, MANAGER_ROLES);
      // A token may only hand out what it holds itself.
      if (caller.kind === 'token') {
        const missing = input.scopes.find((scope) => !grants(caller.scopes, scope));
        if (missing) throw new MissingScopeError(missing);
      }
      const { secret, prefix, hash } = newTokenSecret();
      const token = await db.apiToken.create({
        data: {
          organizationId,
          name: input.name,
          scopes: input.scopes,
          prefix,
          tokenHash: hash,
          expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
          createdById: caller.kind === 'session' ? caller.userId : caller.createdById,
        },
      });
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
        db.apiToken.findMany({ where, ...pageArgs(query) }),
        db.apiToken.count({ where }),
      ]);
      return envelope(rows.map(toTokenDto), total, query);
    },

    /** Revokes the token; revoking a revoked token again changes nothing. */
    async revoke(caller: Caller, id: string) {
      assertId(id, 'Token');
      const token = assertVisible(caller, await db.apiToken.findUnique({ where: { id } }), 'Token');
      requireRole(caller, token.organizationId, MANAGER_ROLES);
      if (!token.revokedAt) await db.apiToken.update({ where: { id }, data: { revokedAt: new Date() } });
    },
  };
}
