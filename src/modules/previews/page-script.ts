// The preview page's script: one inline <script>, allowed by its hash in the page's CSP
// (./page.ts), so it is the same text on every page; what differs per page is read from the
// data attributes of [data-preview]. It logs each call the framed playable makes to its container
// (posted by PARENT_FRAME_HOST, src/exporters/containers/) as `name(args…)` — the text of
// formatBridgeCall — switches the orientation and scales the device to the room there is.
export const PAGE_SCRIPT = `(function () {
  'use strict';
  var root = document.querySelector('[data-preview]');
  var frame = document.querySelector('[data-preview-frame]');
  var device = document.querySelector('[data-preview-device]');
  var fit = device.parentElement;
  var log = document.querySelector('[data-preview-log]');
  var status = document.querySelector('[data-preview-status]');
  var parentMessages = JSON.parse(root.getAttribute('data-parent-messages') || '[]');
  var SIZES = { portrait: [360, 640], landscape: [640, 360] };
  var BEZEL = 28;
  var MAX_LINES = 500;
  var orientation = 'portrait';
  var startedAt = performance.now();

  function format(name, args) {
    return name + '(' + args.map(function (arg) {
      var text = JSON.stringify(arg);
      return text === undefined ? 'undefined' : text;
    }).join(', ') + ')';
  }
  function append(line) {
    var item = document.createElement('li');
    item.textContent = line;
    item.setAttribute('data-time', '+' + ((performance.now() - startedAt) / 1000).toFixed(1) + ' s');
    log.appendChild(item);
    while (log.children.length > MAX_LINES) log.removeChild(log.firstChild);
    log.scrollTop = log.scrollHeight;
  }
  function setReady(ready) {
    status.setAttribute('data-ready', ready ? 'true' : 'false');
    status.textContent = ready ? 'Container ready' : 'Waiting for the container\\u2026';
  }

  window.addEventListener('message', function (event) {
    if (event.source !== frame.contentWindow) return;
    var data = event.data;
    if (data && data.type === 'playable-bridge-call' && typeof data.name === 'string') {
      append(format(data.name, Array.isArray(data.args) ? data.args : []));
    } else if (data && data.type === 'playable-container-ready') {
      setReady(true);
    } else if (typeof data === 'string' && parentMessages.indexOf(data) !== -1) {
      append(format('parent.postMessage', [data]));
    }
  });

  function layout() {
    var size = SIZES[orientation];
    var width = size[0] + BEZEL;
    var height = size[1] + BEZEL;
    var room = fit.parentElement.clientWidth;
    // Wide screens: the whole device and its status line in view, as far as it stays legible.
    var tall = Math.max(window.innerHeight - (fit.getBoundingClientRect().top + window.scrollY) - 48, 360);
    var scale = Math.min(1, room / width, window.innerWidth >= 900 ? tall / height : 1);
    device.style.transform = 'scale(' + scale + ')';
    fit.style.width = Math.floor(width * scale) + 'px';
    fit.style.height = Math.floor(height * scale) + 'px';
  }
  function orient(name) {
    orientation = name;
    device.classList.toggle('landscape', name === 'landscape');
    frame.width = String(SIZES[name][0]);
    frame.height = String(SIZES[name][1]);
    document.querySelectorAll('[data-preview-orientation]').forEach(function (button) {
      button.setAttribute('aria-pressed', String(button.getAttribute('data-preview-orientation') === name));
    });
    layout();
  }

  document.querySelectorAll('[data-preview-orientation]').forEach(function (button) {
    button.addEventListener('click', function () { orient(button.getAttribute('data-preview-orientation')); });
  });
  document.querySelector('[data-preview-restart]').addEventListener('click', function () {
    setReady(false);
    log.textContent = '';
    startedAt = performance.now();
    frame.src = frame.getAttribute('src');
  });
  document.querySelector('[data-preview-clear]').addEventListener('click', function () { log.textContent = ''; });
  document.querySelectorAll('time[datetime]').forEach(function (time) {
    time.textContent = new Date(time.getAttribute('datetime')).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
  });
  window.addEventListener('resize', layout);
  layout();
})();`;
