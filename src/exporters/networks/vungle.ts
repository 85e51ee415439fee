import { type NetworkExporter, startAtOnceBridge } from './types.js';

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
};
