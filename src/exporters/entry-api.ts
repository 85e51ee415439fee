// Which portable API a build is written against (CONTRACT §14, `report.entry.api`): our own
// `window.playable`, a container's `mraid`, Luna Playground's `Luna.Unity…`, or none. Read from
// the entry HTML (parse5) and the scripts it runs — inline, its own files, JavaScript data: URIs,
// inline event handlers — tokenized by acorn, so a name in a comment or a string does not count,
// and a script that names none of them is not tokenized at all (a Luna build's engine is megabytes).
import { attr, elements, parseHtml, textOf } from './html.js';
import { isDot, isName, type Token, tokensOf, tokTypes } from './js-tokens.js';
import type { ENTRY_APIS } from './options.js';
import { classifyReference, dataUrlScript, isClassicScriptType, isContainerMraid } from './references.js';
import type { LoadedVariant } from './types.js';

export type EntryApi = (typeof ENTRY_APIS)[number];

/** Every convention the build uses; `api` is the one the report names. */
export interface EntryApiUsage {
  api: EntryApi;
  playable: boolean;
  mraid: boolean;
  luna: boolean;
}

/** Substrings a script must contain to be worth tokenizing. */
const HINTS = ['playable', 'mraid', 'Luna', 'luna:'];
const GLOBAL_OBJECTS = new Set(['window', 'self', 'globalThis']);

interface Script {
  text: string;
  module: boolean;
}

/**
 * The scripts the entry runs — inline text, its files by name, and `on…` handler attributes — and
 * whether it loads the container's mraid.js.
 */
function scriptsOf(variant: LoadedVariant): { scripts: Script[]; loadsMraid: boolean } {
  const scripts: Script[] = [];
  let loadsMraid = false;
  for (const element of elements(parseHtml(variant.entry.bytes.toString('utf8')))) {
    for (const { name, value } of element.attrs) if (name.startsWith('on')) scripts.push({ text: value, module: false });
    if (element.tagName !== 'script') continue;
    const type = (attr(element, 'type') ?? '').trim().toLowerCase();
    const module = type === 'module';
    if (!module && !isClassicScriptType(type)) continue;
    const src = attr(element, 'src');
    if (src === undefined) {
      scripts.push({ text: textOf(element), module });
      continue;
    }
    // The export inlines a JavaScript data: URI's text (package/rewrite.ts): read it as inline.
    const carried = dataUrlScript(src);
    if (carried !== undefined) {
      scripts.push({ text: carried, module });
      continue;
    }
    const ref = classifyReference(src);
    if (isContainerMraid(ref)) loadsMraid = true;
    const file = ref.kind === 'file' && !isContainerMraid(ref) ? variant.files.get(ref.fileName) : undefined;
    if (file) scripts.push({ text: file.bytes.toString('utf8'), module });
  }
  return { scripts, loadsMraid };
}

/**
 * Whether the global `name` is used: `window.name` (or self/globalThis), or a bare `name.x` /
 * `name[x]` that is not itself a property of something else.
 */
function usesGlobal(tokens: Token[], i: number): boolean {
  const before = tokens[i - 1];
  if (isDot(before)) return isName(tokens[i - 2]) && GLOBAL_OBJECTS.has(tokens[i - 2]!.value) && !isDot(tokens[i - 3]);
  const after = tokens[i + 1];
  return isDot(after) || after?.type === tokTypes.bracketL;
}

/** `window['mraid']` (or self/globalThis): the global named by a string in brackets. */
const globalByString = (tokens: Token[], i: number) =>
  tokens[i - 1]?.type === tokTypes.bracketL && isName(tokens[i - 2]) && GLOBAL_OBJECTS.has(tokens[i - 2]!.value) && tokens[i + 1]?.type === tokTypes.bracketR;

export function detectEntryApi(variant: LoadedVariant): EntryApiUsage {
  const usage = { playable: false, mraid: false, luna: false };
  const { scripts, loadsMraid } = scriptsOf(variant);
  for (const script of scripts) {
    if (!HINTS.some((hint) => script.text.includes(hint))) continue;
    const tokens = tokensOf(script.text, script.module);
    tokens.forEach((token, i) => {
      if ((token.type === tokTypes.string || token.type === tokTypes.template) && token.value.startsWith('luna:')) usage.luna = true;
      if (token.type === tokTypes.string && globalByString(tokens, i)) {
        if (token.value === 'mraid') usage.mraid = true;
        else if (token.value === 'playable') usage.playable = true;
      }
      if (!isName(token) || !usesGlobal(tokens, i)) return;
      if (token.value === 'playable') usage.playable = true;
      else if (token.value === 'mraid') usage.mraid = true;
      else if (token.value === 'Luna' && isName(tokens[i + 2], 'Unity')) usage.luna = true;
    });
  }
  // An entry that loads mraid.js and uses nothing else is an MRAID build (CONTRACT §14), even
  // when its calls are out of the tokenizer's sight: without the shim it would die on `mraid`.
  if (loadsMraid && !usage.playable && !usage.luna) usage.mraid = true;
  // Our own API first (a build written for it may still feel for mraid), then Luna (its engine
  // may carry MRAID code of its own), then MRAID.
  const api: EntryApi = usage.playable ? 'playable' : usage.luna ? 'luna' : usage.mraid ? 'mraid' : 'none';
  return { api, ...usage };
}
