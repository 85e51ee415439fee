import { mraidBridge } from './mraid.js';
import type { NetworkExporter } from './types.js';

/** The click URL is Snapchat's macro, which the network rewrites when it serves the ad. */
export const snapchat: NetworkExporter = {
  network: 'snapchat',
  bridge: mraidBridge({ waitViewable: false, clickUrl: '{{ .ClickTrackingUrl }}' }),
  bridgeCalls: ["mraid.open('{{ .ClickTrackingUrl }}')"],
};
