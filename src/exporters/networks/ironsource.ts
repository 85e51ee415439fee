import { mraidBridge } from './mraid.js';
import type { NetworkExporter } from './types.js';

/** ironSource's DAPI object, where the container provides it; MRAID otherwise. */
export const ironsource: NetworkExporter = {
  network: 'ironsource',
  bridge: `(function (mraidBridge) {
    if (typeof dapi === 'undefined') return mraidBridge;
    return {
      ready: function (start) {
        if (dapi.isReady()) { start(); return; }
        dapi.addEventListener('ready', function onReady() { dapi.removeEventListener('ready', onReady); start(); });
      },
      cta: function () { dapi.openStoreUrl(); },
      end: function () {}
    };
  })(${mraidBridge({ waitViewable: false })})`,
  bridgeCalls: ['dapi.openStoreUrl()', 'mraid.open('],
};
