// The fixed list of API-token scopes (CONTRACT §3) and the check a route declares with
// `config: { scope: 'games:write' }`. A browser session holds every scope.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
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

/** onRequest hook: fails with 403 and the contract's exact message when the caller lacks the scope. */
export function requireDeclaredScope(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const scope = request.routeOptions.config.scope;
  const caller = request.caller;
  if (scope && caller && caller.kind !== 'session' && !grants(caller.scopes, scope)) return done(new MissingScopeError(scope));
  done();
}
