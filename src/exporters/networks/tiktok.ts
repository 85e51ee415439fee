import { type NetworkExporter, orientationOf, startAtOnceBridge } from './types.js';

/** Pangle's config.json: 0 both, 1 portrait, 2 landscape. */
const PLAYABLE_ORIENTATION = { both: 0, portrait: 1, landscape: 2 } as const;

export const tiktok: NetworkExporter = {
  network: 'tiktok',
  bridge: startAtOnceBridge("if (typeof window.openAppStore === 'function') window.openAppStore();"),
  bridgeCalls: ['window.openAppStore()'],
  extraFiles: (config) => ({
    'config.json': JSON.stringify({ playable_orientation: PLAYABLE_ORIENTATION[orientationOf(config)] }),
  }),
  check: ({ files }) => {
    const raw = files.get('config.json');
    if (!raw) return ['config.json is missing at the top of the ZIP'];
    try {
      const parsed = JSON.parse(Buffer.from(raw).toString('utf8')) as { playable_orientation?: unknown };
      return [0, 1, 2].includes(parsed.playable_orientation as number) ? [] : ['config.json: playable_orientation must be 0, 1 or 2'];
    } catch {
      return ['config.json is not valid JSON'];
    }
  },
};
