// X-Request-Id (CONTRACT §13): a well-formed incoming id (1–128 visible ASCII characters) is
// kept, so a proxy's or a client's id follows the request through our logs; anything else gets
// a fresh UUID. Fastify puts it on every log line of the request (`reqId`); src/app.ts echoes
// it on every response, errors and router errors included.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
const WELL_FORMED = /^[\x21-\x7e]{1,128}$/;

/** The id of a request that brought none (or whose headers could not be read). */
export const newRequestId = (): string => randomUUID();

/** Fastify's `genReqId`. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && WELL_FORMED.test(given) ? given : newRequestId();
}
