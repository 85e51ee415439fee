// Small helpers over parse5's default tree: the pipeline and the validation step read and
// rewrite HTML through these, never with regular expressions.
import { type DefaultTreeAdapterMap, html, defaultTreeAdapter as tree, parse, serialize } from 'parse5';

export type Document = DefaultTreeAdapterMap['document'];
export type Element = DefaultTreeAdapterMap['element'];
type ParentNode = DefaultTreeAdapterMap['parentNode'];
type ChildNode = DefaultTreeAdapterMap['childNode'];

export const parseHtml = (html: string): Document => parse(html);
export const serializeHtml = (document: Document): string => serialize(document);

/**
 * Every element in document order, including those inside <template> content. An explicit stack,
 * not recursion: an uploaded page may nest elements deeper than the call stack reaches.
 */
export function elements(root: ParentNode): Element[] {
  const found: Element[] = [];
  const pending: ChildNode[] = [...root.childNodes].reverse();
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (!tree.isElementNode(node)) continue;
    found.push(node);
    // Pushed last-first so they come off the stack in document order: children, then template content.
    if (node.tagName === 'template') pending.push(...[...tree.getTemplateContent(node as DefaultTreeAdapterMap['template']).childNodes].reverse());
    for (let i = node.childNodes.length - 1; i >= 0; i--) pending.push(node.childNodes[i]!);
  }
  return found;
}

export function attr(element: Element, name: string): string | undefined {
  return element.attrs.find((a) => a.name === name)?.value;
}

export function setAttr(element: Element, name: string, value: string): void {
  const existing = element.attrs.find((a) => a.name === name);
  if (existing) existing.value = value;
  else element.attrs.push({ name, value });
}

export function removeAttr(element: Element, name: string): void {
  element.attrs = element.attrs.filter((a) => a.name !== name);
}

/** The text of a <script> or <style> element. */
export function textOf(element: Element): string {
  return element.childNodes.map((n) => (tree.isTextNode(n) ? tree.getTextNodeContent(n) : '')).join('');
}

/** Replaces an element's children with one text node (serialized raw inside <script>/<style>). */
export function setText(element: Element, text: string): void {
  for (const child of [...element.childNodes]) tree.detachNode(child);
  tree.insertText(element, text);
}

export function createElement(tagName: string, attrs: Record<string, string>, text?: string): Element {
  const element = tree.createElement(
    tagName,
    html.NS.HTML,
    Object.entries(attrs).map(([name, value]) => ({ name, value })),
  );
  if (text !== undefined) tree.insertText(element, text);
  return element;
}

export function replaceElement(old: Element, replacement: Element): void {
  const parent = old.parentNode;
  if (!parent) return;
  tree.insertBefore(parent, replacement, old);
  tree.detachNode(old);
}

export function removeElement(element: Element): void {
  tree.detachNode(element);
}

/** The document's <head> (parse5 always creates one). */
export function headOf(document: Document): Element {
  const head = elements(document).find((e) => e.tagName === 'head');
  if (!head) throw new Error('parse5 produced a document without <head>');
  return head;
}

/** Moves `nodes`, in their order, to the end of <body>; false for a document without one (a frameset), which keeps them. */
export function appendToBody(document: Document, nodes: Element[]): boolean {
  const body = elements(document).find((e) => e.tagName === 'body');
  if (!body) return false;
  for (const node of nodes) {
    tree.detachNode(node);
    tree.appendChild(body, node);
  }
  return true;
}

/** Whether an element is part of the document itself, not of a <template>'s inert content. */
export function inDocumentTree(element: Element): boolean {
  let node: ParentNode | null = element.parentNode;
  while (node && 'parentNode' in node) node = node.parentNode;
  return node?.nodeName === '#document';
}

/** Inserts `nodes` at the start of <head>, after any charset declaration (which must come first). */
export function prependToHead(document: Document, nodes: Element[]): void {
  const head = headOf(document);
  const charset = head.childNodes.find((n): n is Element => tree.isElementNode(n) && n.tagName === 'meta' && attr(n, 'charset') !== undefined);
  const before: ChildNode | undefined = charset ? head.childNodes[head.childNodes.indexOf(charset) + 1] : head.childNodes[0];
  for (const node of nodes) {
    if (before) tree.insertBefore(head, node, before);
    else tree.appendChild(head, node);
  }
  if (!charset) tree.insertBefore(head, createElement('meta', { charset: 'utf-8' }), head.childNodes[0]!);
}
