// The fixed list of API-token scopes (CONTRACT §3) and the check a route declares with
// `config: { scope: 'games:write' }`. A browser session holds every scope.
import type { FastifyRequest } from 'fastify';
import { MissingScopeError } from '../errors.js';

export const SCOPES = [
  'games:read',
  'games:write',
  'assets:read',
  'assets:write',
  'exports:read',
  'exports:write',
  'tokens:read',
  'tokens:write',
  'webhooks:read',
  'webhooks:write',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Whether a set of granted scopes covers `required`; `X:write` implies `X:read`. */
export function grants(granted: readonly string[], required: Scope): boolean {
  if (granted.includes(required)) return true;
  return required.endsWith(':read') && granted.includes(required.replace(/:read$/, ':write'));
}

/** preHandler: throws 403 with the contract's exact message when the caller lacks the scope. */
export async function requireDeclaredScope(request: FastifyRequest): Promise<void> {
  const scope = request.routeOptions.config.scope;
  const caller = request.caller;
  if (!scope || !caller || caller.kind === 'session') return;
  if (!grants(caller.scopes, scope)) throw new MissingScopeError(scope);
}
