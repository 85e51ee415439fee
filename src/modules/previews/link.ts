// Preview URLs (CONTRACT §11): `<PUBLIC_URL>/previews/<id>.<expires>.<signature>`, where
// `expires` is Unix seconds and the signature an HMAC-SHA256 (base64url) over the purpose, the
// preview's id and that expiry. The token is one path segment, so the artifact's relative URLs
// resolve under it (/previews/<token>/play/…). Checked here, in one place: a token that does not
// parse or whose signature does not match is "tampered", one past its expiry "expired" — both
// before the database is asked. Revocation is the row's (src/modules/previews/service.ts).
import { ForbiddenError } from '../../errors.js';
import { createHmacSigner } from '../../lib/hmac.js';
import { isUuid } from '../../lib/uuid.js';

/** The public route group of preview pages, outside /api. */
export const PREVIEWS_PATH = '/previews';

const TOKEN = /^([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export interface PreviewLinks {
  /** The page's address for a preview expiring at `expiresAt` (whole seconds). */
  url(id: string, expiresAt: Date): string;
  /** The preview id a token names, or 403 when it is tampered with or expired. */
  verify(token: string): string;
}

export function createPreviewLinks({ key, publicUrl, now = Date.now }: { key: Buffer; publicUrl: string; now?: () => number }): PreviewLinks {
  const signer = createHmacSigner(key);
  const fields = (id: string, expires: string) => ['preview', id, expires];
  return {
    url(id, expiresAt) {
      const expires = String(Math.floor(expiresAt.getTime() / 1000));
      return `${publicUrl}${PREVIEWS_PATH}/${id}.${expires}.${signer.sign(fields(id, expires))}`;
    },
    verify(token) {
      const [, id, expires, signature] = TOKEN.exec(token) ?? [];
      if (!id || !expires || !isUuid(id) || !signer.matches(fields(id, expires), signature)) {
        throw new ForbiddenError('This preview link is not valid; ask for a new one');
      }
      if (Number(expires) * 1000 <= now()) throw new ForbiddenError('This preview link has expired; ask for a new one');
      return id;
    },
  };
}
