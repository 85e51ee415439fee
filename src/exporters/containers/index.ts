// The ad containers of the networks, as data: what each network's SDK gives a playable (mraid,
// FbPlayableAd, ExitApi, Mintegral's hooks…), when it lets the ad start, and which call is its
// call to action. One table, used by the browser validation of exports (../browser/), the preview
// page and tests that open an artifact. The artifact itself never uses it: its runtime reaches the
// network through ../networks/ (and the mraid / Luna adapters, ../shims/, through the runtime).
//
// Interface
//   CONTAINERS[network]            Container: { apis, mraid?, readiness, cta, end?, parentMessages? }
//     apis                         the container APIs installed on window, in order (./stubs.ts)
//     readiness                    when the container lets the ad start: 'at-once' (DOMContentLoaded),
//                                  'mraid-ready' (ready event), 'mraid-viewable' (then viewableChange),
//                                  'gameStart' (Mintegral calls the ad's gameStart() after its gameReady())
//     cta / end                    BridgeCallPattern of the call to action / of "the game ended"
//     parentMessages               messages the ad posts to its parent frame for the network (Vungle):
//                                  a host page that frames the ad records them as `parent.postMessage` calls
//   containerScript(network, host) ES5 source that installs the network's container in the window it
//                                  runs in, before the ad's own scripts. `host` is a JS expression for
//                                  { call(name, args), ready() }: every call the ad makes to the container
//                                  arrives as call('mraid.open', ['https://…']) with JSON-safe args;
//                                  ready() comes once, when the container would let the ad start.
//                                  PARENT_FRAME_HOST posts both to the parent frame (a preview page).
//   containerScripts(network)      the scripts the network serves itself, as the artifact references
//                                  them ('mraid.js', Google's exitapi.js URL): answer them with
//                                  containerScript (installing twice does nothing).
//   formatBridgeCall(call)         `mraid.open("https://…")`, one log line per call
//   matchesCall(call, pattern)     whether a recorded call is, e.g., the network's CTA
import { type Network, rulesOf } from '../rules.js';
import { API_STUBS, type ContainerApi, STUB_PRELUDE, YANDEX_CLICK_URL_PREFIX } from './stubs.js';

export type { ContainerApi } from './stubs.js';

/** A call the ad made to its container: `mraid.open("https://…")` is `{ name: 'mraid.open', args: ['https://…'] }`. */
export interface BridgeCall {
  name: string;
  args: unknown[];
}

/** A call by name, and optionally by its first arguments (Vungle's 'download' message). */
export interface BridgeCallPattern {
  name: string;
  args?: unknown[];
}

export type Readiness = 'at-once' | 'mraid-ready' | 'mraid-viewable' | 'gameStart';

export interface Container {
  apis: ContainerApi[];
  /** MRAID containers: the version, and whether the ad finds the container already in the default state. */
  mraid?: { version: '2.0' | '3.0'; startsReady?: boolean };
  readiness: Readiness;
  cta: BridgeCallPattern;
  end?: BridgeCallPattern;
  parentMessages?: string[];
}

const mraid = (version: '2.0' | '3.0', options: { startsReady?: boolean; apis?: ContainerApi[] } = {}): Container => ({
  apis: options.apis ?? ['mraid'],
  mraid: { version, ...(options.startsReady ? { startsReady: true } : {}) },
  readiness: version === '3.0' ? 'mraid-viewable' : 'mraid-ready',
  cta: { name: 'mraid.open' },
});
const facebook: Container = { apis: ['FbPlayableAd'], readiness: 'at-once', cta: { name: 'FbPlayableAd.onCTAClick' } };

export const CONTAINERS: Record<Network, Container> = {
  applovin: mraid('2.0'),
  unity: mraid('3.0'),
  ironsource: mraid('2.0', { apis: ['mraid', 'dapi'] }),
  google: { apis: ['ExitApi'], readiness: 'at-once', cta: { name: 'ExitApi.exit' } },
  meta: facebook,
  mintegral: { apis: ['mintegral'], readiness: 'gameStart', cta: { name: 'window.install' }, end: { name: 'window.gameEnd' } },
  tiktok: { apis: ['openAppStore'], readiness: 'at-once', cta: { name: 'window.openAppStore' } },
  vungle: {
    apis: ['vungle'],
    readiness: 'at-once',
    cta: { name: 'parent.postMessage', args: ['download'] },
    end: { name: 'parent.postMessage', args: ['complete'] },
    parentMessages: ['download', 'complete'],
  },
  moloco: facebook,
  snapchat: mraid('2.0'),
  liftoff: mraid('2.0'),
  chartboost: mraid('2.0', { startsReady: true }),
  adcolony: mraid('2.0'),
  inmobi: mraid('2.0'),
  tapjoy: { apis: ['TJ_API'], readiness: 'at-once', cta: { name: 'TJ_API.click' }, end: { name: 'TJ_API.gameplayFinished' } },
  yandex: { apis: ['yandex'], readiness: 'at-once', cta: { name: 'window.open', args: [`${YANDEX_CLICK_URL_PREFIX}1`] } },
};

/** A host for a framed ad: posts `{ type: 'playable-bridge-call', name, args }` and `{ type: 'playable-container-ready' }` to the parent. */
export const PARENT_FRAME_HOST = `{
  call: function (name, args) { parent.postMessage({ type: 'playable-bridge-call', name: name, args: args }, '*'); },
  ready: function () { parent.postMessage({ type: 'playable-container-ready' }, '*'); }
}`;

export function containerScript(network: Network, host: string): string {
  const container = CONTAINERS[network];
  const installs = container.apis.map(
    // The first API decides when the container is ready; the others are extras.
    (api, i) => `(${API_STUBS[api]})(host, ${i === 0 ? 'readyOnce' : 'function () {}'}, ${JSON.stringify(container.mraid ?? {})});`,
  );
  return `(function (host) {
  ${STUB_PRELUDE}
  var isReady = false;
  function readyOnce() { if (!isReady) { isReady = true; host.ready(); } }
  ${installs.join('\n  ')}
})(${host});`;
}

/** The scripts the network serves itself, as an artifact references them. */
export function containerScripts(network: Network): string[] {
  const rules = rulesOf(network);
  return [...(rules.mraid === 'required' ? ['mraid.js'] : []), ...rules.networkScripts];
}

export function formatBridgeCall(call: BridgeCall): string {
  return `${call.name}(${call.args.map((arg) => JSON.stringify(arg) ?? 'undefined').join(', ')})`;
}

export function matchesCall(call: BridgeCall, pattern: BridgeCallPattern): boolean {
  return call.name === pattern.name && (pattern.args ?? []).every((arg, i) => JSON.stringify(call.args[i]) === JSON.stringify(arg));
}
