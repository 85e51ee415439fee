// The Luna Playground API of Luna builds (CONTRACT §14), made of window.playable:
//   Luna.Unity.Playable.InstallFullGame([iosUrl, androidUrl])  the network's call to action
//   Luna.Unity.Playground.get(className, fieldName, default)    config[className][fieldName], else default
//   Luna.Unity.LifeCycle.GameEnded()                            window.playable.end()
//   window events: luna:build once the page has loaded and the container is ready, luna:unmute at
//   the first interaction, luna:pause / luna:resume when the container hides or shows the ad.
// Parts the build defines itself are kept. ES5, like the runtime.

export const LUNA_SHIM = `(function (playable) {
  var config = playable.config || {};
  function fire(type) {
    var event;
    try { event = new Event(type); } catch (e) { event = document.createEvent('Event'); event.initEvent(type, false, false); }
    window.dispatchEvent(event);
  }
  function own(object, key) { return object !== null && typeof object === 'object' && Object.prototype.hasOwnProperty.call(object, key); }
  var luna = window.Luna = window.Luna || {};
  var unity = luna.Unity = luna.Unity || {};
  unity.Playable = unity.Playable || {
    InstallFullGame: function (iosUrl, androidUrl) {
      playable.cta(/android/i.test(navigator.userAgent) ? androidUrl || iosUrl : iosUrl || androidUrl);
    }
  };
  unity.Playground = unity.Playground || {
    get: function (className, fieldName, defaultValue) {
      return own(config, className) && own(config[className], fieldName) ? config[className][fieldName] : defaultValue;
    }
  };
  unity.LifeCycle = unity.LifeCycle || { GameEnded: function () { playable.end(); } };
  unity.Analytics = unity.Analytics || { LogEvent: function () {} };
  var loaded = document.readyState === 'complete', ready = false, built = false;
  function build() { if (loaded && ready && !built) { built = true; setTimeout(function () { fire('luna:build'); }, 0); } }
  window.addEventListener('load', function () { loaded = true; build(); });
  playable.ready(function () { ready = true; build(); });
  playable.onUnmute(function () { fire('luna:unmute'); });
  playable.onPause(function () { fire('luna:pause'); });
  playable.onResume(function () { fire('luna:resume'); });
})(window.playable);`;
