import { mraidBridge } from './mraid.js';
import type { NetworkExporter } from './types.js';

/** Digital Turbine (formerly AdColony): MRAID 2.0 interstitials. */
export const adcolony: NetworkExporter = {
  network: 'adcolony',
  bridge: mraidBridge({ waitViewable: false }),
  bridgeCalls: ['mraid.open('],
};
