import { type NetworkExporter, startAtOnceBridge } from './types.js';

/** Tapjoy's webview gives the ad window.TJ_API. */
export const tapjoy: NetworkExporter = {
  network: 'tapjoy',
  bridge: startAtOnceBridge('if (window.TJ_API) window.TJ_API.click();', 'if (window.TJ_API) window.TJ_API.gameplayFinished();'),
  bridgeCalls: ['window.TJ_API.click()', 'window.TJ_API.gameplayFinished()'],
};
