// The page around the wasm core (web/app.c): pickers, fly/orbit controls, click to dig and shift-click to
// raise with undo, the HUD, dropped worlds and DEM PNGs, and one clear message for anything that goes wrong.
// URL parameters drive it for tests: method, size=WxH, camera=x,y,z,yaw,pitch, gen=SEED:WxH, knob (a mesh
// method's: its quality picker, q = knob / 100), frames, workers=0|1, worker_delay=MS (the generator worker held
// back that long), diagnostic=N (a method's diagnostic colouring: voxel-compute's 1 colours by its traversal's
// steps, as STRATA_VOXEL_STEPS=1 natively), wireframe=1 (the wireframe box ticked).
'use strict';

var Module = {canvas: document.getElementById('canvas')};
// The first frame's pieces, ms (published with the first result as "timing")
var timing = {};
var page = {ready: false, mode: 0, keys: {}, look: [0, 0], scroll: 0, last: 0, frameMs: 0, interval: 0, lastDrawn: 0};
var params = new URLSearchParams(location.search);

function $(id) { return document.getElementById(id); }

// The generator's helper (web/gen_worker.js), started first so that its instance is ready when the world is made:
// it makes the second half of a generated world's rows while the page makes the first (without shared memory,
// which plain http.server does not allow, wasm threads are not an option). Started for the default world and
// generated worlds of a million texels or more; ?workers=1 always, ?workers=0 never.
var genSpec = /^(\d+):(\d+)x(\d+)$/.exec(params.get('gen') || '');
var genWorker = null;
if (typeof Worker !== 'undefined' && (params.get('workers') === '1' ||
    (params.get('workers') !== '0' && (!genSpec || genSpec[2] * genSpec[3] >= (1 << 20))))) {
  try { genWorker = new Worker('gen_worker.js'); } catch (e) { genWorker = null; }
}

// A notice that is not a failure (no WebGPU here: the WebGL2 methods run).
function showNotice(text) {
  var m = $('notice');
  m.textContent = text;
  m.style.display = text ? 'block' : 'none';
}

// The one message of the page: shown in place, never an exception alone in the console.
function showMessage(text) {
  var m = $('message');
  m.textContent = text;
  m.style.display = text ? 'block' : 'none';
  if (text) {
    $('result').textContent = JSON.stringify({error: text});
    document.title = 'strata: error';
  }
}

window.addEventListener('error', function (e) { showMessage('strata failed: ' + e.message); });
window.addEventListener('unhandledrejection', function (e) { showMessage('strata failed: ' + e.reason); });

function call(name, ret, types, args) { return Module.ccall(name, ret, types, args); }
function check(rc, what) {
  if (rc !== 0) throw new Error(what + ': ' + call('web_error', 'string', [], []));
}

function parseSize(text) {
  var m = /^(\d+)x(\d+)$/.exec(text || '');
  return m ? [parseInt(m[1], 10), parseInt(m[2], 10)] : null;
}

function applySize(text) {
  var s = parseSize(text);
  if (!s) throw new Error('bad size ' + text);
  check(call('web_set_size', 'number', ['number', 'number'], s), 'size');
}

function methodName(index) { var o = $('method').options[index]; return o ? o.textContent : ''; }

// A mesh method's knob is its quality picker's (q = knob / 100; 0, the picker's 0.5, the native default), any other
// method's the URL's (0: the method's default).
function methodKnob(index) {
  if (/^mesh/.test(methodName(index))) return parseInt($('quality').value, 10) || 0;
  return parseInt(params.get('knob') || '0', 10) || 0;
}

function setMethod(index) {
  check(call('web_set_method', 'number', ['number', 'number'], [index, methodKnob(index)]), 'method');
  call('web_set_diagnostic', null, ['number'], [parseInt(params.get('diagnostic') || '0', 10) || 0]);
  call('web_set_wireframe', null, ['number'], [$('wireframe').checked ? 1 : 0]);
  // the mesh methods' quality; the edge overlay where it is drawn (mesh-compute's resolve: WebGL2 has no line fill)
  $('quality-label').style.display = /^mesh/.test(methodName(index)) ? '' : 'none';
  $('wireframe-label').style.display = methodName(index) === 'mesh-compute' ? '' : 'none';
  showCanvas();
}

// The URL's knob and wireframe into the mesh controls (a knob the picker has not is added to it).
function initMeshControls() {
  var m = params.get('method') || '', knob = parseInt(params.get('knob') || '0', 10) || 0;
  if (/^mesh/.test(m) && knob) {
    var q = $('quality');
    if (!Array.prototype.some.call(q.options, function (o) { return +o.value === knob; })) {
      var o = document.createElement('option');
      o.value = String(knob);
      o.textContent = String(knob / 100);
      q.appendChild(o);
    }
    q.value = String(knob);
  }
  $('wireframe').checked = params.get('wireframe') === '1';
}

// The default world's 12 views (data/default_world.json), scaled to smaller levels as src/eval/views.c does;
// a level of another kind gets the same pitches over its middle.
var views = [];

// The default world's dual threshold, made at build time by the page's own generator (default_threshold.json,
// web/gen_threshold.c): with it the page finishes the rows in sight before the rest of the world (a preview).
var defaultThreshold = null;

function loadViews() {
  var threshold = fetch('default_threshold.json').then(function (r) { return r.ok ? r.json() : null; })
    .then(function (j) { defaultThreshold = j; }, function () { defaultThreshold = null; });
  return Promise.all([threshold, loadCatalogue()]);
}

function loadCatalogue() {
  return fetch('default_world.json').then(function (r) {
    if (!r.ok) throw new Error('default_world.json: ' + r.status);
    return r.json();
  }).then(function (j) {
    views = j.views;
    views.forEach(function (v, i) {
      var o = document.createElement('option');
      o.value = String(i);
      o.textContent = v.name + ' (' + v.pitch + ')';
      $('view').appendChild(o);
    });
    $('view').value = String(views.map(function (v) { return v.name; }).indexOf('tunnel'));
  });
}

function applyView(index) {
  var v = views[+index];
  if (!v) return;
  var w = call('web_level_width', 'number', [], []), h = call('web_level_height', 'number', [], []);
  var sx = Math.min(1, w / 2048), sy = Math.min(1, h / 16384);
  call('web_set_view', null, ['number', 'number', 'number', 'number', 'number', 'number'],
       [v.x * sx, v.y * sy, v.eye_height, v.under ? 1 : 0, v.yaw, v.pitch]);
}

function render() {
  var ms = call('web_render', 'number', [], []);
  if (ms < 0) throw new Error('nothing to draw: ' + call('web_error', 'string', [], []));
  page.frameMs = ms;
  return ms;
}

function hud() {
  var cam = call('web_default_camera', 'string', [], []);
  $('hud').textContent = $('method').value + '  frame ' + (page.interval ? page.interval.toFixed(1) + ' ms' : '-') +
    ' (' + page.frameMs.toFixed(1) + ' ms of it on the CPU)\n' +
    'camera ' + cam;
}

// The backend of the current method ("webgl2" or "webgpu") and the canvas it shows.
function backend() { return call('web_backend', 'string', [], []); }
function showCanvas() {
  var gpu = backend() === 'webgpu';
  $('canvas').style.display = gpu ? 'none' : 'block';
  $('gpu-canvas').style.display = gpu ? 'block' : 'none';
}

// Reads the frame back into the core (web_read): at once on WebGL2; on WebGPU after its asynchronous copy.
function readBack() {
  var done = function () { check(call('web_read', 'number', [], []), 'read-back'); };
  if (backend() !== 'webgpu') { done(); return Promise.resolve(); }
  return strataGpu.fetch().then(done);
}

// Reads the frame back and publishes the result line (element #result and window.strataResult); a promise.
function publish(extra) {
  return readBack().then(function () { return publishRead(extra); });
}

function publishRead(extra) {
  var r = JSON.parse(call('web_result_ptr', 'string', [], []));
  if (page.gpuMissing) r.webgpu_missing = page.gpuMissing;
  for (var k in extra) r[k] = extra[k];
  window.strataResult = r;
  $('result').textContent = JSON.stringify(r);
  document.title = 'strata: ' + r.method + ' ' + r.coverage.toFixed(4);
  return r;
}

// The hit mask of the last read-back (one byte a pixel, rows top first), base64: for the test driver.
window.strataHitMask = function () {
  var w = window.strataResult.width, h = window.strataResult.height;
  var ptr = call('web_pixels_ptr', 'number', [], []);
  var bytes = Module.HEAPU8.subarray(ptr + w * h * 4, ptr + w * h * 5);
  var s = '';
  for (var i = 0; i < bytes.length; i += 8192) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  return btoa(s);
};

// The colour of the last read-back (RGBA, sRGB-encoded, rows top first), base64: for the test driver.
window.strataPixels = function () {
  var w = window.strataResult.width, h = window.strataResult.height;
  var ptr = call('web_pixels_ptr', 'number', [], []);
  var bytes = Module.HEAPU8.subarray(ptr, ptr + w * h * 4);
  var s = '';
  for (var i = 0; i < bytes.length; i += 8192) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  return btoa(s);
};

// Test hook: digs (or raises) under a pixel, draws and publishes.
window.strataDig = function (px, py, raise) {
  var rc = call('web_dig', 'number', ['number', 'number', 'number'], [px, py, raise ? 1 : 0]);
  render();
  return publish({}).then(function (r) { return {rc: rc, result: r}; });
};
// Test hook: a named view of the catalogue at a size (WxH), drawn and published.
window.strataView = function (name, size) {
  var i = views.map(function (v) { return v.name; }).indexOf(name);
  if (i < 0) throw new Error('no view ' + name);
  applySize(size);
  applyView(i);
  render();
  return publish({});
};

// Test hook: draws the current state again and publishes it (after the pickers changed something).
window.strataRedraw = function () {
  render();
  return publish({});
};
window.strataUndo = function () {
  var rc = call('web_undo', 'number', [], []);
  render();
  return publish({}).then(function (r) { return {rc: rc, result: r}; });
};

function loop(t) {
  if (!page.ready) return;
  var dt = page.last ? Math.min((t - page.last) / 1000, 0.1) : 0;
  page.last = t;
  var k = page.keys;
  var move = [(k.KeyD ? 1 : 0) - (k.KeyA ? 1 : 0), (k.KeyW ? 1 : 0) - (k.KeyS ? 1 : 0), (k.KeyE ? 1 : 0) - (k.KeyQ ? 1 : 0)];
  var moving = move[0] || move[1] || move[2] || page.look[0] || page.look[1] || page.scroll;
  if (moving || page.dirty) {
    call('web_control', null, ['number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number'],
         [move[0], move[1], move[2], page.look[0], page.look[1], page.scroll, k.ShiftLeft ? 1 : 0, dt, page.mode]);
    page.look = [0, 0];
    page.scroll = 0;
    page.dirty = false;
    try {
      render();
      // frames drawn back to back: the interval is the frame time the user sees (the GPU's work included)
      page.interval = page.lastDrawn && t - page.lastDrawn < 1000 ? t - page.lastDrawn : page.interval;
      page.lastDrawn = t;
      hud();
    } catch (e) { showMessage(String(e.message || e)); page.ready = false; return; }
  }
  requestAnimationFrame(loop);
}

function readFile(f) {
  return new Promise(function (ok, bad) {
    var r = new FileReader();
    r.onload = function () { ok(new Uint8Array(r.result)); };
    r.onerror = function () { bad(new Error(f.name + ': could not be read')); };
    r.readAsArrayBuffer(f);
  });
}

function withBytes(list, fn) {
  var ptrs = list.map(function (b) {
    if (!b) return 0;
    var p = Module._malloc(b.length || 1);
    Module.HEAPU8.set(b, p);
    return p;
  });
  try { return fn(ptrs); } finally { ptrs.forEach(function (p) { if (p) Module._free(p); }); }
}

// A dropped world (world.ini + .vmc/.vmp + .pal [+ .vpr]) or one greyscale DEM PNG.
function dropped(files) {
  var by = {};
  files.forEach(function (f) {
    var n = f.name.toLowerCase();
    var ext = n.slice(n.lastIndexOf('.') + 1);
    by[n === 'world.ini' ? 'ini' : ext] = f;
  });
  var wanted = by.ini ? ['ini', by.vmc ? 'vmc' : 'vmp', 'pal', 'vpr'] : by.png ? ['png'] : null;
  if (!wanted) {
    showMessage('not a world and not a DEM PNG: drop world.ini with its .vmc (or .vmp) and .pal, or one greyscale PNG');
    return;
  }
  if (by.ini && (!by[wanted[1]] || !by.pal)) {
    showMessage('a world needs world.ini, its map (.vmc or .vmp) and its palette (.pal) dropped together');
    return;
  }
  Promise.all(wanted.map(function (k) { return by[k] ? readFile(by[k]) : Promise.resolve(null); })).then(function (b) {
    var rc = withBytes(b, function (p) {
      if (by.ini)
        return call('web_load_world', 'number', ['number', 'number', 'number', 'number', 'number', 'number', 'number', 'number'],
                    [p[0], b[0].length, p[1], b[1].length, p[2], b[2].length, p[3], b[3] ? b[3].length : 0]);
      return call('web_load_png', 'number', ['number', 'number'], [p[0], b[0].length]);
    });
    if (rc !== 0) { showMessage(call('web_error', 'string', [], [])); return; }
    showMessage('');
    applyView($('view').value);
    render(); hud();
    return publish({});
  }).catch(function (e) { showMessage(String(e.message || e)); });
}

function wire() {
  $('canvas').addEventListener('webglcontextlost', function (e) {
    e.preventDefault();
    page.ready = false;
    showMessage('the browser lost the WebGL2 context (the GPU was reset or is busy): reload the page');
  });
  [$('canvas'), $('gpu-canvas')].forEach(wireCanvas);
  window.addEventListener('keydown', function (e) {
    if (e.ctrlKey && e.code === 'KeyZ') { $('undo').click(); e.preventDefault(); return; }
    page.keys[e.code] = true; page.dirty = true;
  });
  window.addEventListener('keyup', function (e) { page.keys[e.code] = false; });
  $('undo').addEventListener('click', function () { call('web_undo', 'number', [], []); page.dirty = true; });
  $('method').addEventListener('change', function () {
    try { setMethod($('method').selectedIndex); page.dirty = true; } catch (e) { showMessage(e.message); }
  });
  $('view').addEventListener('change', function () { applyView($('view').value); page.dirty = true; });
  // a new q is a new fit: the method is made again
  $('quality').addEventListener('change', function () {
    try { setMethod($('method').selectedIndex); page.dirty = true; } catch (e) { showMessage(e.message); }
  });
  $('wireframe').addEventListener('change', function () {
    call('web_set_wireframe', null, ['number'], [$('wireframe').checked ? 1 : 0]);
    page.dirty = true;
  });
  $('mode').addEventListener('change', function () { page.mode = parseInt($('mode').value, 10); page.dirty = true; });
  $('size').addEventListener('change', function () {
    try { applySize($('size').value); page.dirty = true; } catch (e) { showMessage(e.message); }
  });
  var main = $('main');
  ['dragenter', 'dragover'].forEach(function (n) {
    document.addEventListener(n, function (e) { e.preventDefault(); main.classList.add('drop'); });
  });
  document.addEventListener('dragleave', function () { main.classList.remove('drop'); });
  document.addEventListener('drop', function (e) {
    e.preventDefault();
    main.classList.remove('drop');
    dropped(Array.prototype.slice.call(e.dataTransfer.files));
  });
  // the test driver hands files in through a hidden input (WebDriver cannot drag)
  var input = document.createElement('input');
  input.type = 'file'; input.multiple = true; input.id = 'files'; input.style.display = 'none';
  input.addEventListener('change', function () { dropped(Array.prototype.slice.call(input.files)); });
  document.body.appendChild(input);
}

// Look by dragging, dig by clicking, the orbit distance by the wheel: on either canvas.
function wireCanvas(c) {
  var drag = null;
  c.addEventListener('mousedown', function (e) { drag = {x: e.clientX, y: e.clientY, moved: false}; });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
    page.look[0] += dx; page.look[1] += dy; drag.x = e.clientX; drag.y = e.clientY; page.dirty = true;
  });
  window.addEventListener('mouseup', function (e) {
    if (drag && !drag.moved && e.target === c) {
      var r = c.getBoundingClientRect();
      var px = (e.clientX - r.left) * c.width / r.width, py = (e.clientY - r.top) * c.height / r.height;
      var rc = call('web_dig', 'number', ['number', 'number', 'number'], [px, py, e.shiftKey ? 1 : 0]);
      if (rc > 0) showMessage(call('web_error', 'string', [], []));
      page.dirty = true;
    }
    drag = null;
  });
  c.addEventListener('wheel', function (e) { page.scroll += e.deltaY < 0 ? 1 : -1; page.dirty = true; e.preventDefault(); });
}

// WebGPU for the compute methods, asked for while the world is generated: where the browser has none, the page
// says so, offers the WebGL2 methods only and draws a compute method asked for by its WebGL2 twin.
var gpuReady = null;

function startGpu() {
  if (typeof strataGpu === 'undefined') return Promise.resolve('gpu.js is missing from the page');
  strataGpu.onlost = function (why) {
    page.ready = false;
    showMessage('the browser lost the WebGPU device (' + why + '): pick a WebGL2 method and reload the page');
  };
  strataGpu.onerror = function (what) { showMessage('WebGPU: ' + what); };
  return strataGpu.init('gpu-canvas');
}

function start() {
  var t0 = performance.now();
  if (!document.createElement('canvas').getContext('webgl2')) {
    showMessage('this browser has no WebGL2: strata needs it');
    return;
  }
  check(call('web_init', 'number', [], []), 'WebGL2');
  gpuReady = startGpu();
  var n = call('web_method_count', 'number', [], []);
  for (var i = 0; i < n; i++) {
    var o = document.createElement('option');
    o.textContent = call('web_method_name', 'string', ['number'], [i]);
    if (call('web_method_compute', 'number', ['number'], [i])) o.dataset.compute = '1';
    $('method').appendChild(o);
  }
  initMeshControls();
  if (params.get('size')) {
    $('size').value = params.get('size');
    applySize(params.get('size'));
  }
  var gen = genSpec;
  var tg = performance.now();
  // the rows in sight first (the default world, with the worker, the threshold known; ?preview=0 never)
  var m = params.get('method') || '';
  var before = !gen && genWorker && defaultThreshold && params.get('preview') !== '0' && !/-compute$/.test(m) &&
    !/^scatter/.test(m) ? function () { return previewFrame(t0); } : null;
  var made = generate(gen ? [+gen[1], +gen[2], +gen[3]] : [0, 0, 0], gen ? 'generating' : 'generating the default world',
                      before);
  return Promise.all([made, gpuReady]).then(function (got) {
    var genMs = performance.now() - tg;
    useGpu(got[1]);
    return firstFrame(t0, genMs, got[0]);
  });
}

// The WebGPU device's answer: the backend taken, or why there is none (the compute methods disabled).
function useGpu(missing) {
  if (!missing && call('web_init_gpu', 'number', [], []) !== 0) missing = call('web_error', 'string', [], []);
  page.gpuMissing = missing || null;
  Array.prototype.forEach.call($('method').options, function (o) {
    if (o.dataset.compute && missing) { o.disabled = true; o.title = 'needs WebGPU'; }
  });
  if (missing) showNotice('WebGPU is not available: ' + missing + '. The compute methods need it; the WebGL2 methods run.');
}

// The preview: the region the first frame's camera can see, made and finished alone with the default world's
// threshold (web_preview_begin, web_preview_region), drawn and published ({preview: true}) before the rest of the
// world is made. Nothing can be dug until the whole world is there (the page is not ready).
function previewFrame(t0) {
  var tp = performance.now();
  setMethod(methodIndex(false));
  var cam = params.get('camera'), args;
  var th = defaultThreshold.threshold;
  if (cam) {
    var c = cam.split(',').map(Number);
    if (c.length !== 5 || c.some(isNaN)) throw new Error('bad camera ' + cam);
    args = [th, c[0], c[1], c[2], 0, 0, c[3], c[4]];
  } else {
    var v = views[+$('view').value];
    args = [th, v.x, v.y, -1, v.eye_height, v.under ? 1 : 0, v.yaw, v.pitch];
  }
  check(call('web_preview_begin', 'number', ['number', 'number', 'number', 'number', 'number', 'number', 'number',
                                             'number'], args), 'the preview');
  check(call('web_preview_region', 'number', [], []), 'the preview');
  var td = performance.now();
  render();
  return readBack().then(function () {
    var now = performance.now();
    timing.preview_region_ms = td - tp; // the region made and finished, uploaded, the method made
    timing.preview_draw_ms = now - td;
    timing.preview_texels = call('web_preview_texels', 'number', [], []);
    timing.preview_frame_ms = now; // from navigation start
    hud();
    $('hud').textContent += '\npreview: the rows in sight; the rest of the world is being made';
    publishRead({preview: true, timing: timing, load_to_frame_ms: now, first_frame_ms: now - t0});
  });
}

// Makes the world of (seed, width, height) (zeros: the default), the rows shared with the worker when there is
// one; resolves to the number of workers that helped. before (optional): a function run by the page before its
// own chunks and the worker's; a promise.
function generate(desc, what, before) {
  if (!genWorker) {
    check(call('web_load_gen', 'number', ['number', 'number', 'number'], desc), what);
    return Promise.resolve(0);
  }
  check(call('web_gen_begin', 'number', ['number', 'number', 'number'], desc), what);
  var w = call('web_gen_width', 'number', [], []), h = call('web_gen_height', 'number', [], []);
  // Chunks of rows (multiples of the generator's 32-row blocks) handed out as each side is free: the page takes
  // the next one itself between yields, the worker is kept two ahead. An even split in two halves waited on the
  // slower side (a worker that began late, the page's share of a loaded machine) for as long as the difference.
  var rows = Math.max(32, Math.ceil(h / 32 / 32) * 32);
  var next = 0, outstanding = 0, workerRows = 0, pageMs = 0, workerMs = 0, copyMs = 0;
  var t0 = performance.now();
  var workerDelay = parseInt(params.get('worker_delay') || '0', 10) || 0; // the first chunk's (a test hook)
  function take() {
    if (next >= h) return null;
    var c = [next, Math.min(h, next + rows)];
    next = c[1];
    return c;
  }
  function feed() {
    while (outstanding < 2) {
      var c = take();
      if (!c) return;
      outstanding++;
      genWorker.postMessage({seed: desc[0], w: w, h: h, y0: c[0], y1: c[1], delay: workerDelay});
      workerDelay = 0;
    }
  }
  return new Promise(function (ok, bad) {
    var failed = false;
    function fail(e) { if (!failed) { failed = true; bad(e); } }
    function done() {
      if (next < h || outstanding) return false;
      var t2 = performance.now();
      timing.bands_ms = t2 - t0;
      timing.band_page_ms = pageMs;
      timing.band_worker_ms = workerMs;
      timing.worker_share = workerRows / h;
      timing.band_copy_ms = copyMs;
      try { check(call('web_gen_finish', 'number', [], []), what); } catch (e) { fail(e); return true; }
      timing.finish_and_upload_ms = performance.now() - t2; // slab passes, then the level's upload
      ok(1);
      return true;
    }
    genWorker.onmessage = function (e) {
      if (failed) return;
      var b = e.data;
      if (b.error) { fail(new Error(what + ': ' + b.error)); return; }
      var t = performance.now();
      b.planes.forEach(function (buf, i) {
        var p = call('web_gen_plane', 'number', ['number', 'number'], [i, b.y0]);
        Module.HEAPU8.set(new Uint8Array(buf), p);
      });
      copyMs += performance.now() - t;
      workerMs += b.ms;
      workerRows += b.y1 - b.y0;
      outstanding--;
      feed();
      done();
    };
    genWorker.onerror = function (e) { fail(new Error(what + ': the generator worker failed: ' + e.message)); };
    // with a preview the worker's chunks wait for its frame: the page's region and the browser's draw of it then
    // have the machine (measured: the region 0.2-0.4 s instead of 0.9-1.2 s at load 15-16)
    if (!before) feed();
    // the page's own chunks, yielding between them so that the worker's answers are taken in
    var channel = new MessageChannel();
    channel.port1.onmessage = function () {
      if (failed) return;
      var c = take();
      if (!c) { done(); return; }
      var t = performance.now();
      try { check(call('web_gen_rows', 'number', ['number', 'number'], c), what); } catch (e) { fail(e); return; }
      pageMs += performance.now() - t;
      channel.port2.postMessage(0);
    };
    if (before) {
      // a preview that fails (say, out of memory) is only late news: the world is made as without one
      var tb = performance.now(), go = function () {
        timing.preview_busy_ms = performance.now() - tb;
        feed();
        channel.port2.postMessage(0);
      };
      var shown;
      try { shown = before(); } catch (e) { shown = Promise.reject(e); }
      shown.then(go, function (e) { timing.preview_error = String(e.message || e); go(); });
    } else {
      channel.port2.postMessage(0);
    }
  });
}

// The picker's index of the method asked for in the URL (the picker's choice without one); a compute method
// without WebGPU gives its fragment twin ("ray-compute" -> "ray") where there is one, with a notice if told.
function methodIndex(notice) {
  var m = params.get('method');
  var names = Array.prototype.map.call($('method').options, function (o) { return o.textContent; });
  if (!m) return $('method').selectedIndex;
  var idx = names.indexOf(m);
  if (idx < 0) throw new Error('no method ' + m + ' in the web build');
  if ($('method').options[idx].disabled) {
    var twin = names.indexOf(m.replace(/-compute$/, ''));
    if (notice)
      showNotice('WebGPU is not available: ' + page.gpuMissing + '. ' + m + ' needs it; ' +
                 (twin >= 0 && twin !== idx ? names[twin] : names[0]) + ' (WebGL2) is drawn instead.');
    idx = twin >= 0 && twin !== idx ? twin : 0;
  }
  return idx;
}

function firstFrame(t0, genMs, workers) {
  $('method').selectedIndex = methodIndex(true);
  setMethod($('method').selectedIndex);
  var cam = params.get('camera');
  if (cam) {
    var v = cam.split(',').map(Number);
    if (v.length !== 5 || v.some(isNaN)) throw new Error('bad camera ' + cam);
    call('web_set_camera', null, ['number', 'number', 'number', 'number', 'number'], v);
  } else {
    applyView($('view').value);
  }
  var td = performance.now();
  render();
  // the frame is done once its pixels are read back (both backends draw asynchronously)
  return readBack().then(function () {
    var first = performance.now();
    timing.first_draw_ms = first - td;
    timing.script_start_ms = t0; // from navigation start: the page's files fetched, strata.js run, wasm compiled
    hud();
    var extra = {timing: timing, generate_ms: genMs, first_frame_ms: first - t0, load_to_frame_ms: first,
                 frame_ms: page.frameMs, gen_workers: workers};
    if (timing.preview_frame_ms) extra.preview_exact = call('web_preview_exact', 'number', [], []);
    publishRead(extra);
    page.ready = true;
    wire();
    requestAnimationFrame(loop);
  });
}

Module.onRuntimeInitialized = function () {
  // strata.wasm fetched (resource timing) and compiled and instantiated (now), from navigation start
  timing.runtime_ms = performance.now();
  var wasm = performance.getEntriesByType('resource').filter(function (e) { return /strata\.wasm$/.test(e.name); })[0];
  if (wasm) timing.wasm_fetched_ms = wasm.responseEnd;
  loadViews().then(start).catch(function (e) { showMessage(String(e.message || e)); });
};
Module.onAbort = function (what) { showMessage('strata stopped: ' + what); };
