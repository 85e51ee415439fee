// The one onRequest hook of the /api routes: who is calling (auth.ts), whether they are within
// their rate limit (rate-limit.ts), and whether they hold the route's scope (scopes.ts), in that
// order — a refused credential is still counted, against the client IP, before it is reported.
// One callback hook, not three: with an API token in the cache and the counters in memory it
// completes without a promise, the common case of a script's requests (README "Benchmarks").
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { missingScope, type Scope } from './scopes.js';

/** The route's scope, unless it is waived for this token acting on itself (CONTRACT §8: a token may revoke itself). */
function requiredScope(request: FastifyRequest, config: FastifyContextConfig): Scope | undefined {
  const { caller } = request;
  if (!config.scopeWaivedForOwnToken || caller?.kind !== 'token') return config.scope;
  const id = (request.params as { id?: string }).id;
  return id?.toLowerCase() === caller.tokenId ? undefined : config.scope;
}

/** What an unknown /api route is treated as: any caller, the standard tier (CONTRACT §7: "everything not below"). */
const UNKNOWN_ROUTE: FastifyContextConfig = {};

function admitRequest(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  // An unknown route is 404 whoever calls; its credentials only decide who it is counted against.
  const unknownRoute = request.is404;
  const config = unknownRoute ? UNKNOWN_ROUTE : request.routeOptions.config;
  const tier = config.rateLimitTier ?? 'standard';
  let refusal: unknown = null;

  // A refusal is reported a tick later. Node's parser first reads the rest of what came with the
  // headers, so a request it cannot parse (broken chunks, say) gets its 400 (CONTRACT §8) rather
  // than our 401 — as when these checks were asynchronous throughout.
  const refuse = (error: Error) => process.nextTick(done, error);
  const checkScope = () => {
    const error = unknownRoute ? null : (refusal ?? missingScope(requiredScope(request, config), request.caller));
    if (error) return refuse(error as Error);
    done();
  };
  const countThenCheck = () => {
    if (tier === false) return checkScope();
    app.countRequest(request, reply, tier, (limited) => (limited ? refuse(limited) : checkScope()));
  };

  let identified: void | Promise<void>;
  try {
    identified = app.identifyCaller(request, reply, config.auth);
  } catch (error) {
    refusal = error;
    return countThenCheck();
  }
  if (!identified) return countThenCheck();
  identified.then(countThenCheck, (error: unknown) => {
    refusal = error;
    countThenCheck();
  });
}

async function accessPlugin(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => admitRequest(app, request, reply, done));
}

export default fp(accessPlugin, { name: 'access', dependencies: ['auth', 'rate-limit'] });
