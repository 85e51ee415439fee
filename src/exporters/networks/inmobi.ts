import { mraidBridge } from './mraid.js';
import { forbidInScripts, type NetworkExporter } from './types.js';

/** InMobi's MRAID container draws the close button; playables must not ask for a custom one. */
export const inmobi: NetworkExporter = {
  network: 'inmobi',
  bridge: mraidBridge({ waitViewable: false }),
  bridgeCalls: ['mraid.open('],
  check: forbidInScripts(/\buseCustomClose\s*\(/, "the ad calls useCustomClose(); InMobi playables keep the container's close button"),
};
