import { mraidBridge } from './mraid.js';
import type { NetworkExporter } from './types.js';

/** MRAID 3.0: the ad may only start once it is viewable. */
export const unity: NetworkExporter = {
  network: 'unity',
  bridge: mraidBridge({ waitViewable: true }),
  bridgeCalls: ['mraid.open(', 'mraid.isViewable()'],
};
