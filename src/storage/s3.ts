// The S3-compatible object store (AWS S3, MinIO, R2, …). Browsers PUT straight to the bucket
// with a pre-signed URL whose SigV4 signature covers Content-Type (and Content-Length when the
// size was declared), so the store itself refuses another type, another size, a late or a
// tampered request.
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3StorageConfig } from '../config.js';
import { NotFoundError } from '../errors.js';
import type { ObjectStore } from './types.js';

/** S3's smallest part (but for the last one). */
const STREAM_PART_BYTES = 5 * 1024 * 1024;
const STREAM_PARTS_IN_FLIGHT = 2;

export function createS3Store(config: S3StorageConfig): ObjectStore {
  const clientConfig = (endpoint: string | undefined): S3ClientConfig => ({
    region: config.region,
    endpoint,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    // The SDK's default adds a CRC32 of the (empty) body to pre-signed PUT URLs, which the
    // real upload would then fail; checksums only where S3 requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const client = new S3Client(clientConfig(config.endpoint));
  // URLs for browsers are signed for the host the browser sees (the Host header is signed too).
  const publicClient = config.publicEndpoint ? new S3Client(clientConfig(config.publicEndpoint)) : client;
  const Bucket = config.bucket;

  return {
    kind: 's3',

    async presignUpload(key, { contentType, size, expiresInSeconds }) {
      const expiresAt = new Date(Date.now() + expiresInSeconds * 1000);
      const command = new PutObjectCommand({ Bucket, Key: key, ContentType: contentType, ContentLength: size });
      const signableHeaders = new Set(size === undefined ? ['content-type'] : ['content-type', 'content-length']);
      const url = await getSignedUrl(publicClient, command, { expiresIn: expiresInSeconds, signableHeaders });
      return { url, method: 'PUT', headers: { 'Content-Type': contentType }, expiresAt };
    },

    async presignDownload(key, { expiresInSeconds, fileName }) {
      const command = new GetObjectCommand({
        Bucket,
        Key: key,
        ...(fileName !== undefined ? { ResponseContentDisposition: `attachment; filename*=UTF-8''${encodeURIComponent(fileName)}` } : {}),
      });
      return getSignedUrl(publicClient, command, { expiresIn: expiresInSeconds });
    },

    async head(key) {
      try {
        const object = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { size: object.ContentLength ?? 0, ...(object.ContentType ? { contentType: object.ContentType } : {}) };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async read(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        return object.Body as Readable;
      } catch (error) {
        if (isMissing(error)) throw new NotFoundError('Object');
        throw error;
      }
    },

    async write(key, body, { contentType }) {
      await client.send(new PutObjectCommand({ Bucket, Key: key, Body: body, ContentType: contentType }));
    },

    async writeStream(key, body, { contentType }) {
      // Multipart: at most STREAM_PARTS_IN_FLIGHT parts of STREAM_PART_BYTES are held at once; a
      // failed upload is aborted, so no parts are left behind (an object of under one part is a
      // plain PUT).
      const upload = new Upload({
        client,
        params: { Bucket, Key: key, Body: body, ContentType: contentType },
        partSize: STREAM_PART_BYTES,
        queueSize: STREAM_PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      });
      // The stream's own failure is the cause to report, even when aborting the upload failed too.
      let streamError: unknown;
      body.once('error', (error) => (streamError = error));
      try {
        await upload.done();
      } catch (error) {
        throw streamError ?? error;
      }
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async check() {
      await client.send(new HeadBucketCommand({ Bucket }));
    },

    async *list(prefix) {
      for await (const page of paginateListObjectsV2({ client, pageSize: 1000 }, { Bucket, Prefix: prefix })) {
        yield (page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : []));
      }
    },

    // A pre-signed PUT is stored whole or not at all (no multipart uploads are issued): nothing half-way to delete.
    async deleteStalePartials() {
      return 0;
    },
  };
}

/** HEAD answers a bare 404 ("NotFound"), GET a NoSuchKey error. */
function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
}
