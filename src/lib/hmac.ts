// Signatures of the service's own signed URLs (the local store's, preview links): an HMAC-SHA256
// over fields joined by newlines, base64url, compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function createHmacSigner(key: string | Buffer) {
  const sign = (fields: string[]) => createHmac('sha256', key).update(fields.join('\n')).digest('base64url');
  return {
    sign,
    /** Whether `presented` is the signature of `fields`. */
    matches(fields: string[], presented: string | undefined): boolean {
      const expected = Buffer.from(sign(fields));
      const given = Buffer.from(presented ?? '');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
