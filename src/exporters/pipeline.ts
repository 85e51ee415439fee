// The one export pipeline every network shares: read the entry HTML and the variant's files,
// point every reference at the right bytes (a data URI, inline text, or a file beside the HTML
// in a ZIP), add the network's bridge, the variant's config and the portable runtime, package,
// check the size on the final bytes, and validate the result against the network's rules.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import {
  attr,
  createElement,
  type Document,
  type Element,
  elements,
  parseHtml,
  prependToHead,
  removeAttr,
  removeElement,
  replaceElement,
  serializeHtml,
  setAttr,
  setText,
  textOf,
} from './html.js';
import { EXPORTERS } from './networks/index.js';
import type { VariantConfig } from './networks/types.js';
import { classifyReference, extensionOf, parseSrcset, resourceAttributes, rewriteCss, serializeSrcset } from './references.js';
import { type Network, type NetworkRules, rulesOf } from './rules.js';
import { runtimeScript } from './runtime.js';
import { validateArtifact } from './validate.js';

/** A file of the variant, read from the object store on demand. */
export interface SourceFile {
  fileName: string;
  contentType: string;
  open(): Promise<Readable>;
}

export interface ExportInput {
  network: Network;
  /** The variant's name; artifact and ZIP folder names are derived from it. */
  name: string;
  entry: SourceFile;
  assets: SourceFile[];
  config: VariantConfig;
}

export interface AssetReport {
  fileName: string;
  contentType: string;
  /** The file's own size. */
  size: number;
  /** How it ended up in the artifact. */
  placement: 'data-uri' | 'inline-text' | 'file' | 'asset-map';
  /** What it adds to the artifact: data-URI or text length, or its compressed size in the ZIP. */
  bytesInArtifact: number;
}

export interface ExportReport {
  network: Network;
  size: number;
  sizeLimitBytes: number;
  entry: { fileName: string; size: number };
  assets: AssetReport[];
  /** The checks the validation step ran, all passed. */
  checks: string[];
}

export interface Artifact {
  bytes: Buffer;
  fileName: string;
  contentType: string;
  size: number;
  /** SHA-256, hex. */
  checksum: string;
  report: ExportReport;
}

/** A failure the user must fix (a missing file, over the limit…): retrying cannot help. */
export class ExportFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportFailure';
  }
}

interface LoadedFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/** Formats already compressed gain nothing from deflate; storing them saves time. */
const STORED_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'mp3', 'm4a', 'aac', 'ogg', 'mp4', 'webm', 'woff', 'woff2', 'zip', 'glb']);
/** Fixed ZIP timestamps keep the checksum of an unchanged export stable. */
const ZIP_MTIME = new Date('2000-01-01T00:00:00Z');

/** The variant name as a file-name slug: `Summer Sale v2` → `summer-sale-v2`. */
export function fileSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'playable';
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(2)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${bytes} B`;
}

/** Inline script text may not close its own element. */
const scriptText = (text: string) => text.replace(/<\/(script)/gi, '<\\/$1');
const styleText = (text: string) => text.replace(/<\/(style)/gi, '<\\/$1');

async function load(file: SourceFile): Promise<LoadedFile> {
  return { fileName: file.fileName, contentType: file.contentType, bytes: await buffer(await file.open()) };
}

/**
 * Decides where each of the variant's files goes and what URL points at it, and remembers what
 * went wrong (missing files, external URLs) so that the export fails naming all of them at once.
 */
class Placement {
  readonly zipFiles = new Map<string, LoadedFile>();
  readonly usage = new Map<string, { placement: AssetReport['placement']; bytes: number }>();
  readonly missing = new Set<string>();
  readonly external = new Set<string>();
  private readonly rewrittenCss = new Map<string, Buffer>();
  private readonly cssInProgress = new Set<string>();

  constructor(
    private readonly rules: NetworkRules,
    readonly files: Map<string, LoadedFile>,
  ) {}

  /** Whether a file is laid out beside the HTML (ZIP) rather than inlined. */
  inZip(file: LoadedFile): boolean {
    if (this.rules.output !== 'zip') return false;
    const allowed = this.rules.allowedExtensions;
    return !allowed || allowed.includes(extensionOf(file.fileName));
  }

  /** The variant file a reference names, or undefined (recording what is wrong). */
  lookup(raw: string): LoadedFile | undefined {
    const ref = classifyReference(raw);
    if (ref.kind === 'external' && !this.rules.networkScripts.includes(ref.url)) this.external.add(ref.url);
    if (ref.kind !== 'file') return undefined;
    const file = this.files.get(ref.fileName);
    if (!file) this.missing.add(ref.fileName);
    return file;
  }

  /** The URL that replaces the reference `raw` in the output. */
  url(raw: string): string {
    const file = this.lookup(raw);
    return file ? this.urlOf(file) : raw;
  }

  /** A path inside the ZIP, or a data URI. */
  urlOf(file: LoadedFile, inlinedAs: 'data-uri' | 'asset-map' = 'data-uri'): string {
    const bytes = this.contentOf(file);
    if (this.inZip(file)) {
      this.zipFiles.set(file.fileName, { ...file, bytes });
      this.use(file, 'file', 0);
      return encodeURIComponent(file.fileName);
    }
    const dataUri = `data:${file.contentType};base64,${bytes.toString('base64')}`;
    this.use(file, inlinedAs, dataUri.length);
    return dataUri;
  }

  /** A file's bytes as exported: style sheets get their own references rewritten. */
  contentOf(file: LoadedFile): Buffer {
    if (extensionOf(file.fileName) !== 'css' && !file.contentType.startsWith('text/css')) return file.bytes;
    const done = this.rewrittenCss.get(file.fileName);
    if (done) return done;
    if (this.cssInProgress.has(file.fileName)) return file.bytes; // an @import cycle: leave it
    this.cssInProgress.add(file.fileName);
    const css = Buffer.from(this.css(file.bytes.toString('utf8'), 'stylesheet'));
    this.cssInProgress.delete(file.fileName);
    this.rewrittenCss.set(file.fileName, css);
    return css;
  }

  css(text: string, context: 'stylesheet' | 'declarationList'): string {
    return rewriteCss(text, context, (url) => this.url(url));
  }

  use(file: LoadedFile, placement: AssetReport['placement'], bytes: number): void {
    const previous = this.usage.get(file.fileName);
    this.usage.set(file.fileName, { placement: previous?.placement ?? placement, bytes: (previous?.bytes ?? 0) + bytes });
  }
}

/** Rewrites one element's references to the variant's files (inlining or relinking them). */
function rewriteElement(element: Element, placement: Placement, rules: NetworkRules): void {
  const tag = element.tagName;
  const src = tag === 'script' ? attr(element, 'src') : undefined;
  if (src !== undefined) {
    const ref = classifyReference(src);
    // The container's mraid.js and the network's own scripts are added once, in <head>.
    const networkOwned =
      (ref.kind === 'file' && ref.fileName === 'mraid.js' && !placement.files.has('mraid.js')) ||
      (ref.kind === 'external' && rules.networkScripts.includes(ref.url));
    if (networkOwned) return removeElement(element);
    const file = placement.lookup(src);
    if (file && !placement.inZip(file)) {
      // Inline script text, never a base64 src (some networks refuse those).
      const text = file.bytes.toString('utf8');
      removeAttr(element, 'src');
      setText(element, scriptText(text));
      placement.use(file, 'inline-text', Buffer.byteLength(text));
      return;
    }
  }

  const href = tag === 'link' ? attr(element, 'href') : undefined;
  if (href !== undefined && (attr(element, 'rel') ?? '').toLowerCase().split(/\s+/).includes('stylesheet')) {
    const file = placement.lookup(href);
    if (file && !placement.inZip(file)) {
      const css = placement.contentOf(file).toString('utf8');
      placement.use(file, 'inline-text', Buffer.byteLength(css));
      const media = attr(element, 'media');
      return replaceElement(element, createElement('style', media ? { media } : {}, styleText(css)));
    }
  }

  for (const name of resourceAttributes(element)) setAttr(element, name, placement.url(attr(element, name)!));
  const srcset = attr(element, 'srcset');
  if (srcset !== undefined) {
    setAttr(element, 'srcset', serializeSrcset(parseSrcset(srcset).map((c) => ({ ...c, url: placement.url(c.url) }))));
  }
  const style = attr(element, 'style');
  if (style !== undefined) setAttr(element, 'style', placement.css(style, 'declarationList'));
  if (tag === 'style') setText(element, styleText(placement.css(textOf(element), 'stylesheet')));
}

function failOnReferences(placement: Placement, network: Network, entryName: string): void {
  if (placement.missing.size) {
    throw new ExportFailure(
      `${entryName} references files that are not part of the variant: ${[...placement.missing].join(', ')}. ` +
        'Add them to the variant\'s assetIds or remove the references.',
    );
  }
  if (placement.external.size) {
    throw new ExportFailure(
      `${network} does not allow external references, but the game loads: ${[...placement.external].join(', ')}. ` +
        'Add these files to the variant instead.',
    );
  }
}

/** Builds, size-checks and validates the artifact for one network. Throws ExportFailure. */
export async function buildArtifact(input: ExportInput): Promise<Artifact> {
  const rules = rulesOf(input.network);
  const exporter = EXPORTERS[input.network];
  const slug = fileSlug(input.name);
  const entryPath = rules.entryPath.replaceAll('{name}', slug);
  const entryDir = entryPath.includes('/') ? entryPath.slice(0, entryPath.lastIndexOf('/') + 1) : '';

  const [entry, ...loaded] = await Promise.all([input.entry, ...input.assets].map(load));
  const files = new Map(loaded.filter((f) => f.fileName !== entry!.fileName).map((f) => [f.fileName, f]));
  const refused = [...files.values()].filter((f) => rules.forbiddenContentTypes?.some((t) => f.contentType.startsWith(t)));
  if (refused.length) {
    throw new ExportFailure(
      `${input.network} does not accept ${rules.forbiddenContentTypes!.join(', ')} files: ${refused.map((f) => f.fileName).join(', ')}`,
    );
  }

  const placement = new Placement(rules, files);
  const document = parseHtml(entry!.bytes.toString('utf8'));
  for (const element of elements(document)) rewriteElement(element, placement, rules);
  failOnReferences(placement, input.network, entry!.fileName);

  // Files the markup did not load stay reachable from scripts through window.playable.asset().
  const assetMap: Record<string, string> = {};
  for (const file of files.values()) {
    if (placement.inZip(file) || !placement.usage.has(file.fileName)) assetMap[file.fileName] = placement.urlOf(file, 'asset-map');
  }
  injectHead(document, input, rules, assetMap);
  const html = Buffer.from(serializeHtml(document));

  const packaged = rules.output === 'html' ? { bytes: html, compressed: new Map<string, number>() } : zip(entryPath, entryDir, html, placement, exporter.extraFiles?.(input.config));
  const report = assetReport(placement, packaged.compressed, entryDir);
  checkSize(packaged.bytes.length, rules, input.network, report);

  const validation = validateArtifact(input.network, packaged.bytes);
  if (validation.problems.length) {
    throw new ExportFailure(`The ${input.network} artifact does not pass the network's rules: ${validation.problems.join('; ')}`);
  }
  return {
    bytes: packaged.bytes,
    fileName: rules.artifactName.replaceAll('{name}', slug),
    contentType: rules.output === 'html' ? 'text/html; charset=utf-8' : 'application/zip',
    size: packaged.bytes.length,
    checksum: createHash('sha256').update(packaged.bytes).digest('hex'),
    report: {
      network: input.network,
      size: packaged.bytes.length,
      sizeLimitBytes: rules.sizeLimitBytes,
      entry: { fileName: entry!.fileName, size: entry!.bytes.length },
      assets: report,
      checks: validation.checks,
    },
  };
}

/** <head> gets, in order: the network's meta tags, mraid.js, its scripts, then the runtime. */
function injectHead(document: Document, input: ExportInput, rules: NetworkRules, assets: Record<string, string>): void {
  const exporter = EXPORTERS[input.network];
  const tags = exporter.headTags?.(input.config) ?? [];
  const nodes = [
    ...tags.map((t) => createElement(t.tag, t.attrs)),
    ...(rules.mraid === 'required' ? [createElement('script', { src: 'mraid.js' })] : []),
    ...rules.networkScripts.map((src) => createElement('script', { src })),
    createElement(
      'script',
      { id: 'playable-runtime' },
      scriptText(runtimeScript({ network: input.network, config: input.config, assets, bridge: exporter.bridge })),
    ),
  ];
  prependToHead(document, nodes);
}

function zip(
  entryPath: string,
  entryDir: string,
  html: Buffer,
  placement: Placement,
  extraFiles: Record<string, string> = {},
): { bytes: Buffer; compressed: Map<string, number> } {
  const entries: Zippable = { [entryPath]: [html, { level: 6 }] };
  for (const file of placement.zipFiles.values()) {
    entries[entryDir + file.fileName] = [file.bytes, { level: STORED_EXTENSIONS.has(extensionOf(file.fileName)) ? 0 : 6 }];
  }
  for (const [path, content] of Object.entries(extraFiles)) entries[path] = [Buffer.from(content), { level: 6 }];
  const bytes = Buffer.from(zipSync(entries, { mtime: ZIP_MTIME }));
  // The central directory has each entry's compressed size; reading it inflates nothing.
  const compressed = new Map<string, number>();
  unzipSync(bytes, {
    filter: (info) => {
      compressed.set(info.name, info.size);
      return false;
    },
  });
  return { bytes, compressed };
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

function checkSize(size: number, rules: NetworkRules, network: Network, assets: AssetReport[]): void {
  if (size <= rules.sizeLimitBytes) return;
  const largest = [...assets]
    .sort((a, b) => b.bytesInArtifact - a.bytesInArtifact)
    .slice(0, 3)
    .map((a) => `${a.fileName} (${formatBytes(a.bytesInArtifact)})`);
  throw new ExportFailure(
    `The ${network} export is ${formatBytes(size)} (${size} bytes), over the network's limit of ` +
      `${formatBytes(rules.sizeLimitBytes)} (${rules.sizeLimitBytes} bytes). Largest assets: ${largest.join(', ')}.`,
  );
}
