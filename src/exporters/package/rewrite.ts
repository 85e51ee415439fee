// The entry HTML's rewriting: every element's references pointed at the right bytes (inlined or
// relinked through Placement), and the network's tags, mraid.js and the runtime put in <head>.
import {
  appendToBody,
  attr,
  createElement,
  type Document,
  type Element,
  inDocumentTree,
  prependToHead,
  removeAttr,
  removeElement,
  replaceElement,
  setAttr,
  setText,
  textOf,
} from '../html.js';
import { EXPORTERS } from '../networks/index.js';
import { classifyReference, dataUrlScript, isClassicScriptType, isContainerMraid, resourceAttributes, rewriteSrcset } from '../references.js';
import type { Network, NetworkRules } from '../rules.js';
import { runtimeScript } from '../runtime.js';
import { type ExportInput, ExportFailure } from '../types.js';
import { type Placement, scriptText, styleText } from './placement.js';

/** Rewrites one element's references to the variant's files (inlining or relinking them). */
export function rewriteElement(element: Element, placement: Placement, rules: NetworkRules): void {
  const tag = element.tagName;
  const src = tag === 'script' ? attr(element, 'src') : undefined;
  if (src !== undefined) {
    const ref = classifyReference(src);
    // The container's mraid.js and the network's own scripts are added once, in <head>.
    const networkOwned = isContainerMraid(ref) || (ref.kind === 'external' && rules.networkScripts.includes(ref.url));
    if (networkOwned) return removeElement(element);
    // A JavaScript data: URI becomes its text as well: Meta refuses a script loaded from one, and
    // no network needs it. The element keeps its other attributes (type="module"…).
    const carried = dataUrlScript(src);
    if (carried !== undefined) {
      removeAttr(element, 'src');
      return setText(element, scriptText(carried));
    }
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
  if (srcset !== undefined)
    setAttr(
      element,
      'srcset',
      rewriteSrcset(srcset, (url) => placement.url(url)),
    );
  const style = attr(element, 'style');
  if (style !== undefined) setAttr(element, 'style', placement.css(style, 'declarationList'));
  if (tag === 'style') setText(element, styleText(placement.css(textOf(element), 'stylesheet')));
}

/** The classic scripts of the document that load a file after the document is parsed (`defer`, not `async`). */
export function deferredScripts(elements: Element[]): Element[] {
  return elements.filter(
    (e) =>
      e.tagName === 'script' &&
      attr(e, 'src') !== undefined &&
      attr(e, 'defer') !== undefined &&
      attr(e, 'async') === undefined &&
      isClassicScriptType(attr(e, 'type')) &&
      inDocumentTree(e),
  );
}

/**
 * Script text runs where it stands and ignores `defer`, so the deferred scripts move, in their
 * order, to the end of <body> without it: they still run after everything else is parsed and
 * before DOMContentLoaded, as the browser would have run the files. Those kept as files of a ZIP
 * move too, or an inlined one would now run before a file that came first. (A module script keeps
 * its place: inline, it is deferred anyway. An `async` one runs at once, a time it could have run.
 * A frameset page has no <body>: its scripts stay.)
 */
export function keepDeferredOrder(document: Document, deferred: Element[]): void {
  const kept = deferred.filter((e) => e.parentNode);
  if (kept.length && appendToBody(document, kept)) for (const element of kept) removeAttr(element, 'defer');
}

export function failOnReferences(placement: Placement, network: Network, entryName: string): void {
  if (placement.missing.size) {
    throw new ExportFailure(
      `${entryName} references files that are not part of the variant: ${[...placement.missing].join(', ')}. ` +
        "Add them to the variant's assetIds or remove the references.",
    );
  }
  if (placement.external.size) {
    throw new ExportFailure(
      `${network} does not allow external references, but the game loads: ${[...placement.external].join(', ')}. ` + 'Add these files to the variant instead.',
    );
  }
}

/**
 * <head> gets, in order: the network's meta tags, mraid.js, its scripts, then the runtime with
 * `shims` appended. Returns the runtime's bytes.
 */
export function injectHead(document: Document, input: ExportInput, rules: NetworkRules, assets: Record<string, string>, shims: string[]): number {
  const exporter = EXPORTERS[input.network];
  const tags = exporter.headTags?.(input.config) ?? [];
  const runtime = scriptText(runtimeScript({ network: input.network, config: input.config, assets, bridge: exporter.bridge, shims }));
  const nodes = [
    ...tags.map((t) => createElement(t.tag, t.attrs)),
    ...(rules.mraid === 'required' ? [createElement('script', { src: 'mraid.js' })] : []),
    ...rules.networkScripts.map((src) => createElement('script', { src })),
    createElement('script', { id: 'playable-runtime' }, runtime),
  ];
  prependToHead(document, nodes);
  return Buffer.byteLength(runtime);
}
