import { attr, elements } from '../html.js';
import { type NetworkExporter, startAtOnceBridge } from './types.js';

/** Meta refuses scripts loaded from a base64 src; the pipeline always inlines script text. */
export const meta: NetworkExporter = {
  network: 'meta',
  bridge: startAtOnceBridge("if (typeof FbPlayableAd !== 'undefined') FbPlayableAd.onCTAClick();"),
  bridgeCalls: ['FbPlayableAd.onCTAClick()'],
  check: (_artifact, entry) =>
    elements(entry)
      .filter((e) => e.tagName === 'script' && attr(e, 'src')?.trim().toLowerCase().startsWith('data:'))
      .map(() => 'a script is loaded from a data: URI src; Meta needs inline script text'),
};
