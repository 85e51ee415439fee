// Organization scoping (CONTRACT §4), in one place for every module:
// - an API token reaches only its own organization;
// - a session user reaches the organizations they are a member of;
// - anything else is "not found", never "forbidden", so existence is not revealed.
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import type { Prisma, Role } from '../../generated/prisma/client.js';
import { isUuid } from '../../lib/uuid.js';
import type { Caller } from '../../plugins/auth.js';

export function canSee(caller: Caller, organizationId: string): boolean {
  return caller.kind === 'token' ? caller.organizationId === organizationId : caller.roles.has(organizationId);
}

/**
 * The organization a create names, in its body or in its query (SPEC §4: "passed as a query
 * parameter or in the request body"): the same in both is fine, two different ones are a 400.
 */
export function requestedOrganizationId(request: { body: { organizationId?: string }; query: { organizationId?: string } }): string | undefined {
  const inBody = request.body.organizationId;
  const inQuery = request.query.organizationId;
  if (inBody !== undefined && inQuery !== undefined && inBody !== inQuery) {
    throw ValidationError.of([{ in: 'query', path: 'organizationId', message: "differs from the body's organizationId" }]);
  }
  return inBody ?? inQuery;
}

/** The organization a write goes to: the one asked for, or the caller's only one. */
export function resolveOrganizationId(caller: Caller, requested: string | undefined): string {
  if (requested !== undefined) {
    if (!canSee(caller, requested)) throw new NotFoundError('Organization');
    return requested;
  }
  if (caller.kind === 'token') return caller.organizationId;
  const [only, ...others] = [...caller.roles.keys()];
  if (only && others.length === 0) return only;
  if (!only) throw new NotFoundError('Organization');
  throw new ValidationError('organizationId is required: you belong to several organizations', [
    { in: 'body', path: 'organizationId', message: 'is required when the caller belongs to several organizations' },
  ]);
}

/** The organizations a list may show: all of the caller's, or the one asked for. */
export function visibleOrganizationIds(caller: Caller, requested: string | undefined): string[] {
  if (requested !== undefined) {
    if (!canSee(caller, requested)) throw new NotFoundError('Organization');
    return [requested];
  }
  return caller.kind === 'token' ? [caller.organizationId] : [...caller.roles.keys()];
}

/** For a row fetched by id: not the caller's → 404, exactly as if it did not exist. */
export function assertVisible<T extends { organizationId: string }>(caller: Caller, row: T | null, what: string): T {
  if (!row || !canSee(caller, row.organizationId)) throw new NotFoundError(what);
  return row;
}

/** Ids are UUIDs; anything else cannot exist. */
export function assertId(id: string, what: string): void {
  if (!isUuid(id)) throw new NotFoundError(what);
}

export const MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];

/** Whether the caller holds one of `roles` there; an API token's scopes stand in for a role. */
export function hasRole(caller: Caller, organizationId: string, roles: readonly Role[]): boolean {
  if (caller.kind !== 'session') return caller.organizationId === organizationId;
  const role = caller.roles.get(organizationId);
  return role !== undefined && roles.includes(role);
}

/** A member's role must be one of `roles`: no role at all is 404 (not a member), another one 403. */
export function assertRole(role: Role | null | undefined, roles: readonly Role[]): asserts role is Role {
  if (!role) throw new NotFoundError('Organization');
  if (!roles.includes(role)) throw new ForbiddenError(`Insufficient permissions. Required: role ${roles.join(' or ')} in the organization`);
}

/** Session users need one of `roles` in the organization (already known to be visible). */
export function requireRole(caller: Caller, organizationId: string, roles: readonly Role[]): void {
  if (caller.kind === 'session') assertRole(caller.roles.get(organizationId), roles);
}

/**
 * A user's role as committed now, their membership locked until the transaction ends: a
 * concurrent change of that role waits for it, or is seen by it. What a session's roles said
 * when the request began may be stale by then (a demotion that committed meanwhile).
 */
export async function lockedRoleOf(tx: Pick<Prisma.TransactionClient, '$queryRaw'>, organizationId: string, userId: string): Promise<Role | null> {
  const [row] = await tx.$queryRaw<Array<{ role: Role }>>`
    SELECT role FROM memberships WHERE organization_id = ${organizationId}::uuid AND user_id = ${userId}::uuid FOR SHARE`;
  return row?.role ?? null;
}
