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

/** A script the artifact runs, and where: an inline <script>, an `on…` handler attribute, or a .js file of the ZIP. */
export interface ArtifactScript {
  where: string;
  text: string;
  module: boolean;
}

export function artifactScripts({ files, entryPath }: ArtifactFiles, entry: Document): ArtifactScript[] {
  const scripts: ArtifactScript[] = [];
  for (const element of elements(entry)) {
    for (const { name, value } of element.attrs) {
      if (name.startsWith('on')) scripts.push({ where: `${entryPath} <${element.tagName} ${name}>`, text: value, module: false });
    }
    if (element.tagName === 'script' && attr(element, 'src') === undefined) {
      const module = attr(element, 'type')?.trim().toLowerCase() === 'module';
      scripts.push({ where: `${entryPath} <script>`, text: textOf(element), module });
    }
  }
  // A file's kind of script is only known from the tag that loads it: read as a classic script.
  for (const [path, bytes] of files) if (extensionOf(path) === 'js') scripts.push({ where: path, text: Buffer.from(bytes).toString('utf8'), module: false });
  return scripts;
}

/** A piece of the artifact's CSS, and where: a <style>, a style attribute, or a .css file of the ZIP. */
export interface ArtifactStyle {
  where: string;
  css: string;
  context: 'stylesheet' | 'declarationList';
}

export function artifactStyles({ files, entryPath }: ArtifactFiles, entry: Document): ArtifactStyle[] {
  const styles: ArtifactStyle[] = [];
  for (const element of elements(entry)) {
    const style = attr(element, 'style');
    if (style !== undefined) styles.push({ where: `${entryPath} <${element.tagName} style>`, css: style, context: 'declarationList' });
    if (element.tagName === 'style') styles.push({ where: `${entryPath} <style>`, css: textOf(element), context: 'stylesheet' });
  }
  for (const [path, bytes] of files) if (extensionOf(path) === 'css') styles.push({ where: path, css: Buffer.from(bytes).toString('utf8'), context: 'stylesheet' });
  return styles;
}

/** A check that fails with `problem` when any script of the artifact matches `pattern`. */
export function forbidInScripts(pattern: RegExp, problem: string): NonNullable<NetworkExporter['check']> {
  return (artifact, entry) => (artifactScripts(artifact, entry).some((script) => pattern.test(script.text)) ? [problem] : []);
}
