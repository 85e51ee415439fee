// A batch's ZIP, produced as a stream (fflate's streaming Zip): each succeeded artifact is read
// from the object store chunk by chunk and written on at the pace the consumer takes it (the
// store's streaming write), so memory stays bounded by a few chunks whatever the batch weighs.
// Layout: `<variant name>/<network>/<fileName>` per artifact, then `manifest.json` listing
// every export of the batch.
import { PassThrough, type Readable } from 'node:stream';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { NotFoundError } from '../../errors.js';
import type { ObjectStore } from '../../storage/types.js';

export interface ArchivedExport {
  id: string;
  variantId: string;
  variantName: string;
  network: string;
  status: string;
  fileName: string | null;
  storageKey: string | null;
  size: number | null;
  checksum: string | null;
  error: string | null;
}

export interface BatchArchive {
  stream: Readable;
  /** Bytes produced so far (the ZIP's size once the stream has ended). */
  bytes(): number;
}

export function batchArchive(store: ObjectStore, batch: { id: string; organizationId: string; createdAt: Date }, exports: ArchivedExport[]): BatchArchive {
  const out = new PassThrough();
  let bytes = 0;
  const zip = new Zip((error, chunk, final) => {
    if (error) return void out.destroy(error);
    bytes += chunk.length;
    out.write(chunk);
    if (final) out.end();
  });

  async function addEntry(path: string, compress: boolean, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
    // Artifacts that are ZIPs already are stored as they are; HTML and the manifest are deflated.
    const entry = compress ? new ZipDeflate(path) : new ZipPassThrough(path);
    zip.add(entry);
    for await (const chunk of chunks) {
      entry.push(chunk);
      if (out.writableNeedDrain) await drained(out);
    }
    entry.push(new Uint8Array(0), true);
  }

  async function fill() {
    const paths = entryPaths();
    const listed = [];
    for (const e of exports) {
      let path: string | null = null;
      let error = e.error;
      if (e.status === 'succeeded' && e.storageKey && e.fileName) {
        const source = await openArtifact(store, e.storageKey);
        if (source) {
          path = paths.of(e.variantId, e.variantName, e.network, e.fileName);
          await addEntry(path, !e.fileName.toLowerCase().endsWith('.zip'), source);
        } else {
          error = 'The artifact is missing from storage';
        }
      }
      const { id, variantId, variantName: variant, network, status, size, checksum } = e;
      listed.push({ id, variant, variantId, network, status, path, size, checksum, error });
    }
    const manifest = { batchId: batch.id, organizationId: batch.organizationId, createdAt: batch.createdAt.toISOString(), exports: listed };
    await addEntry('manifest.json', true, [Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)]);
    zip.end();
  }
  fill().catch((error: unknown) => out.destroy(error as Error));
  return { stream: out, bytes: () => bytes };
}

async function openArtifact(store: ObjectStore, key: string): Promise<Readable | null> {
  try {
    return await store.read(key);
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/** Resolves once `stream` wants more; throws if it was closed instead (its consumer gave up). */
async function drained(stream: PassThrough): Promise<void> {
  await new Promise<void>((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done);
      resolve();
    };
    stream.on('drain', done).on('close', done);
  });
  if (stream.destroyed) throw new Error('The ZIP stream was closed before it was complete');
}

/**
 * Paths inside the ZIP. A name becomes one safe path segment (no separators, control characters
 * or dot-only names, which an unzip tool would treat as a path); two variants of different games
 * with the same name get " (2)", " (3)"… in the order they were requested.
 */
function entryPaths() {
  const folders = new Map<string, string>();
  const taken = new Set<string>();
  return {
    of(variantId: string, variantName: string, network: string, fileName: string): string {
      let folder = folders.get(variantId);
      if (!folder) {
        const base = segment(variantName);
        folder = base;
        for (let n = 2; taken.has(folder.toLowerCase()); n++) folder = `${base} (${n})`;
        taken.add(folder.toLowerCase());
        folders.set(variantId, folder);
      }
      return `${folder}/${segment(network)}/${segment(fileName)}`;
    },
  };
}

function segment(name: string): string {
  const cleaned = name.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_').trim();
  return cleaned === '' || /^\.+$/.test(cleaned) ? '_' : cleaned;
}
