// The JS half of the WebGPU backend (web/backend_gpu.c calls these through EM_JS): the device, textures,
// compute pipelines from the WGSL ports (web/wgsl/), uniform buffers and textures bound by the (group, binding)
// their WGSL declares, the frame's colour (RGBA8) and depth (R32F) storage targets, the copy to the canvas and
// the asynchronous read-back. The current WebGPU API is used directly: Debian's emscripten ships an early-2022
// webgpu.h that today's browsers no longer accept as it is.
'use strict';

var strataGpu = (function () {
  var G = {device: null, info: null, canvas: null, context: null, lost: null,
           textures: [null], programs: [null], buffers: [null], bound: {}, garbage: [], width: 0, height: 0,
           color: null, depth: null, encoder: null, readback: null, error: null};

  // Resolves to null when a device is ready, else to why there is none (the page says so and uses WebGL2).
  G.init = function (canvasId) {
    if (!window.isSecureContext) return Promise.resolve('the page is not a secure context, so the browser offers no WebGPU');
    if (!navigator.gpu) return Promise.resolve('this browser has no WebGPU (navigator.gpu is missing)');
    return navigator.gpu.requestAdapter().then(function (adapter) {
      if (!adapter) return 'the browser offers no WebGPU adapter (requestAdapter gave none)';
      return adapter.requestDevice().then(function (device) {
        G.device = device;
        G.info = adapter.info ? (adapter.info.vendor + ' ' + adapter.info.architecture) : '';
        device.lost.then(function (why) {
          G.device = null;
          if (G.onlost) G.onlost(why.message || why.reason || 'unknown');
        });
        device.onuncapturederror = function (e) { failed(e.error.message); };
        G.canvas = document.getElementById(canvasId);
        G.context = G.canvas.getContext('webgpu');
        if (!G.context) return 'the canvas gives no WebGPU context';
        G.context.configure({device: device, format: 'rgba8unorm', alphaMode: 'opaque',
                             usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_DST});
        return null;
      });
    }).catch(function (e) { return 'WebGPU failed to start: ' + (e.message || e); });
  };

  // The first WebGPU error is the one the page shows (later ones mostly follow from it); a frame fetched
  // after one is refused.
  function failed(message) {
    if (G.error) return;
    G.error = message;
    if (G.onerror) G.onerror(message);
  }

  G.resize = function (w, h) {
    if (!G.device) return 'no WebGPU device';
    if (G.color) { G.color.destroy(); G.depth.destroy(); }
    var usage = GPUTextureUsage.STORAGE_BINDING | GPUTextureUsage.COPY_SRC | GPUTextureUsage.RENDER_ATTACHMENT;
    G.color = G.device.createTexture({size: [w, h], format: 'rgba8unorm', usage: usage});
    G.depth = G.device.createTexture({size: [w, h], format: 'r32float', usage: usage});
    G.width = w; G.height = h;
    G.canvas.width = w; G.canvas.height = h;
    G.readback = null;
    return '';
  };

  var FORMATS = {1: 'rgba8uint', 2: 'rgba32sint', 3: 'r32float'};
  var BYTES = {1: 4, 2: 16, 3: 4};

  G.textureCreate = function (w, h, layers, format) {
    var t = G.device.createTexture({size: [w, h, Math.max(layers, 1)], format: FORMATS[format],
                                    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST});
    // a texture of layers is read as texture_2d_array even with one layer (the level of one piece)
    var view = t.createView({dimension: layers ? '2d-array' : '2d'});
    G.textures.push({texture: t, view: view, format: format});
    return G.textures.length - 1;
  };

  G.textureWrite = function (id, layer, x, y, w, h, bytes) {
    var t = G.textures[id];
    G.device.queue.writeTexture({texture: t.texture, origin: {x: x, y: y, z: layer}}, bytes,
                                {bytesPerRow: w * BYTES[t.format], rowsPerImage: h}, {width: w, height: h});
  };

  G.textureDestroy = function (id) {
    var t = G.textures[id];
    if (t) t.texture.destroy();
    G.textures[id] = null;
  };

  // The functions main reaches (through the calls their bodies name), as one text: layout 'auto' has only the
  // resources the entry point uses, so a resource no reached function names is left out (a port that includes
  // globals.wgsl without surface.wgsl, scatter_tiles.wgsl, never reads the level texture; voxel_mip.wgsl includes
  // voxel_grid.wgsl, whose voxel_occupied reads the globals, but never calls it).
  function reached_code(code) {
    var re = /\bfn\s+(\w+)\s*\(/g, m, bodies = {};
    while ((m = re.exec(code))) {
      var i = code.indexOf('{', re.lastIndex), depth = 0, j = i;
      for (; j < code.length; j++) {
        if (code[j] === '{') depth++;
        else if (code[j] === '}' && --depth === 0) break;
      }
      bodies[m[1]] = code.substring(re.lastIndex, j + 1);
    }
    var seen = {}, todo = ['main'], text = '';
    while (todo.length) {
      var f = todo.pop();
      if (seen[f] || !(f in bodies)) continue;
      seen[f] = true;
      text += bodies[f] + '\n';
      (bodies[f].match(/\b\w+(?=\s*\()/g) || []).forEach(function (n) { if (!seen[n]) todo.push(n); });
    }
    return text;
  }

  // The (group, binding) of each resource the WGSL declares that the entry point uses, and what it is.
  function declarations(source) {
    var re = /@group\((\d+)\)\s*@binding\((\d+)\)\s*var(<[^>]*>)?\s+(\w+)\s*:\s*([\w]+)(<[^>]*>)?/g, m, out = [];
    var code = reached_code(source.replace(/\/\/[^\n]*/g, '')); // the names as the code uses them, not as comments do
    while ((m = re.exec(source))) {
      if (!new RegExp('\\b' + m[4] + '\\b').test(code)) continue;
      var kind = m[3] && m[3].indexOf('uniform') >= 0 ? 'uniform' : m[3] && m[3].indexOf('storage') >= 0 ? 'buffer' :
                 m[5] === 'texture_storage_2d' ? (m[6].indexOf('r32float') >= 0 ? 'depth' : 'color') : 'texture';
      out.push({group: +m[1], binding: +m[2], name: m[4], kind: kind});
    }
    return out;
  }

  // A compute pipeline; its creation errors come back through the device's error scope as a message.
  G.computeCreate = function (name, source) {
    var d = G.device;
    d.pushErrorScope('validation');
    var module = d.createShaderModule({code: source, label: name});
    var pipeline = d.createComputePipeline({layout: 'auto', compute: {module: module, entryPoint: 'main'}, label: name});
    var p = {name: name, pipeline: pipeline, decl: declarations(source), failed: null};
    d.popErrorScope().then(function (e) {
      if (!e) return;
      p.failed = name + ': the browser refused the WGSL: ' + e.message;
      failed(p.failed);
    });
    G.programs.push(p);
    return G.programs.length - 1;
  };

  G.programDestroy = function (id) { G.programs[id] = null; };

  // A fresh buffer each time: queue writes land before the frame's one submission, so rewriting one buffer
  // between two dispatches of a frame would give both the last bytes.
  G.uniforms = function (key, bytes) {
    var u = G.uniforms_[key];
    if (u) G.garbage.push(u.buffer);
    u = G.uniforms_[key] = {size: bytes.length,
      buffer: G.device.createBuffer({size: (bytes.length + 15) & ~15, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST})};
    G.device.queue.writeBuffer(u.buffer, 0, bytes);
  };

  G.bufferCreate = function (size) {
    G.buffers.push({size: size, buffer: G.device.createBuffer({size: (size + 3) & ~3,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC | GPUBufferUsage.INDIRECT})});
    return G.buffers.length - 1;
  };
  // Every word set to word, in the frame's order: a copy from a filled buffer recorded in its encoder
  G.bufferFill = function (id, word) {
    var b = G.buffers[id];
    if (!b) return;
    var fill = G.device.createBuffer({size: b.buffer.size, usage: GPUBufferUsage.COPY_SRC, mappedAtCreation: true});
    new Uint32Array(fill.getMappedRange()).fill(word >>> 0);
    fill.unmap();
    pass_encoder().copyBufferToBuffer(fill, 0, b.buffer, 0, b.buffer.size);
    G.garbage.push(fill);
  };
  // bytes written at offset, in the frame's order, as bufferFill is
  G.bufferWrite = function (id, offset, bytes) {
    var b = G.buffers[id];
    if (!b) return;
    var size = (bytes.length + 3) & ~3;
    var src = G.device.createBuffer({size: size, usage: GPUBufferUsage.COPY_SRC, mappedAtCreation: true});
    new Uint8Array(src.getMappedRange()).set(bytes);
    src.unmap();
    pass_encoder().copyBufferToBuffer(src, 0, b.buffer, offset, size);
    G.garbage.push(src);
  };
  G.bindBuffer = function (key, id) { G.bound[key] = id; };
  G.bufferDestroy = function (id) {
    var b = G.buffers[id];
    if (b) G.garbage.push(b.buffer);
    G.buffers[id] = null;
  };
  G.uniforms_ = {};

  G.bindTexture = function (key, id) { G.bound[key] = id; };

  function pass_encoder() {
    if (!G.encoder) G.encoder = G.device.createCommandEncoder();
    return G.encoder;
  }

  G.beginFrame = function (r, gg, b) {
    if (!G.device) return;
    var e = pass_encoder();
    // the colour target holds sRGB-encoded bytes: the fog's encoded value, as the native clear gives
    function enc(c) { c = Math.min(Math.max(c, 0), 1); return c < 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055; }
    var pass = e.beginRenderPass({colorAttachments: [
      {view: G.color.createView(), loadOp: 'clear', storeOp: 'store', clearValue: {r: enc(r), g: enc(gg), b: enc(b), a: 1}},
      {view: G.depth.createView(), loadOp: 'clear', storeOp: 'store', clearValue: {r: 0, g: 0, b: 0, a: 0}}]});
    pass.end();
    G.readback = null;
  };

  // A compute pass with program p and its bind groups, for one dispatch (null without a device or program).
  function begin_dispatch(p) {
    if (!G.device || !p) return null;
    var groups = {};
    p.decl.forEach(function (d) {
      var key = d.group << 8 | d.binding, res;
      if (d.kind === 'uniform') {
        var u = G.uniforms_[key];
        if (!u) throw new Error(p.name + ': nothing bound to its uniform ' + d.name);
        res = {buffer: u.buffer};
      } else if (d.kind === 'buffer') {
        var sb = G.buffers[G.bound[key]];
        if (!sb) throw new Error(p.name + ': no buffer bound to ' + d.name);
        res = {buffer: sb.buffer};
      } else if (d.kind === 'color') res = G.color.createView();
      else if (d.kind === 'depth') res = G.depth.createView();
      else {
        var t = G.textures[G.bound[key]];
        if (!t) throw new Error(p.name + ': no texture bound to ' + d.name);
        res = t.view;
      }
      (groups[d.group] = groups[d.group] || []).push({binding: d.binding, resource: res});
    });
    var pass = pass_encoder().beginComputePass();
    pass.setPipeline(p.pipeline);
    // every group up to the last the program uses, an empty one where it uses none (layout 'auto' has them)
    var last = Math.max.apply(null, Object.keys(groups).map(Number));
    for (var gi = 0; gi <= last; gi++)
      pass.setBindGroup(gi, G.device.createBindGroup({layout: p.pipeline.getBindGroupLayout(gi), entries: groups[gi] || []}));
    return pass;
  }

  G.dispatch = function (id, x, y, z) {
    var pass = begin_dispatch(G.programs[id]);
    if (!pass) return;
    pass.dispatchWorkgroups(x, y, z);
    pass.end();
  };

  // The group counts from buffer buf at offset, as the passes before this one left them (a queue's length).
  G.dispatchIndirect = function (id, buf, offset) {
    var b = G.buffers[buf];
    if (!b) throw new Error(G.programs[id] ? G.programs[id].name + ': no buffer for its indirect dispatch' : 'no program');
    var pass = begin_dispatch(G.programs[id]);
    if (!pass) return;
    pass.dispatchWorkgroupsIndirect(b.buffer, offset);
    pass.end();
  };

  // Submits the frame and copies its colour onto the canvas.
  G.endFrame = function () {
    if (!G.device) return;
    var e = pass_encoder();
    e.copyTextureToTexture({texture: G.color}, {texture: G.context.getCurrentTexture()}, [G.width, G.height]);
    G.device.queue.submit([e.finish()]);
    G.encoder = null;
    // what the frame used and dropped is freed once the queue has run it
    var old = G.garbage;
    G.garbage = [];
    G.device.queue.onSubmittedWorkDone().then(function () { old.forEach(function (b) { b.destroy(); }); });
  };

  // Fetches the last frame's colour and depth (rows padded to 256 bytes by the copy, packed again here);
  // resolves when web_read may take them.
  G.fetch = function () {
    if (!G.device) return Promise.reject(new Error('the WebGPU device is gone'));
    if (G.error) return Promise.reject(new Error('WebGPU: ' + G.error));
    var w = G.width, h = G.height, stride = (w * 4 + 255) & ~255;
    var d = G.device, e = d.createCommandEncoder();
    var bufs = [G.color, G.depth].map(function (t) {
      var b = d.createBuffer({size: stride * h, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ});
      e.copyTextureToBuffer({texture: t}, {buffer: b, bytesPerRow: stride, rowsPerImage: h}, [w, h]);
      return b;
    });
    d.queue.submit([e.finish()]);
    // the error scope settles after the work before it: a refused pipeline is known before the pixels are used
    d.pushErrorScope('validation');
    var scope = d.popErrorScope();
    return Promise.all(bufs.map(function (b) { return b.mapAsync(GPUMapMode.READ); }).concat([scope])).then(function () {
      if (G.error) throw new Error('WebGPU: ' + G.error);
      var out = bufs.map(function (b) {
        var src = new Uint8Array(b.getMappedRange()), dst = new Uint8Array(w * h * 4);
        for (var y = 0; y < h; y++) dst.set(src.subarray(y * stride, y * stride + w * 4), y * w * 4);
        b.unmap();
        b.destroy();
        return dst;
      });
      G.readback = {rgba: out[0], depth: out[1]};
    });
  };

  return G;
})();
