// HS256 JWTs made and read independently of the app (its @fastify/jwt instance is encapsulated
// under /api): used to forge a session JWT with an old `iat` instead of waiting a day.
import { createHmac } from 'node:crypto';

export interface SessionJwtClaims {
  sub: string;
  sid: string;
  iat: number;
  exp: number;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function signJwt(claims: Record<string, unknown>, secret: string): string {
  const unsigned = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

/** The claims of a JWT, without checking its signature. */
export function decodeJwt(jwt: string): SessionJwtClaims {
  const payload = jwt.split('.')[1];
  if (!payload) throw new Error(`not a JWT: ${jwt}`);
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}
