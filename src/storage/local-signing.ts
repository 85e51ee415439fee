// Signatures of the local store's URLs: an HMAC-SHA256 over the purpose, the object key and the
// grant's fields, compared in constant time, and an expiry — what S3 checks of a pre-signed URL.
import { ForbiddenError } from '../errors.js';
import { createHmacSigner } from '../lib/hmac.js';

/** The query of an upload URL, as the route hands it over. */
export interface UploadGrant {
  expires?: string;
  contentType?: string;
  size?: string;
  maxSize?: string;
  signature?: string;
}

export interface DownloadGrant {
  expires?: string;
  fileName?: string;
  signature?: string;
}

/**
 * The parameters each kind of URL carries; any other makes it a URL nobody signed, as with S3.
 * An upload URL carries either the exact size or the limit, as it was signed with one of them.
 */
const UPLOAD_PARAMETERS_WITH_SIZE = new Set(['expires', 'contentType', 'size', 'signature']);
const UPLOAD_PARAMETERS_WITH_LIMIT = new Set(['expires', 'contentType', 'maxSize', 'signature']);
const DOWNLOAD_PARAMETERS = new Set(['expires', 'fileName', 'signature']);

/** Signed fields of an upload: the exact size when one was declared, otherwise the limit. */
const uploadFields = (key: string, grant: UploadGrant) => [
  'upload',
  key,
  grant.contentType ?? '',
  grant.size !== undefined ? `size=${grant.size}` : `max=${grant.maxSize ?? ''}`,
  grant.expires ?? '',
];
const downloadFields = (key: string, grant: DownloadGrant) => ['download', key, grant.fileName ?? '', grant.expires ?? ''];

/** `now` in milliseconds since the epoch (tests move it). */
export function createUrlSigner(secret: string, now: () => number) {
  const { sign, matches } = createHmacSigner(secret);

  /** The signature first, then the expiry: a forged URL learns nothing about time. */
  function check(fields: string[], grant: { signature?: string; expires?: string }, parameters: Set<string>): void {
    const signed = Object.keys(grant).every((name) => parameters.has(name));
    if (!signed || !matches(fields, grant.signature)) throw new ForbiddenError('The URL signature does not match; request a new URL');
    if (!(Number(grant.expires) * 1000 > now())) throw new ForbiddenError('The URL has expired; request a new one');
  }

  return {
    signUpload: (key: string, grant: UploadGrant) => sign(uploadFields(key, grant)),
    signDownload: (key: string, grant: DownloadGrant) => sign(downloadFields(key, grant)),
    /** `grant`: the URL's whole query, unknown parameters included. */
    checkUpload: (key: string, grant: UploadGrant) =>
      check(uploadFields(key, grant), grant, grant.size !== undefined ? UPLOAD_PARAMETERS_WITH_SIZE : UPLOAD_PARAMETERS_WITH_LIMIT),
    checkDownload: (key: string, grant: DownloadGrant) => check(downloadFields(key, grant), grant, DOWNLOAD_PARAMETERS),
  };
}
