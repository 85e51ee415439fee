// s3rver does not verify signatures, so what S3 would enforce is checked here on the URL itself:
// the signed headers, the expiry, the credential scope, and — by recomputing SigV4 with the
// SDK's own signer — that a PUT with another Content-Type or size would not match.
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { createS3Store } from '../src/storage/s3.js';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const store = createS3Store({
  kind: 's3',
  bucket: 'playables',
  region: 'eu-central-1',
  endpoint: 'http://minio:9000',
  publicEndpoint: 'http://localhost:9000',
  forcePathStyle: true,
  credentials,
});
const KEY = 'orgs/0d5c4b1e-0000-4000-8000-000000000001/assets/7f3e2a10-0000-4000-8000-000000000002';

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData) =>
  typeof data === 'string' ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);

/** SHA-256 and HMAC-SHA-256 in the shape the signer expects. */
class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

const SIGNATURE_PARAMS = ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature'];

/**
 * The signature S3 would compute for a PUT to this pre-signed URL that carries `headers`:
 * the URL's own request with the given header values, signed again at the URL's date.
 */
async function signatureFor(url: URL, headers: Record<string, string>): Promise<string> {
  const params = Object.fromEntries(url.searchParams);
  const amzDate = params['X-Amz-Date']!;
  const signingDate = new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const query = Object.fromEntries(Object.entries(params).filter(([name]) => !SIGNATURE_PARAMS.includes(name) && name !== 'X-Amz-Content-Sha256'));
  const signer = new SignatureV4({ credentials, region: 'eu-central-1', service: 's3', sha256: Sha256, uriEscapePath: false });
  const signed = await signer.presign(
    {
      method: 'PUT',
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: decodeURIComponent(url.pathname),
      query,
      headers: { host: url.host, 'X-Amz-Content-Sha256': params['X-Amz-Content-Sha256']!, ...headers },
    },
    {
      signingDate,
      expiresIn: Number(params['X-Amz-Expires']),
      signableHeaders: new Set(params['X-Amz-SignedHeaders']!.split(';')),
    },
  );
  return signed.query?.['X-Amz-Signature'] as string;
}

describe('pre-signed S3 upload URLs', () => {
  it('are built on the public endpoint, in path style, for the namespaced key', async () => {
    const upload = await store.presignUpload(KEY, { contentType: 'image/png', expiresInSeconds: 900 });
    const url = new URL(upload.url);
    expect(url.origin).toBe('http://localhost:9000');
    expect(url.pathname).toBe(`/playables/${KEY}`);
    expect(upload.method).toBe('PUT');
    expect(upload.headers).toEqual({ 'Content-Type': 'image/png' });
  });

  it('sign Content-Type, the expiry and the credential scope', async () => {
    const before = Date.now();
    const upload = await store.presignUpload(KEY, { contentType: 'image/png', expiresInSeconds: 900 });
    const params = new URL(upload.url).searchParams;
    expect(params.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(params.get('X-Amz-SignedHeaders')!.split(';').sort()).toEqual(['content-type', 'host']);
    expect(params.get('X-Amz-Expires')).toBe('900');
    const day = params.get('X-Amz-Date')!.slice(0, 8);
    expect(params.get('X-Amz-Credential')).toBe(`AKIDEXAMPLE/${day}/eu-central-1/s3/aws4_request`);
    expect(upload.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 900_000);
    expect(upload.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 900_000);
    // No SDK checksum of an empty body, which would make S3 refuse the real upload.
    expect([...params.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
  });

  it('sign Content-Length too when the size is declared', async () => {
    const upload = await store.presignUpload(KEY, { contentType: 'model/gltf-binary', size: 4096, expiresInSeconds: 60 });
    const params = new URL(upload.url).searchParams;
    expect(params.get('X-Amz-SignedHeaders')!.split(';').sort()).toEqual(['content-length', 'content-type', 'host']);
    expect(params.get('X-Amz-Expires')).toBe('60');
  });

  it('would not match a PUT with another Content-Type or another size', async () => {
    const upload = await store.presignUpload(KEY, { contentType: 'image/png', size: 4096, expiresInSeconds: 900 });
    const url = new URL(upload.url);
    const signature = url.searchParams.get('X-Amz-Signature');
    // The recomputation reproduces the URL's signature for the request it was made for …
    expect(await signatureFor(url, { 'content-type': 'image/png', 'content-length': '4096' })).toBe(signature);
    // … and gives another one as soon as a signed header differs.
    expect(await signatureFor(url, { 'content-type': 'text/html', 'content-length': '4096' })).not.toBe(signature);
    expect(await signatureFor(url, { 'content-type': 'image/png', 'content-length': '4097' })).not.toBe(signature);
  });

  it('download URLs are signed GETs on the public endpoint that name the file', async () => {
    const url = new URL(await store.presignDownload(KEY, { expiresInSeconds: 300, fileName: 'héro.png' }));
    expect(url.origin).toBe('http://localhost:9000');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('response-content-disposition')).toBe(`attachment; filename*=UTF-8''h%C3%A9ro.png`);
  });
});
