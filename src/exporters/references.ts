// What a reference in the game's HTML or CSS points at, and where such references are.
import parseSrcsetAttribute from '@prettier/parse-srcset';
import * as csstree from 'css-tree';
import { attr, type Element } from './html.js';

export type Reference =
  /** Nothing to resolve: data:/blob: URLs, fragments, javascript:, mailto: … */
  | { kind: 'inline' }
  /** Something on another host (http:, https:, protocol-relative //host). */
  | { kind: 'external'; url: string }
  /** A file of the game, matched against the variant's assets by file name. */
  | { kind: 'file'; fileName: string };

/** `Logo.PNG` → `png`; '' when there is none. */
export const extensionOf = (fileName: string) => (fileName.includes('.') ? fileName.split('.').pop()!.toLowerCase() : '');

const INLINE_SCHEMES = new Set(['data:', 'blob:', 'javascript:', 'mailto:', 'tel:', 'about:']);

export function classifyReference(raw: string): Reference {
  const value = raw.trim();
  if (value === '' || value.startsWith('#')) return { kind: 'inline' };
  if (value.startsWith('//')) return { kind: 'external', url: value };
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(value)?.[1]?.toLowerCase();
  if (scheme) return INLINE_SCHEMES.has(scheme) ? { kind: 'inline' } : { kind: 'external', url: value };
  // A relative path: the game is flat once exported, so only the last segment names the file.
  const path = value.split(/[?#]/, 1)[0]!;
  const last = path.split(/[\\/]/).pop() ?? '';
  let fileName = last;
  try {
    fileName = decodeURIComponent(last);
  } catch {
    // a stray % stays as written
  }
  return fileName ? { kind: 'file', fileName } : { kind: 'inline' };
}

/** The JavaScript MIME type essences (WHATWG MIME Sniffing, "JavaScript MIME type"). */
const JAVASCRIPT_TYPES = new Set([
  'application/ecmascript',
  'application/javascript',
  'application/x-ecmascript',
  'application/x-javascript',
  'text/ecmascript',
  'text/javascript',
  'text/javascript1.0',
  'text/javascript1.1',
  'text/javascript1.2',
  'text/javascript1.3',
  'text/javascript1.4',
  'text/javascript1.5',
  'text/jscript',
  'text/livescript',
  'text/x-ecmascript',
  'text/x-javascript',
]);

/** Whether a <script> of this `type` attribute is a classic script (HTML: absent, empty or a JavaScript MIME type). */
export function isClassicScriptType(type: string | undefined): boolean {
  const essence = type?.trim().toLowerCase();
  return !essence || JAVASCRIPT_TYPES.has(essence);
}

/** Base64 as browsers read it (WHATWG "forgiving-base64 decode"); undefined where they would fail. */
function forgivingBase64(text: string): Buffer | undefined {
  let data = text.replace(/[\t\n\f\r ]/g, '');
  if (data.length % 4 === 0) data = data.replace(/==?$/, '');
  if (data.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(data)) return undefined;
  return Buffer.from(data, 'base64');
}

/**
 * The text of the script a `data:` URL carries when its media type is JavaScript, else undefined
 * (another type, or base64 a browser would not decode). Read as Fetch's data: URL processor does:
 * percent-decoded, then base64-decoded if it says `;base64`; the bytes decoded by its `charset`,
 * UTF-8 when it names none or one unknown.
 */
export function dataUrlScript(url: string): string | undefined {
  const match = /^data:([^,]*),(.*)$/is.exec(url.trim().replace(/[\t\n\r]/g, ''));
  if (!match) return undefined;
  const parameters = match[1]!.split(';').map((p) => p.trim());
  const base64 = parameters.length > 1 && parameters.at(-1)!.toLowerCase() === 'base64';
  if (base64) parameters.pop();
  if (!JAVASCRIPT_TYPES.has(parameters[0]!.toLowerCase())) return undefined;
  const percentDecoded = Buffer.from(match[2]!, 'utf8')
    .toString('latin1')
    .replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  const bytes = base64 ? forgivingBase64(percentDecoded) : Buffer.from(percentDecoded, 'latin1');
  if (!bytes) return undefined;
  const charset = parameters
    .slice(1)
    .map((p) => /^charset\s*=\s*"?([^"]*)"?$/i.exec(p)?.[1])
    .find((value) => value !== undefined);
  try {
    return new TextDecoder(charset || 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes); // a charset the decoder does not know: UTF-8, as browsers fall back
  }
}

/**
 * Whether a reference names the container's `mraid.js` (CONTRACT §14: by that name, in any case
 * and folder, never an asset of the variant): the network serves it, or the export's shim stands in.
 */
export const isContainerMraid = (ref: Reference) => ref.kind === 'file' && ref.fileName.toLowerCase() === 'mraid.js';

/** Attributes that load a resource, by element (`*` for any element; SVG uses href / xlink:href). */
const RESOURCE_ATTRIBUTES: Record<string, string[]> = {
  script: ['src'],
  link: ['href'],
  img: ['src'],
  source: ['src'],
  video: ['src', 'poster'],
  audio: ['src'],
  track: ['src'],
  iframe: ['src'],
  embed: ['src'],
  object: ['data'],
  input: ['src'],
  image: ['href', 'xlink:href'],
  use: ['href', 'xlink:href'],
  feimage: ['href', 'xlink:href'],
};

/** The element's attributes that load a single resource (srcset and style are separate). */
export function resourceAttributes(element: Element): string[] {
  return (RESOURCE_ATTRIBUTES[element.tagName] ?? []).filter((name) => attr(element, name) !== undefined);
}

export interface SrcsetCandidate {
  url: string;
  /** Where the URL starts in the attribute's value. */
  start: number;
}

/**
 * `srcset` candidates by the HTML standard's "parse a srcset attribute" rules (a maintained port
 * of the WHATWG algorithm): a URL ends at whitespace, so a data: URL keeps its commas. An empty
 * srcset has none; one browsers would not wholly use (a bad descriptor …) throws, saying why.
 */
export function parseSrcset(value: string): SrcsetCandidate[] {
  if (value.trim() === '') return [];
  return parseSrcsetAttribute(value).map((c) => ({ url: c.source.value, start: c.source.startOffset }));
}

/**
 * `srcset` with each candidate's URL replaced by `rewrite(url)`; descriptors and spacing stay
 * as written. An invalid srcset is left as it is: the validation step names it
 * (src/exporters/validate.ts), rather than the export guessing what was meant.
 */
export function rewriteSrcset(value: string, rewrite: (url: string) => string): string {
  let candidates: SrcsetCandidate[];
  try {
    candidates = parseSrcset(value);
  } catch {
    return value;
  }
  let rewritten = value;
  for (const { url, start } of candidates.reverse()) {
    rewritten = rewritten.slice(0, start) + rewrite(url) + rewritten.slice(start + url.length);
  }
  return rewritten;
}

/**
 * Rewrites every url(...) and @import target of a style sheet (or of a style attribute's
 * declarations) through `rewrite`, which returns the new URL. Uses css-tree's parser, so
 * comments and strings are handled as CSS defines them.
 */
export function rewriteCss(css: string, context: 'stylesheet' | 'declarationList', rewrite: (url: string) => string): string {
  const ast = csstree.parse(css, { context, parseValue: true, parseAtrulePrelude: true });
  csstree.walk(ast, function (this: csstree.WalkContext, node: csstree.CssNode) {
    if (node.type === 'Url') node.value = rewrite(node.value);
    // @import "file.css" names its target with a plain string.
    else if (node.type === 'String' && this.atrule?.name.toLowerCase() === 'import') node.value = rewrite(node.value);
  });
  return csstree.generate(ast);
}
