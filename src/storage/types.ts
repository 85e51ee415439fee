// The object-store interface. Two implementations, chosen once from config: S3-compatible
// (src/storage/s3.ts) and local disk (src/storage/local.ts, the zero-setup default).
// Keys are namespaced by organization and asset id (`orgs/<orgId>/assets/<assetId>`), never
// by a user-supplied file name.
import type { Readable } from 'node:stream';

export interface PresignedUpload {
  url: string;
  method: 'PUT';
  /** Headers the client must send with the PUT; the signature covers them. */
  headers: Record<string, string>;
  expiresAt: Date;
}

export interface StoredObjectInfo {
  size: number;
  contentType?: string;
}

export interface ObjectStore {
  readonly kind: 's3' | 'local';
  /** A URL the client PUTs the bytes to, bound to the key, the content type and (if given) the exact size. */
  presignUpload(key: string, options: { contentType: string; size?: number; expiresInSeconds: number }): Promise<PresignedUpload>;
  /** A short-lived GET URL; `fileName` sets Content-Disposition. */
  presignDownload(key: string, options: { expiresInSeconds: number; fileName?: string }): Promise<string>;
  /** Size and type of a stored object, or null if there is none. */
  head(key: string): Promise<StoredObjectInfo | null>;
  /** The object's bytes as a stream (throws NotFoundError if absent). */
  read(key: string): Promise<Readable>;
  /** Stores bytes the service produced itself (export artifacts). */
  write(key: string, body: Buffer, options: { contentType: string }): Promise<void>;
  /**
   * Stores a stream the service produces (a batch's ZIP) without holding it in memory: S3 in
   * multipart chunks, local disk through a temporary file renamed into place. The object appears
   * only once the stream has ended; if the stream fails, nothing is stored and the error is thrown.
   */
  writeStream(key: string, body: Readable, options: { contentType: string }): Promise<void>;
  /** Deletes the object; deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Throws when the store is unreachable (readiness check). */
  check(): Promise<void>;
  /** Keys of the objects under `prefix`, a page (up to 1000) at a time. */
  list(prefix: string): AsyncIterable<string[]>;
  /** Deletes uploads abandoned half-way whose last byte arrived before `olderThan`; returns how many. */
  deleteStalePartials(olderThan: Date): Promise<number>;
}
