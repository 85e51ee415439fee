import { attr, elements } from '../html.js';
import { type NetworkExporter, orientationOf, startAtOnceBridge } from './types.js';

const MAX_ENTRY_BYTES = 500_000;
const AD_SIZE = { portrait: 'width=320,height=480', landscape: 'width=480,height=320', both: 'width=320,height=480' } as const;

/** Yandex hands the click URL to the ad through yandexHTML5BannerApi; the ad opens it itself. */
export const yandex: NetworkExporter = {
  network: 'yandex',
  bridge: startAtOnceBridge("if (typeof yandexHTML5BannerApi !== 'undefined') window.open(yandexHTML5BannerApi.getClickURLNum(1), '_blank');"),
  bridgeCalls: ['yandexHTML5BannerApi.getClickURLNum(1)'],
  headTags: (config) => [{ tag: 'meta', attrs: { name: 'ad.size', content: AD_SIZE[orientationOf(config)] } }],
  check: ({ files, entryPath }, entry) => [
    ...[...files.keys()]
      .filter((path) => !/^[A-Za-z0-9._~/-]+$/.test(path))
      .map((path) => `${path}: Yandex allows only Latin letters, digits and -._~ in file names`),
    ...(files.get(entryPath)!.length > MAX_ENTRY_BYTES ? [`${entryPath} is ${files.get(entryPath)!.length} bytes, over Yandex's ${MAX_ENTRY_BYTES}`] : []),
    ...(elements(entry).some((e) => e.tagName === 'meta' && attr(e, 'name') === 'ad.size') ? [] : ['<meta name="ad.size"> is missing']),
  ],
};
