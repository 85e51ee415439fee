// What a network file says: only what is particular to that network. The shared pipeline
// (../pipeline.ts) and the validation step (../validate.ts) do the rest from ../rules.ts.
import { attr, type Document, elements, textOf } from '../html.js';
import { extensionOf } from '../references.js';
import type { Network } from '../rules.js';

export type VariantConfig = Record<string, unknown>;

/** An element the export adds to <head>. */
export interface HeadTag {
  tag: 'meta' | 'script';
  attrs: Record<string, string>;
}

/** A finished artifact as the validation step sees it. */
export interface ArtifactFiles {
  /** Path → bytes; a single-HTML artifact is one entry. */
  files: Map<string, Uint8Array>;
  entryPath: string;
}

export interface NetworkExporter {
  network: Network;
  /** JS expression evaluating to `{ ready(start), cta(url), end(), pause?(onPause, onResume) }` for the runtime (../runtime.ts). */
  bridge: string;
  /** A click URL the network fills in itself, which the CTA opens whatever the game asks (Snapchat's macro). */
  clickUrl?: string;
  /** Calls the finished HTML must contain; the validation step looks for each. */
  bridgeCalls: string[];
  /** Elements added to <head> besides mraid.js and the network's scripts. */
  headTags?(config: VariantConfig): HeadTag[];
  /** Files added at the top of the ZIP (path → content). */
  extraFiles?(config: VariantConfig): Record<string, string>;
  /** Checks beyond the common ones; returns problems. */
  check?(artifact: ArtifactFiles, entry: Document): string[];
}

/** `config.orientation` ('portrait' | 'landscape' | 'both', default both), which some networks declare. */
export function orientationOf(config: VariantConfig): 'portrait' | 'landscape' | 'both' {
  const value = config.orientation;
  return value === 'portrait' || value === 'landscape' ? value : 'both';
}

/** A bridge for containers that are ready at once: `cta` and `end` are JS statements, `pause` a function expression. */
export function startAtOnceBridge(cta: string, end = '', pause?: string): string {
  return `{
    ready: function (start) { start(); },
    cta: function () { ${cta} },
    end: function () { ${end} }${pause ? `,\n    pause: ${pause}` : ''}
  }`;
}

/** The text of every script the artifact runs: inline <script> elements and the ZIP's .js files. */
export function scriptText({ files }: ArtifactFiles, entry: Document): string {
  const inline = elements(entry)
    .filter((e) => e.tagName === 'script' && attr(e, 'src') === undefined)
    .map(textOf);
  const bundled = [...files].filter(([path]) => extensionOf(path) === 'js').map(([, bytes]) => Buffer.from(bytes).toString('utf8'));
  return [...inline, ...bundled].join('\n');
}

/** A check that fails with `problem` when any script of the artifact matches `pattern`. */
export function forbidInScripts(pattern: RegExp, problem: string): NonNullable<NetworkExporter['check']> {
  return (artifact, entry) => (pattern.test(scriptText(artifact, entry)) ? [problem] : []);
}
