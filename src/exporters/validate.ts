// The validation step: checks a finished artifact (its bytes, as a network would receive them)
// against the network's rules, and says in words what is wrong. Runs on every export; it knows
// nothing of how the artifact was built, so it also catches a pipeline bug.
import { attr, type Document, elements, parseHtml, textOf } from './html.js';
import { EXPORTERS } from './networks/index.js';
import { unzipFiles } from './package/zip.js';
import type { ArtifactFiles } from './networks/types.js';
import { classifyReference, extensionOf, isContainerMraid, parseSrcset, resourceAttributes, rewriteCss } from './references.js';
import { findEntry, type Network, type NetworkRules, rulesOf } from './rules.js';

export interface ValidationResult {
  /** What is wrong, one sentence each; empty when the artifact passes. */
  problems: string[];
  /** The checks that ran. */
  checks: string[];
}

const ARCHIVE_EXTENSIONS = new Set(['zip', 'rar', '7z', 'gz', 'tgz', 'tar', 'jar', 'apk']);
const isZip = (bytes: Uint8Array) => bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
const utf8 = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

export function validateArtifact(network: Network, bytes: Uint8Array): ValidationResult {
  const rules = rulesOf(network);
  const problems: string[] = [];
  const checks: string[] = [`size ≤ ${rules.sizeLimitBytes} bytes`];
  if (bytes.length > rules.sizeLimitBytes) {
    problems.push(`the artifact is ${bytes.length} bytes, over the limit of ${rules.sizeLimitBytes}`);
  }

  const artifact = open(rules, bytes, problems, checks);
  if (!artifact) return { problems, checks };
  const entryBytes = artifact.files.get(artifact.entryPath)!;
  const entry = parseHtml(utf8(entryBytes));
  checkReferences(rules, artifact, entry, problems);
  checks.push('no external references', 'every referenced file present');
  checkBridge(network, rules, entry, problems);
  checks.push(`bridge: ${EXPORTERS[network].bridgeCalls.join(', ')}`, `mraid.js ${rules.mraid}`);
  const extra = EXPORTERS[network].check?.(artifact, entry) ?? [];
  problems.push(...extra);
  return { problems, checks };
}

/** The artifact's files and its entry HTML, or undefined (with a problem) when the layout is wrong. */
function open(rules: NetworkRules, bytes: Uint8Array, problems: string[], checks: string[]): ArtifactFiles | undefined {
  checks.push(rules.output === 'html' ? 'one HTML file' : `ZIP layout (${rules.entryPath})`);
  if (rules.output === 'html') {
    if (isZip(bytes)) {
      problems.push('expected one HTML file, got a ZIP');
      return undefined;
    }
    return { files: new Map([['index.html', bytes]]), entryPath: 'index.html' };
  }
  if (!isZip(bytes)) {
    problems.push('expected a ZIP archive');
    return undefined;
  }
  let files: Map<string, Uint8Array>;
  try {
    files = unzipFiles(bytes);
  } catch (error) {
    problems.push(`the ZIP cannot be read: ${(error as Error).message}`);
    return undefined;
  }
  if (rules.maxFiles !== undefined) {
    checks.push(`at most ${rules.maxFiles} files`);
    if (files.size > rules.maxFiles) problems.push(`the ZIP holds ${files.size} files, more than ${rules.maxFiles}`);
  }
  for (const path of files.keys()) {
    const extension = extensionOf(path);
    if (ARCHIVE_EXTENSIONS.has(extension)) problems.push(`nested archive ${path}`);
    else if (rules.allowedExtensions && !rules.allowedExtensions.includes(extension)) {
      problems.push(`${path}: file type .${extension} is not allowed (allowed: ${rules.allowedExtensions.join(', ')})`);
    }
  }
  if (rules.allowedExtensions) checks.push(`file types: ${rules.allowedExtensions.join(', ')}`);
  const entryPath = findEntry(rules.entryPath, [...files.keys()]);
  if (!entryPath) {
    problems.push(`the ZIP has no ${rules.entryPath}`);
    return undefined;
  }
  return { files, entryPath };
}

/** The URLs of a srcset; one browsers would not wholly use is a problem, named with the parser's reason. */
function srcsetUrls(srcset: string, tag: string, problems: string[]): string[] {
  try {
    return parseSrcset(srcset).map((c) => c.url);
  } catch (error) {
    const shown = srcset.length > 120 ? `${srcset.slice(0, 120)}…` : srcset;
    const reason = (error as Error).message.replace(` in "${srcset}"`, '');
    problems.push(`${tag} srcset "${shown}" is not valid: ${reason}`);
    return [];
  }
}

/** Every URL the entry HTML and the ZIP's style sheets load, with where it was found. */
function references(entry: Document, files: Map<string, Uint8Array>, problems: string[]): Array<{ url: string; where: string }> {
  const found: Array<{ url: string; where: string }> = [];
  const fromCss = (css: string, context: 'stylesheet' | 'declarationList', where: string) =>
    rewriteCss(css, context, (url) => {
      found.push({ url, where });
      return url;
    });
  for (const element of elements(entry)) {
    const tag = `<${element.tagName}>`;
    for (const name of resourceAttributes(element)) found.push({ url: attr(element, name)!, where: `${tag} ${name}` });
    const srcset = attr(element, 'srcset');
    if (srcset) for (const url of srcsetUrls(srcset, tag, problems)) found.push({ url, where: `${tag} srcset` });
    const style = attr(element, 'style');
    if (style) fromCss(style, 'declarationList', `${tag} style`);
    if (element.tagName === 'style') fromCss(textOf(element), 'stylesheet', '<style>');
  }
  for (const [path, bytes] of files) if (extensionOf(path) === 'css') fromCss(utf8(bytes), 'stylesheet', path);
  return found;
}

function checkReferences(rules: NetworkRules, artifact: ArtifactFiles, entry: Document, problems: string[]): void {
  const entryDir = artifact.entryPath.includes('/') ? artifact.entryPath.slice(0, artifact.entryPath.lastIndexOf('/') + 1) : '';
  for (const { url, where } of references(entry, artifact.files, problems)) {
    const ref = classifyReference(url);
    if (ref.kind === 'external' && !rules.networkScripts.includes(ref.url)) problems.push(`external reference ${ref.url} (${where})`);
    if (ref.kind !== 'file' || (isContainerMraid(ref) && rules.mraid === 'required')) continue;
    if (rules.output === 'html') problems.push(`${url} (${where}) is not inlined`);
    else if (!artifact.files.has(entryDir + ref.fileName)) problems.push(`${url} (${where}) is not in the ZIP`);
  }
}

function checkBridge(network: Network, rules: NetworkRules, entry: Document, problems: string[]): void {
  const scripts = elements(entry).filter((e) => e.tagName === 'script');
  const sources = scripts.map((s) => attr(s, 'src')).filter((src): src is string => src !== undefined);
  const inlineText = scripts
    .filter((s) => attr(s, 'src') === undefined)
    .map(textOf)
    .join('\n');
  const hasMraid = sources.some((src) => isContainerMraid(classifyReference(src)));
  if (rules.mraid === 'required' && !hasMraid) problems.push('mraid.js is not included');
  if (rules.mraid === 'forbidden' && hasMraid) problems.push(`${network} does not allow mraid.js`);
  for (const script of rules.networkScripts) {
    if (!sources.includes(script)) problems.push(`the network's script ${script} is not included`);
  }
  for (const call of EXPORTERS[network].bridgeCalls) {
    if (!inlineText.includes(call)) problems.push(`the bridge call ${call} is missing`);
  }
}
