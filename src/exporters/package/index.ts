// Stage 3, package: the entry HTML rewritten so that every reference points at the right bytes,
// the network's bridge, the config and the runtime added, then one HTML file or a ZIP, with the
// per-asset size report. Knows nothing of optimization: it packages whatever bytes it is given.
import { elements, parseHtml, serializeHtml } from '../html.js';
import { EXPORTERS } from '../networks/index.js';
import type { NetworkRules } from '../rules.js';
import type { AssetReport, ExportInput, LoadedVariant } from '../types.js';
import { Placement } from './placement.js';
import { deferredScripts, failOnReferences, injectHead, keepDeferredOrder, rewriteElement } from './rewrite.js';
import { zip } from './zip.js';

export interface Packaged {
  bytes: Buffer;
  fileName: string;
  contentType: string;
  /** The entry HTML's path inside a ZIP (the file name of a single HTML). */
  entryPath: string;
  assets: AssetReport[];
  /** Bytes of the injected runtime script (window.playable and any adapters), as it stands in the HTML. */
  runtimeBytes: number;
}

/** The variant name as a file-name slug: `Summer Sale v2` → `summer-sale-v2`, `Été` → `ete`. */
export function fileSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // the accents NFKD split off their letters
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'playable';
}

/** `shims`: the adapters for the APIs the entry uses (../shims/), appended to the runtime. */
export function packageArtifact(variant: LoadedVariant, input: ExportInput, rules: NetworkRules, shims: string[] = []): Packaged {
  const slug = fileSlug(input.name);
  const entryPath = rules.entryPath.replaceAll('{name}', slug);
  const entryDir = entryPath.includes('/') ? entryPath.slice(0, entryPath.lastIndexOf('/') + 1) : '';

  const placement = new Placement(rules, variant.files);
  const document = parseHtml(variant.entry.bytes.toString('utf8'));
  const all = elements(document);
  const deferred = deferredScripts(all);
  for (const element of all) rewriteElement(element, placement, rules);
  keepDeferredOrder(document, deferred);
  failOnReferences(placement, input.network, variant.entry.fileName);

  // Files the markup did not load stay reachable from scripts through window.playable.asset().
  const assetMap: Record<string, string> = {};
  for (const file of variant.files.values()) {
    if (placement.inZip(file) || !placement.usage.has(file.fileName)) assetMap[file.fileName] = placement.urlOf(file, 'asset-map');
  }
  const runtimeBytes = injectHead(document, input, rules, assetMap, shims);
  const html = Buffer.from(serializeHtml(document));

  const packaged =
    rules.output === 'html'
      ? { bytes: html, compressed: new Map<string, number>() }
      : zip(entryPath, entryDir, html, placement.zipFiles.values(), EXPORTERS[input.network].extraFiles?.(input.config));
  return {
    bytes: packaged.bytes,
    fileName: rules.artifactName.replaceAll('{name}', slug),
    contentType: rules.output === 'html' ? 'text/html; charset=utf-8' : 'application/zip',
    entryPath,
    assets: assetReport(placement, packaged.compressed, entryDir),
    runtimeBytes,
  };
}

function assetReport(placement: Placement, compressed: Map<string, number>, entryDir: string): AssetReport[] {
  return [...placement.files.values()].map((file) => {
    const use = placement.usage.get(file.fileName);
    return {
      fileName: file.fileName,
      contentType: file.contentType,
      size: file.bytes.length,
      placement: use?.placement ?? 'asset-map',
      bytesInArtifact: use?.placement === 'file' ? (compressed.get(entryDir + file.fileName) ?? 0) : (use?.bytes ?? 0),
    };
  });
}
