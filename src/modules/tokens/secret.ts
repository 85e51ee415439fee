// API-token secrets: `pcs_` + 32 random bytes in base64url. Only a SHA-256 of the secret is
// stored: the secret has 256 bits of entropy, so a fast hash is enough (no offline guessing
// is possible) and verification needs no slow KDF on every request.
import { hash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'pcs_';

export function newTokenSecret(): { secret: string; prefix: string; hash: string } {
  const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { secret, prefix: secret.slice(0, TOKEN_PREFIX.length + 6), hash: hashTokenSecret(secret) };
}

export function hashTokenSecret(secret: string): string {
  // One-shot hash: no Hash object per call (it runs on every API-token request).
  return hash('sha256', secret, 'hex');
}
