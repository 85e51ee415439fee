// The `mraid` adapter of MRAID-native builds (CONTRACT §14). On networks without MRAID it is the
// whole `mraid` object the build calls, made of window.playable: `open` is the network's call to
// action, `ready` comes when that network's container is ready (and after the page's own scripts
// have run), `viewableChange` follows the container's pause and resume. On MRAID networks the
// network's own mraid.js stays; only a click URL the network fills in itself (Snapchat's macro)
// replaces the URL the build opens. ES5, like the runtime.

/** The `mraid` object for networks without one. */
export const MRAID_SHIM = `(function (playable) {
  if (window.mraid) return;
  var state = 'loading', viewable = false, listeners = {};
  function fire(event, args) {
    (listeners[event] || []).slice().forEach(function (fn) { fn.apply(null, args); });
  }
  function setViewable(value) {
    if (state !== 'default' || viewable === value) return;
    viewable = value;
    fire('viewableChange', [value]);
  }
  function size() { return { width: window.innerWidth, height: window.innerHeight }; }
  window.mraid = {
    getVersion: function () { return '2.0'; },
    getState: function () { return state; },
    getPlacementType: function () { return 'interstitial'; },
    isViewable: function () { return viewable; },
    supports: function () { return false; },
    getScreenSize: size,
    getMaxSize: size,
    addEventListener: function (event, fn) {
      (listeners[event] = listeners[event] || []).push(fn);
      // A build that waits for 'ready' without asking getState() first still starts.
      if (event === 'ready' && state === 'default') setTimeout(function () { fn(); }, 0);
    },
    removeEventListener: function (event, fn) {
      listeners[event] = (listeners[event] || []).filter(function (f) { return fn !== undefined && f !== fn; });
    },
    open: function (url) { playable.cta(url); },
    close: function () {
      playable.end();
      state = 'hidden';
      fire('stateChange', ['hidden']);
    }
  };
  playable.ready(function () {
    function ready() {
      state = 'default';
      fire('stateChange', ['default']);
      fire('ready', []);
      setViewable(!playable.paused);
    }
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready); else setTimeout(ready, 0);
  });
  playable.onPause(function () { setViewable(false); });
  playable.onResume(function () { setViewable(true); });
})(window.playable);`;

/** On an MRAID network whose container fills in the click URL: `mraid.open` always opens that URL. */
export function mraidClickUrlAdapter(clickUrl: string): string {
  return `(function (mraid) {
  if (!mraid) return;
  var open = mraid.open;
  mraid.open = function () { open.call(mraid, ${JSON.stringify(clickUrl)}); };
})(window.mraid);`;
}
