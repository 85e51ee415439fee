// The local store's signed route group, outside /api and its authentication: the URL itself is
// the credential (STYLE.md: route groups split by trust level). PUT receives an upload, GET
// serves a download; both are checked by the store (src/storage/local.ts), in one place.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LOCAL_OBJECTS_PATH, type LocalObjectStore, type UploadTargetStatus } from './local.js';

const keyParams = z.object({ '*': z.string().max(1024) });
const field = z.string().max(1024).optional();
// Loose: the whole query reaches the signature check, which refuses parameters nobody signed.
const uploadGrant = z.looseObject({ expires: field, contentType: field, size: field, maxSize: field, signature: field });
const downloadGrant = z.looseObject({ expires: field, fileName: field, signature: field });

export interface LocalObjectRoutesOptions {
  store: LocalObjectStore;
  /** The status of the asset an upload key belongs to (the routes know no database). */
  uploadTargetStatus(key: string): Promise<UploadTargetStatus>;
}

export const localObjectRoutes: FastifyPluginAsyncZod<LocalObjectRoutesOptions> = async (app, { store, uploadTargetStatus }) => {
  // Bodies here are files of any type: leave them unread for the handler to stream to disk.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  app.put(`${LOCAL_OBJECTS_PATH}/*`, {
    schema: { hide: true, params: keyParams, querystring: uploadGrant },
    handler: async (request, reply) => {
      try {
        await store.receiveUpload({
          key: request.params['*'],
          grant: request.query,
          contentType: request.headers['content-type'],
          contentLength: request.headers['content-length'],
          body: request.raw,
          targetStatus: uploadTargetStatus,
        });
      } catch (error) {
        // The rest of a refused body is not read; close the connection instead of draining it.
        reply.header('connection', 'close');
        throw error;
      }
      return reply.code(200).send();
    },
  });

  app.get(`${LOCAL_OBJECTS_PATH}/*`, {
    schema: { hide: true, params: keyParams, querystring: downloadGrant },
    handler: async (request, reply) => {
      const { body, info, fileName } = await store.openDownload(request.params['*'], request.query);
      return (
        reply
          .header('content-type', info.contentType ?? 'application/octet-stream')
          .header('content-length', info.size)
          .header('content-disposition', attachment(fileName))
          // Uploaded HTML must never run with this origin's rights, even if a browser renders it.
          .header('content-security-policy', 'sandbox')
          .header('x-content-type-options', 'nosniff')
          .header('cache-control', 'private, no-store')
          .send(body)
      );
    },
  });
};

/** `Content-Disposition: attachment` with the file name in ASCII and in RFC 5987 UTF-8. */
function attachment(fileName: string | undefined): string {
  if (!fileName) return 'attachment';
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
