// The fixed list of API-token scopes (CONTRACT §3) and the check a route declares with
// `config: { scope: 'games:write' }`. A browser session holds every scope.
import { MissingScopeError } from '../errors.js';
import type { Caller } from './auth.js';

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

/** The 403 of a caller without the route's declared scope (src/plugins/access.ts), or null. A session holds every scope. */
export function missingScope(required: Scope | undefined, caller: Caller | null): MissingScopeError | null {
  if (!required || !caller || caller.kind === 'session' || grants(caller.scopes, required)) return null;
  return new MissingScopeError(required);
}
