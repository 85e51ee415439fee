import { mraidBridge } from './mraid.js';
import { forbidInScripts, type NetworkExporter } from './types.js';

/** MRAID only: ironSource (Unity LevelPlay) calls DAPI deprecated and refuses any reference to it. */
export const ironsource: NetworkExporter = {
  network: 'ironsource',
  bridge: mraidBridge({ waitViewable: false }),
  bridgeCalls: ['mraid.open('],
  check: forbidInScripts(/\bdapi\b/, 'the artifact references DAPI (dapi), which ironSource no longer accepts: use MRAID'),
};
