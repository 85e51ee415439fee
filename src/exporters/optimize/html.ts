// HTML (the entry file), on parse5's tree like the package stage:
// - comments go (conditional comments stay);
// - inline <script> text is minified as JS (or as JSON for JSON types; other types, such as
//   shaders, are left alone), inline <style> as CSS;
// - whitespace-only text in <head> goes, and runs of whitespace in the body become one space or
//   one newline — which renders the same unless CSS makes whitespace visible, so this is skipped
//   when any of the variant's files mentions `white-space: pre…`/`break-spaces` or `whiteSpace`,
//   and never done inside <pre>, <textarea>, <listing>, <plaintext> or <xmp>.
// Why not html-minifier-terser: the package stage re-serializes the document with parse5, which
// restores every omitted tag and quote, so only the steps above survive — and they need parse5's
// tree, not a second parser.
import { type DefaultTreeAdapterMap, defaultTreeAdapter as tree } from 'parse5';
import { attr, type Element, elements, parseHtml, serializeHtml, setText, textOf } from '../html.js';
import { extensionOf } from '../references.js';
import { minifyCss } from './css.js';
import { minifyScript } from './js.js';
import { minifyJson } from './json.js';
import type { FileKind, StepOutcome, VariantFacts } from './types.js';

type ParentNode = DefaultTreeAdapterMap['parentNode'];

const JS_TYPES = /^(|module|(text|application)\/(x-)?(java|ecma)script)$/i;
const JSON_TYPES = /^(application\/([\w.+-]+\+)?json|importmap|speculationrules)$/i;
const VERBATIM = new Set(['pre', 'textarea', 'listing', 'plaintext', 'xmp', 'script', 'style']);
/** CSS or script text that can make whitespace visible. */
export const WHITESPACE_VISIBLE = /white-space\s*:\s*(pre|break-spaces)|whiteSpace/i;

async function minifyInline(element: Element): Promise<void> {
  const text = textOf(element);
  if (!text.trim()) return;
  if (element.tagName === 'style') {
    const css = await minifyCss(text);
    if (css !== undefined && css.length < text.length) setText(element, css);
    return;
  }
  if (attr(element, 'src') !== undefined) return;
  const type = (attr(element, 'type') ?? '').trim();
  let minified: string | undefined;
  if (JS_TYPES.test(type)) {
    const result = await minifyScript(text);
    if ('code' in result) minified = result.code.trimEnd();
  } else if (JSON_TYPES.test(type)) {
    minified = minifyJson(text);
  }
  if (minified !== undefined && minified.length < text.length) setText(element, minified);
}

/**
 * Removes comments and collapses whitespace under `root`; whitespace-only text directly in the
 * document, <html> or <head> (never rendered) goes entirely. Walks with an explicit stack: an
 * uploaded page may nest deeper than the call stack reaches.
 */
function tidy(root: ParentNode, collapseAll: boolean): void {
  const stack: Array<{ node: ParentNode; collapse: boolean; dropWhitespace: boolean }> = [{ node: root, collapse: collapseAll, dropWhitespace: true }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { node, collapse, dropWhitespace } = item;
    for (const child of [...node.childNodes]) {
      if (tree.isCommentNode(child)) {
        if (!/^\[if|^<!\[endif\]/.test(tree.getCommentNodeContent(child))) tree.detachNode(child);
      } else if (tree.isTextNode(child)) {
        const text = tree.getTextNodeContent(child);
        const whitespaceOnly = !/[^\t\n\f\r ]/.test(text);
        if (dropWhitespace && whitespaceOnly) tree.detachNode(child);
        else if (collapse) child.value = text.replace(/[\t\n\f\r ]+/g, (run) => (run.includes('\n') ? '\n' : ' '));
      } else if (tree.isElementNode(child)) {
        const tag = child.tagName;
        const content = tag === 'template' ? tree.getTemplateContent(child as DefaultTreeAdapterMap['template']) : child;
        stack.push({ node: content, collapse: collapse && !VERBATIM.has(tag), dropWhitespace: tag === 'html' || tag === 'head' });
      }
    }
  }
}

async function lossless(bytes: Buffer, facts: VariantFacts): Promise<StepOutcome> {
  const document = parseHtml(bytes.toString('utf8'));
  for (const element of elements(document)) {
    if (element.tagName === 'script' || element.tagName === 'style') await minifyInline(element);
  }
  tidy(document, !facts.whitespaceMatters);
  return { bytes: Buffer.from(serializeHtml(document)), action: 'minify HTML (comments, whitespace, inline scripts and styles)' };
}

export const html: FileKind = {
  name: 'html',
  version: 1,
  matches: (file) => ['html', 'htm'].includes(extensionOf(file.fileName)) || file.contentType.startsWith('text/html'),
  lossless,
  losslessSettings: (facts) => (facts.whitespaceMatters ? 'keep-whitespace' : 'collapse-whitespace'),
};
