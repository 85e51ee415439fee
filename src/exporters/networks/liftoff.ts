import { mraidBridge } from './mraid.js';
import type { NetworkExporter } from './types.js';

/** One folder in the ZIP, served from Liftoff's CDN by case-sensitive relative URLs. */
export const liftoff: NetworkExporter = {
  network: 'liftoff',
  bridge: mraidBridge({ waitViewable: false }),
  bridgeCalls: ['mraid.open('],
  check: ({ files, entryPath }) => {
    const folder = entryPath.slice(0, entryPath.indexOf('/') + 1);
    return [...files.keys()].flatMap((path) => [
      ...(path.startsWith(folder) ? [] : [`${path} is outside the ZIP's one folder ${folder}`]),
      ...(/^[\x20-\x7e]*$/.test(path) ? [] : [`${path}: Liftoff needs ASCII file names`]),
    ]);
  },
};
