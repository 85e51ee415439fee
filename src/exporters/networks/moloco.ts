import { meta } from './meta.js';
import type { NetworkExporter } from './types.js';

/** Moloco uses Meta's call, with no arguments. */
export const moloco: NetworkExporter = {
  network: 'moloco',
  bridge: meta.bridge,
  bridgeCalls: meta.bridgeCalls,
};
