import { type NetworkExporter, startAtOnceBridge } from './types.js';

/** Vungle listens for messages on the parent frame: one for the CTA, one at the end, never both at once. */
export const vungle: NetworkExporter = {
  network: 'vungle',
  bridge: startAtOnceBridge("parent.postMessage('download', '*');", "parent.postMessage('complete', '*');"),
  bridgeCalls: ["parent.postMessage('download', '*')", "parent.postMessage('complete', '*')"],
};
