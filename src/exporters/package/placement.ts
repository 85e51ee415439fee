// Where each of the variant's files goes in the artifact (a data URI, inline text, or a file
// beside the HTML in a ZIP) and what URL points at it; remembers what went wrong (missing files,
// external URLs) so that the export fails naming all of them at once.
import { classifyReference, extensionOf, rewriteCss } from '../references.js';
import type { NetworkRules } from '../rules.js';
import type { AssetReport, LoadedFile } from '../types.js';

/** Inline script text may not close its own element. */
export const scriptText = (text: string) => text.replace(/<\/(script)/gi, '<\\/$1');
export const styleText = (text: string) => text.replace(/<\/(style)/gi, '<\\/$1');

export class Placement {
  readonly zipFiles = new Map<string, LoadedFile>();
  readonly usage = new Map<string, { placement: AssetReport['placement']; bytes: number }>();
  readonly missing = new Set<string>();
  readonly external = new Set<string>();
  private readonly rewrittenCss = new Map<string, Buffer>();
  private readonly cssInProgress = new Set<string>();

  constructor(
    readonly rules: NetworkRules,
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
