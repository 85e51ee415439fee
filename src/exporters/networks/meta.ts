import { attr, elements } from '../html.js';
import { type NetworkExporter, startAtOnceBridge } from './types.js';

/**
 * Meta refuses scripts loaded from a base64 src. The export inlines script files and JavaScript
 * data: URIs as text; a data: URI of another media type is left as the build wrote it, and named.
 */
export const meta: NetworkExporter = {
  network: 'meta',
  bridge: startAtOnceBridge("if (typeof FbPlayableAd !== 'undefined') FbPlayableAd.onCTAClick();"),
  bridgeCalls: ['FbPlayableAd.onCTAClick()'],
  check: (_artifact, entry) =>
    elements(entry)
      .map((e) => (e.tagName === 'script' ? attr(e, 'src')?.trim() : undefined))
      .filter((src): src is string => src?.toLowerCase().startsWith('data:') === true)
      .map(
        (src) =>
          `a script is loaded from a data: URI src (${src.slice(0, src.indexOf(',') + 1) || src.slice(0, 40)}…), which Meta refuses; ` +
          'the export inlines only JavaScript media types (data:text/javascript,…): give it one, or make the script a file of the variant',
      ),
};
