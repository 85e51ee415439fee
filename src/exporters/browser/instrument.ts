// What the harness puts into every page before the artifact's own scripts (and before the
// container stub): it notes the first input, any sound started before it, the first contentful
// paint and the container's readiness in window.__pcsHarness, and is the stub's `host`, handing
// each bridge call to Node through a binding. ES5, like the runtime.

/** The binding the harness exposes: (name, args, afterInput) for each bridge call. */
export const BRIDGE_BINDING = '__pcsBridgeCall';
/** The `host` expression given to containerScript. */
export const HARNESS_HOST = 'window.__pcsHost';

/** What the page noted, read back by the harness (times in ms since navigation start). */
export interface PageNotes {
  firstInputAt: number | null;
  readyAt: number | null;
  firstPaintAt: number | null;
  /** Sounds started before the first input, e.g. "AudioBufferSourceNode.start()". */
  sounds: string[];
}

export const INSTRUMENT_SCRIPT = `(function () {
  if (window.__pcsHarness) return;
  var notes = window.__pcsHarness = { firstInputAt: null, readyAt: null, firstPaintAt: null, sounds: [] };
  function now() { return Math.round(performance.now()); }
  ['pointerdown', 'touchstart', 'mousedown', 'keydown'].forEach(function (type) {
    window.addEventListener(type, function () { if (notes.firstInputAt === null) notes.firstInputAt = now(); }, true);
  });
  function sound(what) { if (notes.firstInputAt === null) notes.sounds.push(what); }
  function audible(media) { return !media.muted && media.volume > 0; }
  var play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () {
    this.__pcsPlayCalled = true;
    if (audible(this)) sound('<' + this.tagName.toLowerCase() + '>.play()');
    return play.apply(this, arguments);
  };
  document.addEventListener('play', function (event) {
    var media = event.target;
    if (!media.__pcsPlayCalled && audible(media)) sound('<' + media.tagName.toLowerCase() + ' autoplay>');
  }, true);
  if (window.AudioScheduledSourceNode) {
    var start = AudioScheduledSourceNode.prototype.start;
    AudioScheduledSourceNode.prototype.start = function () {
      sound(this.constructor.name + '.start()');
      return start.apply(this, arguments);
    };
  }
  try {
    new PerformanceObserver(function (list) {
      list.getEntries().forEach(function (entry) {
        if (entry.name === 'first-contentful-paint' && notes.firstPaintAt === null) notes.firstPaintAt = Math.round(entry.startTime);
      });
    }).observe({ type: 'paint', buffered: true });
  } catch (e) {}
  window.__pcsHost = {
    call: function (name, args) { window.${BRIDGE_BINDING}(name, args, notes.firstInputAt !== null); },
    ready: function () { if (notes.readyAt === null) notes.readyAt = now(); }
  };
})();`;
