import { mraidBridge } from './mraid.js';
import { forbidInScripts, type NetworkExporter } from './types.js';

/** Chartboost's container may already be in the default state; it draws the close button itself. */
export const chartboost: NetworkExporter = {
  network: 'chartboost',
  bridge: mraidBridge({ waitViewable: false }),
  bridgeCalls: ['mraid.open('],
  check: forbidInScripts(/\bmraid\s*\.\s*close\s*\(/, 'the ad calls mraid.close(); Chartboost adds its own close button'),
};
