import { mraidBridge } from './mraid.js';
import type { NetworkExporter } from './types.js';

export const applovin: NetworkExporter = {
  network: 'applovin',
  bridge: mraidBridge({ waitViewable: false }),
  bridgeCalls: ['mraid.open('],
};
