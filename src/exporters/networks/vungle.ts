import * as csstree from 'css-tree';
import type { Document } from '../html.js';
import { isDot, isName, tokensOf, tokTypes } from '../js-tokens.js';
import { type ArtifactFiles, type NetworkExporter, artifactScripts, startAtOnceBridge, artifactStyles } from './types.js';

/**
 * Vungle forbids vw and vh in CSS. vmin and vmax, and CSS Values 4's small/large/dynamic and
 * inline/block forms (svh, dvw, vi…), are the same lengths by other names — each a fraction of
 * the viewport's width or height — so they are refused with them.
 */
const VIEWPORT_UNIT = /^[sld]?v(w|h|i|b|min|max)$/i;

/** Where the artifact's CSS uses a viewport unit, with the lengths found: `style.css (100vw, 100vh)`. */
function viewportUnits(artifact: ArtifactFiles, entry: Document): string[] {
  return artifactStyles(artifact, entry).flatMap(({ where, css, context }) => {
    const lengths: string[] = [];
    csstree.walk(csstree.parse(css, { context }), (node) => {
      if (node.type === 'Dimension' && VIEWPORT_UNIT.test(node.unit)) lengths.push(`${node.value}${node.unit}`);
    });
    return lengths.length ? [`${where} (${lengths.join(', ')})`] : [];
  });
}

/**
 * The scripts that call `location.reload` (`window.location.reload`, `location['reload']`…), read
 * as tokens so that the words in a comment or a string do not count.
 */
function reloadingScripts(artifact: ArtifactFiles, entry: Document): string[] {
  const found = artifactScripts(artifact, entry).filter(({ text, module }) => {
    if (!text.includes('reload')) return false;
    const tokens = tokensOf(text, module);
    return tokens.some(
      (token, i) =>
        isName(token, 'location') &&
        ((isDot(tokens[i + 1]) && isName(tokens[i + 2], 'reload')) ||
          (tokens[i + 1]?.type === tokTypes.bracketL && tokens[i + 2]?.type === tokTypes.string && tokens[i + 2]?.value === 'reload')),
    );
  });
  return [...new Set(found.map((script) => script.where))];
}

/**
 * Vungle listens for messages on the parent frame: one for the CTA, one at the end, never both at
 * once; it pauses and resumes the ad with messages of its own.
 *
 * "At once" is one task of the event loop (a tap's handler): end() posts 'complete' at the end of
 * the task it was called in, and only if no 'download' was posted in that task, before or after
 * it. A game that shows its end card and sends the player to the store on the same tap therefore
 * posts 'download' alone; an end() in a task without a 'download' posts 'complete'. A timeout of 0
 * runs after the current task, so it marks where the task ends.
 */
export const vungle: NetworkExporter = {
  network: 'vungle',
  bridge: `(function () {
    var downloadInThisTask = false;
    return ${startAtOnceBridge(
      `parent.postMessage('download', '*');
      if (!downloadInThisTask) { downloadInThisTask = true; setTimeout(function () { downloadInThisTask = false; }, 0); }`,
      // Scheduled before the reset a later cta() in this task schedules, so it still sees its 'download'.
      `if (downloadInThisTask) return;
      setTimeout(function () { if (!downloadInThisTask) parent.postMessage('complete', '*'); }, 0);`,
      `function (pause, resume) {
      window.addEventListener('message', function (event) {
        if (event.data === 'ad-event-pause') pause(); else if (event.data === 'ad-event-resume') resume();
      });
    }`,
    )};
  })()`,
  bridgeCalls: ["parent.postMessage('download', '*')", "parent.postMessage('complete', '*')"],
  check: (artifact, entry) => {
    const problems: string[] = [];
    const units = viewportUnits(artifact, entry);
    if (units.length) {
      problems.push(
        `Vungle does not allow viewport units (vw, vh, vmin, vmax…) in CSS, found in ${units.join(', ')}: ` +
          'size the game from html and body at 100% (or from window.innerWidth and innerHeight) instead',
      );
    }
    const reloading = reloadingScripts(artifact, entry);
    if (reloading.length) {
      problems.push(
        `Vungle does not allow location.reload, called in ${reloading.join(', ')}: restart the game by resetting its state instead of reloading the page`,
      );
    }
    return problems;
  },
};
