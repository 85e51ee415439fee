// The JS sources of the container APIs the networks give an ad: each is an ES5 function
// `(host, ready, options)` that installs one API on `window` (once: a second install, e.g. from
// the served mraid.js, does nothing), reports every call the ad makes through
// `host.call(name, args)` and calls `ready()` once the container would let the ad start.
// ./index.ts composes them per network; see its header for the interface.

/** An API a container provides (CONTAINERS lists them per network). */
export type ContainerApi = 'mraid' | 'dapi' | 'FbPlayableAd' | 'ExitApi' | 'mintegral' | 'openAppStore' | 'vungle' | 'TJ_API' | 'yandex';

/** The click URLs Yandex's container hands out: `getClickURLNum(n)` is this prefix + n. */
export const YANDEX_CLICK_URL_PREFIX = 'https://yandex.invalid/click/';

/** Shared by the stubs: `record(name)` is a function reporting its calls; `whenLoaded(fn)` runs fn after DOMContentLoaded. */
export const STUB_PRELUDE = `
  function plain(args) {
    try { return JSON.parse(JSON.stringify(args, function (key, value) { return typeof value === 'function' ? '[function]' : value; })) || []; }
    catch (e) { return []; }
  }
  function record(name) { return function () { host.call(name, plain(Array.prototype.slice.call(arguments))); }; }
  function whenLoaded(fn) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fn); else setTimeout(fn, 0);
  }
  function viewport() { return { width: window.innerWidth, height: window.innerHeight }; }
  function listenerSet() {
    var all = {};
    return {
      add: function (event, fn) { (all[event] = all[event] || []).push(fn); },
      remove: function (event, fn) { all[event] = (all[event] || []).filter(function (f) { return fn !== undefined && f !== fn; }); },
      fire: function (event, args) {
        (all[event] || []).slice().forEach(function (fn) {
          try { fn.apply(null, args || []); } catch (error) { setTimeout(function () { throw error; }, 0); }
        });
      }
    };
  }`;

/**
 * MRAID 2.0/3.0 (options.version): 'loading' until shortly after DOMContentLoaded, then 'default'
 * with a ready event, then viewable (viewableChange). options.startsReady: the ad finds the
 * container already in the default state and viewable, and no ready event comes (Chartboost).
 */
const mraid = `function (host, ready, options) {
  if (window.mraid) return;
  var state = options.startsReady ? 'default' : 'loading', viewable = !!options.startsReady, listeners = listenerSet();
  function position() { var size = viewport(); return { x: 0, y: 0, width: size.width, height: size.height }; }
  window.mraid = {
    getVersion: function () { return options.version; },
    getState: function () { return state; },
    isViewable: function () { return viewable; },
    getPlacementType: function () { return 'interstitial'; },
    addEventListener: listeners.add,
    removeEventListener: listeners.remove,
    open: record('mraid.open'),
    close: record('mraid.close'),
    expand: record('mraid.expand'),
    resize: record('mraid.resize'),
    unload: record('mraid.unload'),
    useCustomClose: record('mraid.useCustomClose'),
    playVideo: record('mraid.playVideo'),
    storePicture: record('mraid.storePicture'),
    createCalendarEvent: record('mraid.createCalendarEvent'),
    supports: function () { return false; },
    getMaxSize: viewport,
    getScreenSize: viewport,
    getCurrentPosition: position,
    getDefaultPosition: position,
    getExpandProperties: function () { var size = viewport(); return { width: size.width, height: size.height, useCustomClose: false, isModal: true }; },
    setExpandProperties: function () {},
    getResizeProperties: function () { return {}; },
    setResizeProperties: function () {},
    getOrientationProperties: function () { return { allowOrientationChange: true, forceOrientation: 'none' }; },
    setOrientationProperties: function () {},
    getAudioVolumePercentage: function () { return null; },
    getLocation: function () { return -1; }
  };
  whenLoaded(function () {
    if (options.startsReady) { ready(); return; }
    setTimeout(function () {
      state = 'default';
      listeners.fire('stateChange', ['default']);
      listeners.fire('ready');
      setTimeout(function () { viewable = true; listeners.fire('viewableChange', [true]); ready(); }, options.version === '3.0' ? 50 : 0);
    }, 50);
  });
}`;

/** ironSource's older DAPI, still injected by its container for older creatives (exports must not use it). */
const dapi = `function (host, ready) {
  if (window.dapi) return;
  var listeners = listenerSet();
  window.dapi = {
    isReady: function () { return true; },
    isViewable: function () { return true; },
    addEventListener: listeners.add,
    removeEventListener: listeners.remove,
    openStoreUrl: record('dapi.openStoreUrl'),
    getScreenSize: viewport,
    getAudioVolume: function () { return 0; }
  };
  whenLoaded(ready);
}`;

const fbPlayableAd = `function (host, ready) {
  if (window.FbPlayableAd) return;
  window.FbPlayableAd = { onCTAClick: record('FbPlayableAd.onCTAClick') };
  whenLoaded(ready);
}`;

/** What Google's exitapi.js provides. */
const exitApi = `function (host, ready) {
  if (window.ExitApi) return;
  window.ExitApi = { exit: record('ExitApi.exit'), delayedExit: record('ExitApi.delayedExit') };
  whenLoaded(ready);
}`;

/** Mintegral: the ad calls gameReady() once loaded; the SDK then calls the ad's gameStart(). */
const mintegral = `function (host, ready) {
  if (window.install) return;
  window.install = record('window.install');
  window.gameEnd = record('window.gameEnd');
  window.gameRetry = record('window.gameRetry');
  window.gameReady = function () {
    host.call('window.gameReady', []);
    setTimeout(function () { if (typeof window.gameStart === 'function') window.gameStart(); ready(); }, 0);
  };
}`;

/** TikTok / Pangle's playable SDK. */
const openAppStore = `function (host, ready) {
  if (window.openAppStore) return;
  window.openAppStore = record('window.openAppStore');
  whenLoaded(ready);
}`;

/** Vungle listens on the ad's parent frame; with the ad as the top document, that is the ad's own window. */
const vungle = `function (host, ready) {
  if (window.__vungleListening) return;
  window.__vungleListening = true;
  window.addEventListener('message', function (event) {
    if (event.source === window && (event.data === 'download' || event.data === 'complete')) host.call('parent.postMessage', [event.data]);
  });
  whenLoaded(ready);
}`;

const tapjoy = `function (host, ready) {
  if (window.TJ_API) return;
  window.TJ_API = {
    adInfo: null,
    directives: { showEndCard: false },
    setPlayableBuild: record('TJ_API.setPlayableBuild'),
    setPlayableAPI: record('TJ_API.setPlayableAPI'),
    click: record('TJ_API.click'),
    objectiveComplete: record('TJ_API.objectiveComplete'),
    gameplayFinished: record('TJ_API.gameplayFinished'),
    playableFinished: record('TJ_API.playableFinished')
  };
  whenLoaded(ready);
}`;

/** Yandex hands out click URLs; the ad opens one with window.open, which the container receives. */
const yandex = `function (host, ready) {
  if (window.yandexHTML5BannerApi) return;
  window.yandexHTML5BannerApi = {
    getClickURLNum: function (n) { host.call('yandexHTML5BannerApi.getClickURLNum', [n]); return ${JSON.stringify(YANDEX_CLICK_URL_PREFIX)} + n; }
  };
  window.open = function () { record('window.open').apply(null, arguments); return null; };
  whenLoaded(ready);
}`;

export const API_STUBS: Record<ContainerApi, string> = {
  mraid,
  dapi,
  FbPlayableAd: fbPlayableAd,
  ExitApi: exitApi,
  mintegral,
  openAppStore,
  vungle,
  TJ_API: tapjoy,
  yandex,
};
