import { type NetworkExporter, startAtOnceBridge } from './types.js';

/**
 * Vungle listens for messages on the parent frame: one for the CTA, one at the end, never both at
 * once; it pauses and resumes the ad with messages of its own.
 */
export const vungle: NetworkExporter = {
  network: 'vungle',
  bridge: startAtOnceBridge(
    "parent.postMessage('download', '*');",
    "parent.postMessage('complete', '*');",
    `function (pause, resume) {
      window.addEventListener('message', function (event) {
        if (event.data === 'ad-event-pause') pause(); else if (event.data === 'ad-event-resume') resume();
      });
    }`,
  ),
  bridgeCalls: ["parent.postMessage('download', '*')", "parent.postMessage('complete', '*')"],
};
