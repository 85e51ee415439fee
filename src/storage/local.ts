// The local-disk object store, the zero-setup default. The service plays S3's part itself: it
// issues URLs to its own signed route group (src/storage/local-routes.ts, outside /api), HMAC-
// signed over the purpose, the object key, the content type, the size rule and the expiry, and
// checks on each request what S3 would check for a pre-signed URL (src/storage/local-signing.ts).
//
// Layout under the directory: data/<key> holds the bytes, meta/<key>.json the content type,
// incoming/ the uploads in progress (same file system, so a finished upload is linked into place
// atomically and a refused one leaves nothing behind).
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, constants, link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { finished, type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, ConflictError, NotFoundError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors.js';
import { makePrivateDirectory, PRIVATE_DIRECTORY, PRIVATE_FILE_MODE } from '../lib/private-files.js';
import { createUrlSigner, type DownloadGrant, type UploadGrant } from './local-signing.js';
import type { ObjectStore, PresignedUpload, StoredObjectInfo } from './types.js';

export type { DownloadGrant, UploadGrant } from './local-signing.js';

/** Path of the signed route group; keys follow it: /objects/orgs/<org>/assets/<asset>. */
export const LOCAL_OBJECTS_PATH = '/objects';

/** Keys are ours (orgs/<uuid>/assets/<uuid>, …): plain segments, never `.` or `..`. */
const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export interface LocalStoreOptions {
  directory: string;
  signingSecret: string;
  publicUrl: string;
  /** Upper bound of an upload URL that names no exact size. */
  maxUploadBytes: number;
  /** Milliseconds since the epoch; tests may move it. */
  now?: () => number;
}

/** What the service knows of the object a key names: an upload is taken only while it is `pending`. */
export type UploadTargetStatus = 'pending' | 'ready' | null;

export interface IncomingUpload {
  key: string;
  grant: UploadGrant;
  contentType: string | undefined;
  contentLength: string | undefined;
  body: Readable;
  /** Asked once the grant is checked and again once the bytes are in place (the asset may be deleted meanwhile). */
  targetStatus(key: string): Promise<UploadTargetStatus>;
}

export interface LocalObjectStore extends ObjectStore {
  readonly kind: 'local';
  /** Checks the grant and the request, then streams the body into place; throws the 4xx otherwise. */
  receiveUpload(upload: IncomingUpload): Promise<StoredObjectInfo>;
  /** Checks the grant and opens the object for a signed download. */
  openDownload(key: string, grant: DownloadGrant): Promise<{ body: Readable; info: StoredObjectInfo; fileName: string | undefined }>;
}

export function createLocalStore(options: LocalStoreOptions): LocalObjectStore {
  const now = options.now ?? Date.now;
  const dataDir = path.join(options.directory, 'data');
  const metaDir = path.join(options.directory, 'meta');
  const incomingDir = path.join(options.directory, 'incoming');
  // Objects are for this service only; also tightens a folder an earlier version left open.
  makePrivateDirectory(options.directory);

  function objectPath(key: string): string {
    if (!SAFE_KEY.test(key)) throw new NotFoundError('Object');
    return path.join(dataDir, key);
  }
  const metaPath = (key: string) => path.join(metaDir, `${key}.json`);

  const signer = createUrlSigner(options.signingSecret, now);

  function url(key: string, query: Record<string, string>): string {
    return `${options.publicUrl}${LOCAL_OBJECTS_PATH}/${key}?${new URLSearchParams(query)}`;
  }

  async function readMeta(key: string): Promise<{ contentType?: string }> {
    try {
      return JSON.parse(await readFile(metaPath(key), 'utf8')) as { contentType?: string };
    } catch {
      return {};
    }
  }

  async function writeMeta(key: string, contentType: string): Promise<void> {
    await mkdir(path.dirname(metaPath(key)), PRIVATE_DIRECTORY);
    await writeFile(metaPath(key), JSON.stringify({ contentType }), { mode: PRIVATE_FILE_MODE });
  }

  async function head(key: string): Promise<StoredObjectInfo | null> {
    try {
      const stats = await stat(objectPath(key));
      const { contentType } = await readMeta(key);
      return contentType ? { size: stats.size, contentType } : { size: stats.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof NotFoundError) return null;
      throw error;
    }
  }

  async function open(key: string): Promise<Readable> {
    const file = objectPath(key);
    if (!(await head(key))) throw new NotFoundError('Object');
    return createReadStream(file);
  }

  async function newIncomingFile(): Promise<string> {
    await mkdir(incomingDir, PRIVATE_DIRECTORY);
    return path.join(incomingDir, randomUUID());
  }

  /** Fills a new file under incoming/, then renames it into place: readers never see a partial object. */
  async function writeThroughIncoming(key: string, fill: (incoming: string) => Promise<void>, { contentType }: { contentType: string }) {
    const file = objectPath(key);
    const incoming = await newIncomingFile();
    try {
      await fill(incoming);
      await mkdir(path.dirname(file), PRIVATE_DIRECTORY);
      await rename(incoming, file);
    } finally {
      await rm(incoming, { force: true });
    }
    await writeMeta(key, contentType);
  }

  return {
    kind: 'local',

    async presignUpload(key, { contentType, size, expiresInSeconds }): Promise<PresignedUpload> {
      objectPath(key);
      const expiresAt = new Date(Math.floor(now() / 1000 + expiresInSeconds) * 1000);
      const grant: UploadGrant = {
        expires: String(expiresAt.getTime() / 1000),
        contentType,
        ...(size !== undefined ? { size: String(size) } : { maxSize: String(options.maxUploadBytes) }),
      };
      const signature = signer.signUpload(key, grant);
      return {
        url: url(key, { ...(grant as Record<string, string>), signature }),
        method: 'PUT',
        headers: { 'Content-Type': contentType },
        expiresAt,
      };
    },

    async presignDownload(key, { expiresInSeconds, fileName }) {
      objectPath(key);
      const grant: DownloadGrant = {
        expires: String(Math.floor(now() / 1000 + expiresInSeconds)),
        ...(fileName !== undefined ? { fileName } : {}),
      };
      return url(key, { ...(grant as Record<string, string>), signature: signer.signDownload(key, grant) });
    },

    head,
    read: open,

    write: (key, body, options) => writeThroughIncoming(key, (incoming) => writeFile(incoming, body, { mode: PRIVATE_FILE_MODE }), options),

    writeStream: (key, body, options) => writeThroughIncoming(key, (incoming) => pipeIntoNewFile(body, incoming), options),

    async delete(key) {
      await rm(objectPath(key), { force: true });
      await rm(metaPath(key), { force: true });
    },

    async check() {
      await mkdir(options.directory, PRIVATE_DIRECTORY);
      await access(options.directory, constants.R_OK | constants.W_OK);
    },

    async *list(prefix) {
      const keys = (await filesUnder(dataDir)).filter((key) => key.startsWith(prefix)).sort();
      for (let i = 0; i < keys.length; i += LIST_PAGE_SIZE) yield keys.slice(i, i + LIST_PAGE_SIZE);
    },

    async deleteStalePartials(olderThan) {
      let deleted = 0;
      for (const name of await filesUnder(incomingDir)) {
        const file = path.join(incomingDir, name);
        const modified = await stat(file).then(
          (s) => s.mtimeMs,
          () => Infinity,
        );
        if (modified < olderThan.getTime()) {
          await rm(file, { force: true });
          deleted++;
        }
      }
      return deleted;
    },

    async receiveUpload({ key, grant, contentType, contentLength, body, targetStatus }) {
      const file = objectPath(key);
      signer.checkUpload(key, grant);
      if (contentType?.trim().toLowerCase() !== grant.contentType?.toLowerCase()) {
        throw new UnsupportedMediaTypeError(`Content-Type must be ${grant.contentType}, as when the URL was requested`);
      }
      const exactSize = grant.size !== undefined ? Number(grant.size) : undefined;
      const limit = exactSize ?? Number(grant.maxSize);
      const announced = contentLength !== undefined ? Number(contentLength) : undefined;
      if (announced !== undefined && announced > limit) throw tooLarge(limit);
      if (exactSize !== undefined && announced !== undefined && announced !== exactSize) throw wrongSize(exactSize);
      // The URL is single-use: once an object is there, a replay changes nothing.
      if (await head(key)) throw alreadyUploaded();
      // Nor does it outlive its asset (CONTRACT §8).
      const status = await targetStatus(key);
      if (status !== 'pending') throw status === null ? assetDeleted() : alreadyUploaded();

      const incoming = await newIncomingFile();
      try {
        const received = await streamToFile(body, incoming, limit);
        if (exactSize !== undefined && received !== exactSize) throw wrongSize(exactSize);
        await mkdir(path.dirname(file), PRIVATE_DIRECTORY);
        // link() fails if the object exists, so of two concurrent uploads exactly one wins.
        await link(incoming, file).catch((error: NodeJS.ErrnoException) => {
          throw error.code === 'EEXIST' ? alreadyUploaded() : error;
        });
        // Deleted while the bytes arrived: its DELETE found no object to remove, so this one goes.
        if ((await targetStatus(key)) === null) {
          await rm(file, { force: true });
          throw assetDeleted();
        }
        await writeMeta(key, grant.contentType!);
        return { size: received, contentType: grant.contentType! };
      } finally {
        await rm(incoming, { force: true });
      }
    },

    async openDownload(key, grant) {
      signer.checkDownload(key, grant);
      const info = await head(key);
      if (!info) throw new NotFoundError('Object');
      return { body: createReadStream(objectPath(key)), info, fileName: grant.fileName };
    },
  };
}

const LIST_PAGE_SIZE = 1000;

/** Paths of the files under `directory`, relative to it with `/` separators; none when it does not exist. */
async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

/**
 * Copies `body` into a new file chunk by chunk (never the whole body in memory) and stops with
 * 413 past `limit` bytes. The request stream is left open rather than destroyed, so that the
 * refusal can still be sent on its connection. Returns the number of bytes written.
 *
 * The body may already have been aborted (a malformed request, a client gone) while the checks
 * before this awaited: finished() reports that too, where a 'close' listener added now would
 * never fire and the file would stay open. Every way out destroys the file stream.
 */
async function streamToFile(body: Readable, file: string, limit: number): Promise<number> {
  let received = 0;
  const sizeLimit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      done(received > limit ? tooLarge(limit) : null, chunk);
    },
  });
  const stopWatching = finished(body, { writable: false }, (error) => {
    if (error) sizeLimit.destroy(new ValidationError('The upload was interrupted before the whole body arrived'));
  });
  body.pipe(sizeLimit);
  try {
    await pipeIntoNewFile(sizeLimit, file);
    return received;
  } finally {
    stopWatching();
    body.unpipe(sizeLimit);
  }
}

/**
 * Pipes `source` into a new private file. When it fails, it settles only once the file is closed:
 * pipeline() rejects as soon as a stream fails, while the file may still be opening, and a caller
 * that then removes it would run first and leave it behind (test/storage-release.test.ts).
 */
async function pipeIntoNewFile(source: Readable, file: string): Promise<void> {
  const out = createWriteStream(file, { flags: 'wx', mode: PRIVATE_FILE_MODE });
  try {
    await pipeline(source, out);
  } catch (error) {
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
    throw error;
  }
}

const tooLarge = (limit: number) => new PayloadTooLargeError(`The body is larger than this URL allows (${limit} bytes)`);
const wrongSize = (size: number) => new ValidationError(`The body must be exactly ${size} bytes, the size given when the URL was requested`);
const assetDeleted = () => new AppError(404, 'RESOURCE_NOT_FOUND', 'The asset of this upload URL was deleted; request a new URL');
const alreadyUploaded = () => new ConflictError('An object was already uploaded with this URL; request a new URL');

export const isLocalStore = (store: ObjectStore): store is LocalObjectStore => 'receiveUpload' in store;
