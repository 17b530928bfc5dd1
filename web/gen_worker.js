// A worker that makes bands of the generated world's terrain for the page (web/gen_bands.c): its own instance of
// strata.wasm, one band a message ({seed, w, h, y0, y1}), answered with the band's four planes (heights,
// metadata, scores, candidates: rows of w, w, w and 2w bytes) as transferred buffers, or {error}.
'use strict';

var ready = false, queue = [];
var Module = {
  noInitialRun: true,
  onRuntimeInitialized: function () { ready = true; queue.splice(0).forEach(make); },
  onAbort: function (what) { postMessage({error: 'the generator worker stopped: ' + what}); }
};
importScripts('strata.js');

// q.delay (ms; the page's ?worker_delay=, a test hook): the worker takes up nothing for that long, as a
// worker that starts late would
var holdUntil = 0;
onmessage = function (e) {
  var q = e.data, now = performance.now();
  if (q.delay) holdUntil = now + q.delay;
  if (now < holdUntil) setTimeout(function () { if (ready) make(q); else queue.push(q); }, holdUntil - now);
  else if (ready) make(q);
  else queue.push(q);
};

function make(q) {
  var t0 = performance.now();
  var rc = Module.ccall('web_band_make', 'number', ['number', 'number', 'number', 'number', 'number'],
                        [q.seed, q.w, q.h, q.y0, q.y1]);
  if (rc !== 0) {
    postMessage({error: Module.UTF8ToString(Module.ccall('web_band_error', 'number', [], []))});
    return;
  }
  var rows = q.y1 - q.y0, widths = [q.w, q.w, q.w, 2 * q.w], planes = [];
  for (var i = 0; i < 4; i++) {
    var p = Module.ccall('web_band_plane', 'number', ['number'], [i]);
    planes.push(Module.HEAPU8.slice(p, p + widths[i] * rows).buffer);
  }
  Module.ccall('web_band_free', null, [], []);
  postMessage({y0: q.y0, y1: q.y1, planes: planes, ms: performance.now() - t0}, planes);
}
