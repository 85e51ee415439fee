import { mraidBridge } from './mraid.js';
import type { NetworkExporter } from './types.js';

/** The click URL is Snapchat's macro, which the network rewrites when it serves the ad. */
const CLICK_URL = '{{ .ClickTrackingUrl }}';

export const snapchat: NetworkExporter = {
  network: 'snapchat',
  bridge: mraidBridge({ waitViewable: false, clickUrl: CLICK_URL }),
  clickUrl: CLICK_URL,
  bridgeCalls: ["mraid.open('{{ .ClickTrackingUrl }}')"],
};
