import { attr, elements } from '../html.js';
import { type NetworkExporter, orientationOf, startAtOnceBridge } from './types.js';

const ORIENTATION_META = { both: 'portrait,landscape', portrait: 'portrait', landscape: 'landscape' } as const;

/** Google's exit API script is linked from ../rules.ts (networkScripts). */
export const google: NetworkExporter = {
  network: 'google',
  bridge: startAtOnceBridge("if (typeof ExitApi !== 'undefined') ExitApi.exit();"),
  bridgeCalls: ['ExitApi.exit()'],
  headTags: (config) => [{ tag: 'meta', attrs: { name: 'ad.orientation', content: ORIENTATION_META[orientationOf(config)] } }],
  check: (_artifact, entry) =>
    elements(entry).some((e) => e.tagName === 'meta' && ['ad.orientation', 'ad.size'].includes(attr(e, 'name') ?? ''))
      ? []
      : ['<meta name="ad.orientation"> (or ad.size) is missing'],
};
