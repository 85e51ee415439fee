// The artifact of a preview, file by file, as the framed playable requests it: one HTML file
// under its file name, or a ZIP's entries under their paths. The entry HTML gets the network's
// container first of all — the same stubs the export's browser validation installs
// (src/exporters/containers/), reporting to the preview page through PARENT_FRAME_HOST — and the
// scripts the network would serve itself (mraid.js, Google's exitapi.js) are answered with it.
import { buffer } from 'node:stream/consumers';
import { unzipSync } from 'fflate';
import { LRUCache } from 'lru-cache';
import { contentType } from 'mime-types';
import { containerScript, containerScripts, PARENT_FRAME_HOST } from '../../exporters/containers/index.js';
import { findEntry, type Network, rulesOf } from '../../exporters/rules.js';
import type { ObjectStore } from '../../storage/types.js';

export interface ArtifactFile {
  body: Buffer | string;
  contentType: string;
}

/** The container script of a network, as the preview serves it to the framed playable. */
export const previewContainerScript = (network: Network): ArtifactFile => ({
  body: containerScript(network, PARENT_FRAME_HOST),
  contentType: 'text/javascript; charset=utf-8',
});

export interface OpenArtifact {
  /** The entry HTML's path inside the artifact. */
  entryPath: string;
  /** A file by its path inside the artifact (the entry with the container added), or null. */
  file(path: string): ArtifactFile | null;
}

interface ExportedArtifact {
  network: string;
  storageKey: string;
  fileName: string | null;
}

/**
 * Artifacts read from the store, by storage key (an export's artifact never changes under its
 * key): a page load asks for each file of a ZIP, and reading the whole artifact (up to its
 * network's limit) for each would let a shared link multiply store reads. Bounded in bytes and
 * time; the link itself is still checked on every request (page-routes.ts).
 */
export function createArtifactCache({ maxBytes = 64 * 1024 ** 2, ttlMs = 60_000 } = {}) {
  const cache = new LRUCache<string, { files: Files; size: number }>({ maxSize: maxBytes, sizeCalculation: (entry) => Math.max(1, entry.size), ttl: ttlMs });
  return async function filesOf(store: ObjectStore, exported: ExportedArtifact): Promise<Files> {
    const cached = cache.get(exported.storageKey);
    if (cached) return cached.files;
    const bytes = await buffer(await store.read(exported.storageKey));
    const files = rulesOf(exported.network as Network).output === 'html' ? singleFile(exported.fileName ?? 'index.html', bytes) : zipFiles(bytes);
    if (bytes.length <= maxBytes) cache.set(exported.storageKey, { files, size: bytes.length });
    return files;
  };
}
export type ArtifactCache = ReturnType<typeof createArtifactCache>;

/**
 * A succeeded export's artifact (bounded by its network's size limit), through `cache`.
 * `containerSrc` is the URL of the container script the entry HTML loads before anything else.
 */
export async function openArtifact(store: ObjectStore, cache: ArtifactCache, exported: ExportedArtifact, containerSrc: string): Promise<OpenArtifact> {
  const network = exported.network as Network;
  const rules = rulesOf(network);
  const files = await cache(store, exported);
  const entryPath = rules.output === 'html' ? files.paths[0]! : (findEntry(rules.entryPath, files.paths) ?? 'index.html');
  const entryDir = entryPath.slice(0, entryPath.lastIndexOf('/') + 1);
  // Relative ones (mraid.js) resolve beside the entry; absolute ones are pointed at containerSrc.
  const servedScripts = containerScripts(network).filter((script) => !/^https?:/i.test(script));

  return {
    entryPath,
    file(path) {
      const content = files.read(path);
      if (content && path === entryPath) {
        return { body: withContainer(Buffer.from(content).toString('utf8'), network, containerSrc), contentType: 'text/html; charset=utf-8' };
      }
      if (content) return { body: Buffer.from(content), contentType: contentType(path.slice(path.lastIndexOf('/') + 1)) || 'application/octet-stream' };
      if (servedScripts.some((script) => `${entryDir}${script}` === path)) return previewContainerScript(network);
      return null;
    },
  };
}

interface Files {
  paths: string[];
  read(path: string): Uint8Array | undefined;
}

function singleFile(fileName: string, bytes: Buffer): Files {
  return { paths: [fileName], read: (path) => (path === fileName ? bytes : undefined) };
}

/** A ZIP's entries, each inflated only when asked for. */
function zipFiles(bytes: Buffer): Files {
  const paths: string[] = [];
  unzipSync(bytes, {
    filter: (file) => {
      if (!file.name.endsWith('/')) paths.push(file.name);
      return false;
    },
  });
  return {
    paths,
    read: (path) => (paths.includes(path) ? unzipSync(bytes, { filter: (file) => file.name === path })[path] : undefined),
  };
}

/** The entry HTML with the container script as its first script, and the network's own script URLs pointed at it. */
export function withContainer(html: string, network: Network, containerSrc: string): string {
  let out = html;
  for (const script of containerScripts(network)) if (/^https?:/i.test(script)) out = out.split(script).join(containerSrc);
  const tag = `<script src="${containerSrc}"></script>`;
  const opening = /<head\b[^>]*>/i.exec(out) ?? /<html\b[^>]*>/i.exec(out) ?? /<!doctype[^>]*>/i.exec(out);
  const at = opening ? opening.index + opening[0].length : 0;
  return `${out.slice(0, at)}${tag}${out.slice(at)}`;
}
