// The public route group of preview links, outside /api and its authentication: the signed
// token in the path is the credential (STYLE.md: route groups split by trust level), checked on
// every request — the page, the container script and each file of the artifact — so a revoked
// or expired link stops at once. Nothing here reads or sets a cookie.
//
//   GET /previews/<token>               the page (./page.ts)
//   GET /previews/<token>/container.js  the network's container, for the framed playable
//   GET /previews/<token>/play/<path>   the artifact's files; /play itself redirects to the entry
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { NotFoundError } from '../../errors.js';
import type { Network } from '../../exporters/rules.js';
import type { ObjectStore } from '../../storage/types.js';
import { type ArtifactFile, createArtifactCache, openArtifact, previewContainerScript } from './artifact.js';
import { type PreviewLinks, PREVIEWS_PATH } from './link.js';
import { PREVIEW_PAGE_CSP, renderPreviewPage } from './page.js';
import type { OpenedPreview, PreviewService } from './service.js';

/**
 * What the framed playable's files are served with: sandboxed even if opened on their own; loadable
 * from the frame's opaque origin (CORP cross-origin, and CORS for fetch(), which carries no
 * credentials); anything from this origin, data: and blob:, inline code included, but nothing
 * from elsewhere — as in the network's container, and as the export validation demands.
 */
const ARTIFACT_CSP = "sandbox allow-scripts; default-src 'self' data: blob: 'unsafe-inline' 'unsafe-eval'; form-action 'none'; frame-ancestors 'self'";

const tokenParams = z.object({ token: z.string().max(100) });
const fileParams = tokenParams.extend({ '*': z.string().max(1024) });

export interface PreviewPageRoutesOptions {
  previews: PreviewService;
  links: PreviewLinks;
  store: ObjectStore;
}

export const previewPageRoutes: FastifyPluginAsyncZod<PreviewPageRoutesOptions> = async (app, { previews, links, store }) => {
  const base = (token: string) => `${PREVIEWS_PATH}/${token}`;
  const artifacts = createArtifactCache();
  // A link is looked at again on every request: nothing of it may be cached.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store').header('x-robots-tag', 'noindex');
  });

  app.get(`${PREVIEWS_PATH}/:token`, {
    schema: { hide: true, params: tokenParams },
    handler: async (request, reply) => {
      const preview = await previews.open(request.params.token);
      const html = await renderPreviewPage({
        url: links.url(preview.id, preview.expiresAt),
        playUrl: `${base(request.params.token)}/play`,
        network: preview.export.network as Network,
        variantName: preview.export.variant.name,
        fileName: preview.export.fileName,
        size: preview.export.size === null ? null : Number(preview.export.size),
        expiresAt: preview.expiresAt,
      });
      return reply.header('content-security-policy', PREVIEW_PAGE_CSP).type('text/html; charset=utf-8').send(html);
    },
  });

  app.get(`${PREVIEWS_PATH}/:token/container.js`, {
    schema: { hide: true, params: tokenParams },
    handler: async (request, reply) => {
      const preview = await previews.open(request.params.token);
      return sendFile(reply, previewContainerScript(preview.export.network as Network));
    },
  });

  app.get(`${PREVIEWS_PATH}/:token/play`, {
    schema: { hide: true, params: tokenParams },
    handler: async (request, reply) => {
      const artifact = await open(await previews.open(request.params.token), request.params.token);
      return reply.redirect(`${base(request.params.token)}/play/${encodePath(artifact.entryPath)}`, 302);
    },
  });

  app.get(`${PREVIEWS_PATH}/:token/play/*`, {
    schema: { hide: true, params: fileParams },
    handler: async (request, reply) => {
      const artifact = await open(await previews.open(request.params.token), request.params.token);
      const file = artifact.file(request.params['*']);
      if (!file) throw new NotFoundError('File');
      return sendFile(reply, file);
    },
  });

  function open(preview: OpenedPreview, token: string) {
    return openArtifact(store, artifacts, { ...preview.export, storageKey: preview.export.storageKey! }, `${base(token)}/container.js`);
  }
};

function sendFile(reply: FastifyReply, file: ArtifactFile) {
  return reply
    .header('content-security-policy', ARTIFACT_CSP)
    .header('cross-origin-resource-policy', 'cross-origin')
    .header('access-control-allow-origin', '*')
    .type(file.contentType)
    .send(file.body);
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');
