// The portable runtime every export puts in front of the game's own scripts: one API for the
// game, whatever the network —
//   window.playable.config        the variant's config (JSON)
//   window.playable.asset(name)   URL of a variant file the markup did not already inline
//   window.playable.ready(fn)     runs fn once the ad container is ready (MRAID ready/viewable…)
//   window.playable.cta([url])    the call to action, wired to the network's bridge
//                                 (url defaults to config.storeUrl)
//   window.playable.end()         tells the network the game has ended (once)
//   window.playable.muted         true until the first user interaction (networks require it)
//   window.playable.onUnmute(fn)  runs fn at the first interaction
//   window.playable.paused, onPause(fn), onResume(fn)
//                                 the container hid or showed the ad (MRAID viewableChange,
//                                 Vungle ad-event-pause/resume, the page's visibility)
// Builds written for another API get thin adapters over this one, appended only when the entry
// uses that API (./shims/). Written in ES5: ad web views can be old.

/** JSON that is safe inside a <script> element and in pre-ES2019 engines. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c').replaceAll('\u2028', '\\u2028').replaceAll('\u2029', '\\u2029');
}

export interface RuntimeInput {
  network: string;
  config: unknown;
  /** File name → URL (data URI, or a path inside the ZIP). */
  assets: Record<string, string>;
  /** A JS expression evaluating to `{ ready(start), cta(url), end(), pause?(onPause, onResume) }`. */
  bridge: string;
  /** Adapters run after the runtime (ES5 statements using window.playable), see ./shims/. */
  shims?: string[];
}

export function runtimeScript(input: RuntimeInput): string {
  return `(function () {
  var config = ${scriptSafeJson(input.config)};
  var assets = ${scriptSafeJson(input.assets)};
  var bridge = ${input.bridge};
  var isReady = false, ended = false, waiting = [], unmuteListeners = [], pauseListeners = [], resumeListeners = [];
  var api = {
    network: ${scriptSafeJson(input.network)},
    config: config,
    muted: true,
    paused: false,
    asset: function (name) { return Object.prototype.hasOwnProperty.call(assets, name) ? assets[name] : undefined; },
    ready: function (fn) { if (isReady) { fn(); } else { waiting.push(fn); } },
    onUnmute: function (fn) { if (api.muted) { unmuteListeners.push(fn); } else { fn(); } },
    onPause: function (fn) { pauseListeners.push(fn); },
    onResume: function (fn) { resumeListeners.push(fn); },
    cta: function (url) { bridge.cta(url || config.storeUrl || ''); },
    end: function () { if (!ended) { ended = true; bridge.end(); } }
  };
  function unmute() {
    if (!api.muted) return;
    api.muted = false;
    while (unmuteListeners.length) unmuteListeners.shift()();
  }
  function setPaused(paused) {
    if (api.paused === paused) return;
    api.paused = paused;
    (paused ? pauseListeners : resumeListeners).slice().forEach(function (fn) { fn(); });
  }
  ['pointerdown', 'touchstart', 'keydown'].forEach(function (type) { window.addEventListener(type, unmute, true); });
  document.addEventListener('visibilitychange', function () { setPaused(document.hidden); });
  if (bridge.pause) bridge.pause(function () { setPaused(true); }, function () { setPaused(false); });
  window.playable = api;
  bridge.ready(function () {
    if (isReady) return;
    isReady = true;
    while (waiting.length) waiting.shift()();
  });
})();${(input.shims ?? []).map((shim) => `\n${shim}`).join('')}`;
}
