#!/usr/bin/env python3
"""The web page in headless Chromium, checked against the native CPU reference.

Builds the page (web/build.py) into --page, serves it on 127.0.0.1 with python3's http.server, drives Debian's
Chromium through chromedriver (W3C WebDriver over a local port, standard library only), and for each method
reads the result the page publishes (coverage, mean colour, hit-mask checksum, the level's CRC-32) and the hit
mask, takes a screenshot of the canvas, and compares with web_reference (the same generated world and camera):
the level's CRC must agree, hit/miss may disagree on at most 0.5 % of the pixels and the mean colour by a few
levels. Then a dig must change the image and undo must bring it back, and bad input must give the page's one
message. Every server and browser it starts is stopped by its PID. A missing browser or toolchain fails.

usage: test_web.py --page DIR --reference web_reference [--out DIR] [--keep]"""
import argparse
import base64
import json
import math
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = "/usr/lib/chromium/chromium"  # Debian's package (scripts/setup.sh installs it)
CHROMEDRIVER = "chromedriver"
# Flags measured to give WebGL2 (and WebGPU) on Chromium's bundled SwiftShader headless (docs/web.md).
CHROME_ARGS = ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--enable-unsafe-swiftshader",
               "--use-angle=swiftshader", "--enable-unsafe-webgpu", "--use-vulkan=swiftshader",
               "--enable-features=Vulkan", "--window-size=800,600"]

# The scene: a generated world small enough to make in a blink, a camera over its middle looking down.
SEED, LEVEL = 1998, "512x512"
CAMERA = "256,100,150,0,-30"
SIZE = (160, 100)
METHODS = ["ray", "slice", "slice-plain", "paint", "paint-plain", "mesh", "ray-compute", "scatter", "scatter-plain",
           "voxel-compute", "mesh-compute"]
EXACT = {"ray", "slice", "ray-compute", "scatter", "voxel-compute"}  # methods that follow the reference; the others against their native twin
# the compute methods run on WebGPU from their WGSL ports (web/wgsl/): this test is what holds each port to its
# native twin (the GLSL compute shader, on Vulkan) and to the CPU reference
COMPUTE = {"ray-compute", "scatter", "scatter-plain", "voxel-compute", "mesh-compute"}
# also checked pixel by pixel against the native method shaded flat: the ports, and mesh (the same fit, bit for bit,
# in the wasm: the triangles are the native ones, so what the hit mask and the mean colour would let through, a
# chunk drawn from another's vertices or at the wrong LOD, shows as pixels off)
PIXEL_CHECKED = COMPUTE | {"mesh"}
MAX_DISAGREE = 0.005   # hit/miss disagreement, share of pixels
MAX_MEAN_DIFF = 6.0    # mean colour, levels of 255 per channel
# A WGSL port against its native twin pixel by pixel: a pass of the port that draws nothing (scatter's queued
# faces, say) can leave the hit mask and the mean colour within their bounds while what shows through its holes
# differs; the share of pixels off by more than PIXEL_LEVELS in a channel must stay under MAX_PIXEL_OUTLIERS.
PIXEL_LEVELS = 24
MAX_PIXEL_OUTLIERS = 0.01
DIG_PIXEL = (80, 60)

failures = []
passes = []


def check(ok, what):
    (passes if ok else failures).append(what)
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, what, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError("%s exited at once (status %s)" % (what, proc.returncode))
        try:
            with socket.create_connection(("127.0.0.1", port), 0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("%s did not listen on port %d within %d s" % (what, port, timeout))


class WebDriver:
    """The few W3C WebDriver calls the test needs."""

    def __init__(self, port, args=CHROME_ARGS):
        self.base = "http://127.0.0.1:%d" % port
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM, "args": args}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]
        # a CPU rasteriser on a busy machine: paint's first frame alone may take many seconds
        self.s("POST", "/timeouts", {"script": 180000, "pageLoad": 180000})

    def call(self, method, path, body=None, timeout=120):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError("webdriver %s %s: %s" % (method, path, e.read().decode()[:400]))

    def s(self, method, path, body=None, timeout=120):
        return self.call(method, "/session/%s%s" % (self.session, path), body, timeout)

    def open(self, url):
        self.s("POST", "/url", {"url": url})

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait_result(self, timeout=120, final=False):
        """The first result the page writes; with final, the first that is not the preview's."""
        end = time.time() + timeout
        while time.time() < end:
            r = self.js("var e = document.getElementById('result');"
                        "return e && e.textContent ? e.textContent : null;")
            if r and not (final and json.loads(r).get("preview")):
                return json.loads(r)
            time.sleep(0.05)
        raise RuntimeError("the page wrote no result within %d s" % timeout)

    def canvas_png(self, path, backend="webgl2"):
        el = self.s("POST", "/element", {"using": "css selector",
                                         "value": "#gpu-canvas" if backend == "webgpu" else "#canvas"})
        eid = list(el.values())[0]
        png = base64.b64decode(self.s("GET", "/element/%s/screenshot" % eid))
        with open(path, "wb") as f:
            f.write(png)

    def page_png(self, path):
        """The whole window: pickers, messages and the canvas shown."""
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.s("GET", "/screenshot")))

    def quit(self):
        try:
            self.call("DELETE", "/session/" + self.session, timeout=20)
        except Exception:
            pass


def stop(proc):
    """Stops a process this test started, by its PID (and the children of its process group)."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


def reference(tool, camera, size, dig=None):
    cmd = [tool, str(SEED), LEVEL, camera, "%dx%d" % size]
    if dig:
        cmd += ["dig", "%g,%g" % dig]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise RuntimeError("web_reference failed: " + r.stderr.strip())
    return json.loads(r.stdout)


def png_pixels(path):
    """The RGB bytes of an 8-bit RGB or RGBA PNG (the native render's image), rows top first."""
    data = open(path, "rb").read()
    pos, idat, w, h, bpp = 8, b"", 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise RuntimeError("%s: not an 8-bit RGB(A) PNG" % path)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rgb, o = bytearray(stride), bytearray(), 0
    for _ in range(h):
        f, line = raw[o], bytearray(raw[o + 1:o + 1 + stride])
        o += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if bpp == 3:
            rgb += line
        else:
            rgb += bytes(v for i, v in enumerate(line) if i % 4 != 3)
        prev = line
    return bytes(rgb)


def png_mean(path):
    """Mean RGB over every pixel of an 8-bit RGB or RGBA PNG."""
    rgb = png_pixels(path)
    n = len(rgb) // 3
    return [sum(rgb[k::3]) / n for k in range(3)]


def colour_outliers(rgba_b64, rgb):
    """The share of pixels whose colour differs from rgb's (RGB bytes, the native image) by more than
    PIXEL_LEVELS in some channel; 1 when the sizes differ."""
    rgba = base64.b64decode(rgba_b64)
    n = len(rgb) // 3
    if len(rgba) != 4 * n:
        return 1.0
    bad = sum(1 for i in range(n) if max(abs(rgba[4 * i + k] - rgb[3 * i + k]) for k in range(3)) > PIXEL_LEVELS)
    return bad / n


def native_render(cli, world, method, camera, size, out, view=None, shading=None, steps=False, extra=()):
    """The native method on the same scene (Vulkan; lavapipe here), no shadows and no water as the WebGL2 backend
    draws: its hit mask (base64, as the page's) and mean colour; with shading, that --shading (flat: the web's);
    with steps, voxel's colouring by its traversal's steps (STRATA_VOXEL_STEPS=1); extra, more options (each
    named in the files' tag)."""
    tag = method + ("-" + view if view else "") + ("-" + shading if shading else "") + ("-steps" if steps else "") + \
        "".join("-" + a.lstrip("-") for a in extra)
    png = os.path.join(out, "native-%s.png" % tag)
    pfm = os.path.join(out, "native-%s.pfm" % tag)
    where = ["--view", view] if view else ["--camera", camera]
    r = subprocess.run([cli, "render", "--world", world, "--method", method] + where + ["--size",
                        "%dx%d" % size, "--no-shadows", "--water", "none", "-o", png, "--depth", pfm] +
                       (["--shading", shading] if shading else []) + list(extra),
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, STRATA_VOXEL_STEPS="1") if steps else None)
    if r.returncode:
        raise RuntimeError("strata render --method %s failed: %s" % (method, r.stderr.strip()))
    with open(pfm, "rb") as f:
        data = f.read()
    head = data.split(b"\n", 3)
    w, h = map(int, head[1].split())
    scale = float(head[2])
    floats = struct.unpack(("<" if scale < 0 else ">") + "%df" % (w * h), head[3][:4 * w * h])
    rows = [floats[y * w:(y + 1) * w] for y in range(h)][::-1]  # PFM rows run bottom up
    mask = bytes(0 if math.isnan(v) else 1 for row in rows for v in row)
    return base64.b64encode(mask).decode(), sum(mask) / len(mask), png_mean(png)


def disagreement(mask_a, mask_b):
    a, b = base64.b64decode(mask_a), base64.b64decode(mask_b)
    if len(a) != len(b):
        return 1.0
    return sum(1 for x, y in zip(a, b) if x != y) / len(a)


def scene_url(port, method, size=SIZE, camera=CAMERA):
    return "http://127.0.0.1:%d/index.html?method=%s&size=%dx%d&camera=%s&gen=%d:%s" % (
        port, method, size[0], size[1], camera, SEED, LEVEL)


def run_checks(wd, port, tool, cli, out, only_methods=False):
    ref = reference(tool, CAMERA, SIZE)
    masks = {}
    world = os.path.join(out, "world")
    g = subprocess.run([cli, "gen", "--seed", str(SEED), "--size", LEVEL, "-o", world], capture_output=True, text=True)
    if g.returncode:
        raise RuntimeError("strata gen failed: " + g.stderr.strip())
    for method in METHODS:
        wd.open(scene_url(port, method))
        r = wd.wait_result()
        if "error" in r:
            check(False, "%s: the page says: %s" % (method, r["error"]))
            continue
        backend = "webgpu" if method in COMPUTE else "webgl2"
        wd.canvas_png(os.path.join(out, "web-%s.png" % method), r["backend"])
        mask = masks[method] = wd.js("return window.strataHitMask();")
        print("measured: %s, %s world at %dx%d: first frame (read back) %.0f ms after navigation start (the method "
              "made in %.0f ms)" % (method, LEVEL, SIZE[0], SIZE[1], r["load_to_frame_ms"], r.get("method_ms", -1)),
              flush=True)
        check(r["backend"] == backend and r["method"] == method, "%s: drawn by %s (%s)" % (
            method, r["backend"], r.get("webgpu_missing", "WebGPU present")))
        check(r["level_crc"] == ref["level_crc"],
              "%s: the generated world's CRC-32 %08x matches the native %08x" % (method, r["level_crc"], ref["level_crc"]))
        native_mask, native_cov, native_mean = native_render(cli, world, method, CAMERA, SIZE, out)
        d = disagreement(mask, native_mask)
        check(d <= MAX_DISAGREE, "%s: hit/miss disagreement with the native method %.3f %% (at most %.1f %%; "
              "coverage %.4f vs %.4f)" % (method, 100 * d, 100 * MAX_DISAGREE, r["coverage"], native_cov))
        md = max(abs(a - b) for a, b in zip(r["mean"], native_mean))
        check(md <= MAX_MEAN_DIFF, "%s: mean colour %s vs the native method's %s (differs by %.2f, at most %.1f)" % (
            method, [round(v, 1) for v in r["mean"]], [round(v, 1) for v in native_mean], md, MAX_MEAN_DIFF))
        if method in PIXEL_CHECKED:
            # the native method shaded flat, as the web shades (the page has no material set)
            native_render(cli, world, method, CAMERA, SIZE, out, shading="flat")
            outliers = colour_outliers(wd.js("return window.strataPixels();"),
                                       png_pixels(os.path.join(out, "native-%s-flat.png" % method)))
            check(outliers <= MAX_PIXEL_OUTLIERS, "%s: pixels whose colour differs from the native method's (shaded "
                  "flat) by more than %d levels: %.3f %% (at most %.1f %%)" % (
                      method, PIXEL_LEVELS, 100 * outliers, 100 * MAX_PIXEL_OUTLIERS))
        if method == "voxel-compute":
            # the pyramid itself: each pixel coloured by the steps its traversal took (cells crossed, texel columns
            # tested), which a pyramid with other bits set than the native bake's changes where the image does not
            wd.open(scene_url(port, method) + "&diagnostic=1")
            wd.wait_result()
            wd.canvas_png(os.path.join(out, "web-%s-steps.png" % method), "webgpu")
            native_render(cli, world, method, CAMERA, SIZE, out, steps=True)
            outliers = colour_outliers(wd.js("return window.strataPixels();"),
                                       png_pixels(os.path.join(out, "native-%s-steps.png" % method)))
            check(outliers <= MAX_PIXEL_OUTLIERS, "%s: pixels whose traversal steps' colour differs from the native "
                  "method's (STRATA_VOXEL_STEPS=1) by more than %d levels: %.3f %% (at most %.1f %%)" % (
                      method, PIXEL_LEVELS, 100 * outliers, 100 * MAX_PIXEL_OUTLIERS))
        d = disagreement(mask, ref["mask"])
        # the exact methods follow the CPU reference as closely; the paper's variants are scored, not gated
        if method in EXACT:
            check(d <= MAX_DISAGREE, "%s: hit/miss disagreement with the CPU reference %.3f %% (coverage %.4f vs "
                  "%.4f)" % (method, 100 * d, r["coverage"], ref["coverage"]))
        else:
            print("     %s: hit/miss disagreement with the CPU reference %.3f %% (not gated)" % (method, 100 * d))
        md = max(abs(a - b) for a, b in zip(r["mean"], ref["mean"]))
        if method in EXACT:
            check(md <= MAX_MEAN_DIFF, "%s: mean colour %s vs the reference's %s (differs by %.2f, at most %.1f)" % (
                method, [round(v, 1) for v in r["mean"]], [round(v, 1) for v in ref["mean"]], md, MAX_MEAN_DIFF))
    if only_methods:
        return masks

    # the world made in two bands, the second by the page's worker (web/gen_worker.js): the same bytes and image
    wd.open(scene_url(port, "ray") + "&workers=1")
    r = wd.wait_result()
    check(r.get("gen_workers") == 1 and r.get("level_crc") == ref["level_crc"] and
          ("ray" not in masks or wd.js("return window.strataHitMask();") == masks["ray"]),
          "world made with the worker: CRC-32 %08x (native %08x), the same image (workers %s)" % (
              r.get("level_crc", 0), ref["level_crc"], r.get("gen_workers")))

    # a worker that starts late (its first chunk held back 1.5 s): the page makes the chunks the worker has not
    # taken, rather than waiting for it, and the bytes are the same
    wd.open(scene_url(port, "ray") + "&workers=1&worker_delay=1500")
    r = wd.wait_result()
    share = r.get("timing", {}).get("worker_share", -1)
    check(r.get("gen_workers") == 1 and r.get("level_crc") == ref["level_crc"] and 0 <= share < 0.5,
          "a late worker: the page made %.0f %% of the rows itself, CRC-32 %08x (native %08x)" % (
              100 * (1 - share), r.get("level_crc", 0), ref["level_crc"]))

    # the method picker: switching in the page gives what a fresh page of that method gives
    wd.open(scene_url(port, "ray"))
    wd.wait_result()
    switched = wd.js("var m = document.getElementById('method');"
                     "m.selectedIndex = Array.prototype.map.call(m.options, function (o) { return o.textContent; })"
                     ".indexOf('paint'); m.dispatchEvent(new Event('change')); return window.strataRedraw();")
    if "paint" in masks:
        check(switched["method"] == "paint" and wd.js("return window.strataHitMask();") == masks["paint"],
              "method picker: ray then paint in one page draws paint's image")
        back = wd.js("var m = document.getElementById('method'); m.selectedIndex = 0;"
                     "m.dispatchEvent(new Event('change')); return window.strataRedraw();")
        check(back["method"] == "ray" and wd.js("return window.strataHitMask();") == masks["ray"],
              "method picker: back to ray in the same page draws ray's image")

    # a dig changes the image the way the reference's dig does, and undo brings it back: on WebGL2 (ray) and on
    # WebGPU (ray-compute, whose copy of the level the edit must reach too)
    ref_dug = reference(tool, CAMERA, SIZE, dig=(DIG_PIXEL[0] + 0.5, DIG_PIXEL[1] + 0.5))
    for method in ("ray", "ray-compute"):
        tag = "" if method == "ray" else "-" + method
        wd.open(scene_url(port, method))
        before = wd.wait_result()
        if "error" in before:
            check(False, "dig (%s): the page says: %s" % (method, before["error"]))
            continue
        wd.canvas_png(os.path.join(out, "web-dig-before%s.png" % tag), before["backend"])
        # the pixel's centre, as web_reference picks it
        dug = wd.js("return window.strataDig(arguments[0], arguments[1], false);", DIG_PIXEL[0] + 0.5,
                    DIG_PIXEL[1] + 0.5)
        wd.canvas_png(os.path.join(out, "web-dig-after%s.png" % tag), before["backend"])
        after = dug["result"]
        check(dug["rc"] == 0 and after["level_crc"] != before["level_crc"], "dig (%s): the level changed (rc %s)" % (
            method, dug["rc"]))
        check(after["mask_crc"] != before["mask_crc"] or after["mean"] != before["mean"],
              "dig (%s): the image changed" % method)
        check(after["level_crc"] == ref_dug["level_crc"], "dig (%s): the level matches the native dig's CRC-32" % method)
        mask = wd.js("return window.strataHitMask();")
        d = disagreement(mask, ref_dug["mask"])
        check(d <= MAX_DISAGREE, "dig (%s): hit/miss disagreement with the native dug reference %.3f %%" % (
            method, 100 * d))
        undone = wd.js("return window.strataUndo();")["result"]
        check(undone["level_crc"] == before["level_crc"] and undone["mask_crc"] == before["mask_crc"],
              "undo (%s): the level and the image are back" % method)

    # mesh and mesh-compute: a dig refits the chunks it touches and rewrites only their slots (of the vertex texture
    # and the index buffer on WebGL2, of the storage buffers on WebGPU; a chunk that outgrew its slot moves to the
    # shared tail; the second dig in the same crater fills the index tail, and every chunk is laid out again); the
    # page's method_info says how many chunks the dig refit and rewrote, of how many. The frame after the two must
    # be, byte for byte, what the mesh fitted afresh on the dug level draws (the method made again by the picker:
    # ray, then the mesh method), and undoing each dig must bring back the frame before it, byte for byte
    # (mesh-compute's frames take seconds each in SwiftShader, most of them in its rasterising passes' pixel loops:
    # its edits are checked at half the size, the same camera and the same dig, the pixel's centre scaled)
    for method in ("mesh", "mesh-compute"):
        if method not in masks:
            continue
        half = method == "mesh-compute"
        size = (SIZE[0] // 2, SIZE[1] // 2) if half else SIZE
        at = [(DIG_PIXEL[a] + 0.5) * size[a] / SIZE[a] for a in range(2)]
        wd.open(scene_url(port, method, size=size))
        t0 = time.time()
        before = wd.wait_result()
        frames = [wd.js("return window.strataPixels();")]
        for k in range(2):
            t1 = time.time()
            dug = wd.js("return window.strataDig(arguments[0], arguments[1], false);", at[0], at[1])
            frames.append(wd.js("return window.strataPixels();"))
            info = dug["result"].get("method_info", {})
            print("measured: dig %d (%s): refit %s of %s chunks, rewrote %s, laid out %s times; the edit and its "
                  "frame %.0f ms" % (k + 1, method, info.get("refit"), info.get("chunks"), info.get("rewritten"),
                                     info.get("layouts"), 1000 * (time.time() - t1)), flush=True)
            if k == 0:
                check(dug["rc"] == 0 and dug["result"]["level_crc"] == ref_dug["level_crc"] and frames[1] != frames[0],
                      "dig (%s): the level matches the native dig's CRC-32 and the image changed (rc %s)" % (
                          method, dug["rc"]))
                check(0 < info.get("rewritten", 0) <= info.get("refit", 0) < info.get("chunks", 0) and
                      info.get("layouts") == 1, "dig (%s): only the touched chunks refit (%s of %s) and rewritten "
                      "(%s), nothing laid out again" % (method, info.get("refit"), info.get("chunks"),
                                                        info.get("rewritten")))
            else:
                wd.canvas_png(os.path.join(out, "web-dig-after-%s.png" % method), before["backend"])
                check(dug["rc"] == 0 and frames[2] != frames[1], "dig (%s): a second dig there changed the image "
                      "again (rc %s)" % (method, dug["rc"]))
        fresh = wd.js("var m = document.getElementById('method'), i = m.selectedIndex;"
                      "m.selectedIndex = 0; m.dispatchEvent(new Event('change'));"
                      "m.selectedIndex = i; m.dispatchEvent(new Event('change')); return window.strataRedraw();")
        check(fresh.get("method") == method and wd.js("return window.strataPixels();") == frames[2],
              "dig (%s): the refitted mesh draws the frame of a mesh fitted afresh on the dug level, byte for byte"
              % method)
        # (mesh-compute's frames take seconds in SwiftShader: its two undos are drawn once, after both)
        for k in (1, 0) if method == "mesh" else (0,):
            undone = wd.js(("" if k or method == "mesh" else "call('web_undo', 'number', [], []);") +
                           "return window.strataUndo();")["result"]
            check(wd.js("return window.strataPixels();") == frames[k] and
                  (k or undone["level_crc"] == before["level_crc"]),
                  "undo (%s): the frame before dig %d is back, byte for byte%s" % (
                      method, k + 1, "" if k else ", and the level"))
        print("measured: %s's edit checks %.0f ms" % (method, 1000 * (time.time() - t0)), flush=True)
        if method == "mesh":
            # the page's mesh q picker: q 0.75 is a new fit, whose frame is the native mesh's at --mesh-quality 0.75
            r = wd.js("var q = document.getElementById('quality'); q.value = '75';"
                      "q.dispatchEvent(new Event('change')); return window.strataRedraw();")
            wd.canvas_png(os.path.join(out, "web-mesh-q75.png"))
            extra = ("--mesh-quality", "0.75")
            native_mask, _, native_mean = native_render(cli, world, method, CAMERA, size, out, shading="flat",
                                                        extra=extra)
            d = disagreement(wd.js("return window.strataHitMask();"), native_mask)
            outliers = colour_outliers(wd.js("return window.strataPixels();"), png_pixels(os.path.join(
                out, "native-mesh-flat-mesh-quality-0.75.png")))
            check(r.get("method") == "mesh" and wd.js("return window.strataPixels();") != frames[0] and
                  d <= MAX_DISAGREE and outliers <= MAX_PIXEL_OUTLIERS,
                  "mesh q 0.75 from the page's picker: a new image, against the native mesh at --mesh-quality 0.75 "
                  "(flat) hit/miss disagreement %.3f %%, %.3f %% of the pixels off by more than %d levels" % (
                      100 * d, 100 * outliers, PIXEL_LEVELS))
        else:
            # the page's wireframe box: mesh-compute's resolve draws the visible triangles' edges, as the native
            # mesh-compute's --wireframe (the viewer's X)
            r = wd.js("var w = document.getElementById('wireframe'); w.checked = true;"
                      "w.dispatchEvent(new Event('change')); return window.strataRedraw();")
            wd.canvas_png(os.path.join(out, "web-mesh-compute-wireframe.png"), before["backend"])
            native_render(cli, world, method, CAMERA, size, out, shading="flat", extra=("--wireframe",))
            outliers = colour_outliers(wd.js("return window.strataPixels();"), png_pixels(os.path.join(
                out, "native-mesh-compute-flat-wireframe.png")))
            check(r.get("method") == method and wd.js("return window.strataPixels();") != frames[0] and
                  outliers <= MAX_PIXEL_OUTLIERS,
                  "mesh-compute's wireframe from the page's box: a new image, %.3f %% of the pixels off the native "
                  "--wireframe's (flat) by more than %d levels" % (100 * outliers, PIXEL_LEVELS))

    # voxel-compute: an edit rebakes the pyramid's tiles it touched (and their ancestors) before the next frame, so
    # the frame after it is, byte for byte, that of a pyramid baked afresh on the edited level (the method made again
    # by the picker: ray, then voxel-compute). A raise is what a pyramid left as it was would miss: the new ground
    # lies in voxels that were empty, which the traversal skips (a dig only empties voxels, which it walks through).
    # Each undo brings back the frame before the edit, byte for byte; the dig also matches the native dig.
    if "voxel-compute" in masks:
        def remade():
            return wd.js("var m = document.getElementById('method'), i = m.selectedIndex;"
                         "m.selectedIndex = 0; m.dispatchEvent(new Event('change'));"
                         "m.selectedIndex = i; m.dispatchEvent(new Event('change')); return window.strataRedraw();")
        wd.open(scene_url(port, "voxel-compute"))
        before = wd.wait_result()
        frame0 = wd.js("return window.strataPixels();")
        for raise_, what in ((True, "raise"), (False, "dig")):
            dug = wd.js("return window.strataDig(arguments[0], arguments[1], arguments[2]);", DIG_PIXEL[0] + 0.5,
                        DIG_PIXEL[1] + 0.5, raise_)
            frame = wd.js("return window.strataPixels();")
            check(dug["rc"] == 0 and dug["result"]["level_crc"] != before["level_crc"] and frame != frame0,
                  "%s (voxel-compute): the level and the image changed (rc %s)" % (what, dug["rc"]))
            if not raise_:
                wd.canvas_png(os.path.join(out, "web-dig-after-voxel-compute.png"), before["backend"])
                d = disagreement(wd.js("return window.strataHitMask();"), ref_dug["mask"])
                check(dug["result"]["level_crc"] == ref_dug["level_crc"] and d <= MAX_DISAGREE,
                      "dig (voxel-compute): the level matches the native dig's CRC-32, hit/miss disagreement with the "
                      "native dug reference %.3f %%" % (100 * d))
            fresh = remade()
            check(fresh.get("method") == "voxel-compute" and wd.js("return window.strataPixels();") == frame,
                  "%s (voxel-compute): the rebaked pyramid draws the frame of a pyramid baked afresh on the edited "
                  "level, byte for byte" % what)
            undone = wd.js("return window.strataUndo();")["result"]
            check(wd.js("return window.strataPixels();") == frame0 and undone["level_crc"] == before["level_crc"],
                  "undo (voxel-compute, %s): the level and the frame before it are back, byte for byte" % what)

    # the method picker across backends: ray-compute (WebGPU) in a page opened on ray (WebGL2), and back
    if "ray-compute" in masks:
        wd.open(scene_url(port, "ray"))
        wd.wait_result()
        switched = wd.js("var m = document.getElementById('method');"
                         "m.selectedIndex = Array.prototype.map.call(m.options, function (o) { return o.textContent; })"
                         ".indexOf('ray-compute'); m.dispatchEvent(new Event('change')); return window.strataRedraw();")
        shown = wd.js("return document.getElementById('gpu-canvas').style.display + ' ' +"
                      "document.getElementById('canvas').style.display;")
        wd.page_png(os.path.join(out, "page-ray-compute.png"))
        check(switched.get("backend") == "webgpu" and wd.js("return window.strataHitMask();") == masks["ray-compute"]
              and shown == "block none", "method picker: ray then ray-compute in one page draws ray-compute's "
              "image on WebGPU (canvases %r)" % shown)

    # a lost WebGPU device: the page says so
    wd.open(scene_url(port, "ray-compute"))
    wd.wait_result()
    wd.js("strataGpu.device.destroy();")
    msg = ""
    end = time.time() + 10
    while time.time() < end and not msg:
        msg = wd.js("var m = document.getElementById('message');"
                    "return m.style.display === 'block' ? m.textContent : '';")
        time.sleep(0.05)
    check("lost the WebGPU device" in msg, "lost WebGPU device: the page says %r" % msg)

    # bad input: one clear message in the page
    wd.open(scene_url(port, "ray"))
    wd.wait_result()
    bad = os.path.join(out, "not-a-world.png")
    with open(bad, "wb") as f:
        f.write(b"this is not a PNG and not a world\n")
    el = wd.s("POST", "/element", {"using": "css selector", "value": "#files"})
    eid = list(el.values())[0]
    wd.s("POST", "/element/%s/value" % eid, {"text": bad})
    msg = ""
    end = time.time() + 10
    while time.time() < end and not msg:
        msg = wd.js("var m = document.getElementById('message');"
                    "return m.style.display === 'block' ? m.textContent : '';")
        time.sleep(0.05)
    check("not a world" in msg, "bad file: the page says %r" % msg)

    # a dropped world (the native generator's files) and a dropped DEM PNG (16-bit, shipped in data/dem/)
    def drop(paths):
        el = wd.s("POST", "/element", {"using": "css selector", "value": "#files"})
        wd.js("window.strataResult = null; document.getElementById('result').textContent = '';"
              "document.getElementById('message').style.display = 'none';"
              "document.getElementById('files').value = '';")  # sent files add to those already there
        wd.s("POST", "/element/%s/value" % list(el.values())[0], {"text": "\n".join(paths)})
        end = time.time() + 120
        while time.time() < end:
            got = wd.js("var m = document.getElementById('message');"
                        "if (m.style.display === 'block') return {error: m.textContent};"
                        "return window.strataResult;")
            if got:
                return got
            time.sleep(0.1)
        return {"error": "nothing happened within 120 s"}

    wd.open(scene_url(port, "ray"))
    wd.wait_result()
    got = drop([os.path.join(world, f) for f in sorted(os.listdir(world))])
    check(got.get("level_crc") == ref["level_crc"], "dropped world: loaded with the native CRC-32 (%s)" % (
        got.get("error") or "%08x" % got.get("level_crc", 0)))
    big = os.path.join(out, "big-world")
    os.makedirs(big, exist_ok=True)
    with open(os.path.join(world, "world.ini")) as f:
        text = f.read().replace("Map Power X = 9", "Map Power X = 12").replace("Map Power Y = 9", "Map Power Y = 14")
    with open(os.path.join(big, "world.ini"), "w") as f:
        f.write(text)
    for name in ("output.vmc", "harmony.pal"):
        with open(os.path.join(world, name), "rb") as src, open(os.path.join(big, name), "wb") as dst:
            dst.write(src.read())
    got = drop([os.path.join(big, f) for f in sorted(os.listdir(big))])
    check("too large for the browser" in got.get("error", ""), "a 4096x16384 world: the page says %r" % got.get("error"))
    got = drop([os.path.join(ROOT, "data/dem/ps_height_1k.png")])
    ok = "error" not in got and got.get("coverage", 0) > 0.05
    if ok:
        wd.canvas_png(os.path.join(out, "web-dem-png.png"))
    check(ok, "dropped DEM PNG (data/dem/ps_height_1k.png): drawn (%s)" % (
        got.get("error") or "coverage %.3f" % got["coverage"]))

    # a lost context: the page says so
    wd.js("document.getElementById('canvas').getContext('webgl2').getExtension('WEBGL_lose_context').loseContext();")
    msg = ""
    end = time.time() + 10
    while time.time() < end and not msg:
        msg = wd.js("var m = document.getElementById('message');"
                    "return m.style.display === 'block' ? m.textContent : '';")
        time.sleep(0.05)
    check("lost the WebGL2 context" in msg, "lost context: the page says %r" % msg)

    # the default world (2048x16384) generated in the page: time to the first frame at 320x200, which is the
    # preview (the rows in sight made first, finished with the build's threshold), then the whole world's frame
    wd.open("http://127.0.0.1:%d/index.html?method=ray&size=320x200" % port)
    p = wd.wait_result(timeout=180)
    r = wd.wait_result(timeout=180, final=True) if "error" not in p else p
    if "error" in r:
        check(False, "default world: the page says: " + r["error"])
    else:
        t = r.get("timing", {})
        print("measured: default world at 320x200: the preview's frame (read back) %.0f ms after navigation start "
              "(wasm ready %.0f, the rows in sight %.0f texels made and uploaded in %.0f, drawn in %.0f), the whole "
              "world's %.0f ms; load average %.1f" % (
                  p.get("load_to_frame_ms", -1), t.get("runtime_ms", -1), t.get("preview_texels", -1),
                  t.get("preview_region_ms", -1), t.get("preview_draw_ms", -1), r["load_to_frame_ms"],
                  os.getloadavg()[0]), flush=True)
        check(p.get("preview") is True and r.get("preview_exact") == 1,
              "default world: the preview's texels are the finished world's (preview_exact %s)" % r.get("preview_exact"))
        check(p.get("mask_crc") == r["mask_crc"] and p.get("mean") == r["mean"],
              "default world: the preview's frame is the whole world's frame (hit mask %s / %s, mean %s / %s)" % (
                  p.get("mask_crc"), r["mask_crc"], p.get("mean"), r["mean"]))
        wd.canvas_png(os.path.join(out, "web-default-ray.png"))
        print("measured: default world 2048x16384 at 320x200: first frame (read back) %.0f ms after navigation "
              "start, %.0f ms after the script started; of it the generator %.0f ms (%d worker), upload and "
              "method %.0f ms" % (r["load_to_frame_ms"], r["first_frame_ms"], r["gen_ms"], r.get("gen_workers", 0),
                                  r["upload_ms"]), flush=True)
        t = r.get("timing", {})
        print("measured: its pieces (ms, load average %.1f): %s" % (os.getloadavg()[0], ", ".join(
            "%s %s" % (k, ("%.2f" if k == "worker_share" else "%.0f") % v) for k, v in sorted(t.items()))), flush=True)
        check(r["coverage"] > 0.05, "default world: something is drawn (coverage %.3f)" % r["coverage"])
        # a view in the second piece of the level texture (rows 8192 and up) against the native method
        r = wd.js("return window.strataView('ledge', '%dx%d');" % SIZE)
        wd.canvas_png(os.path.join(out, "web-default-ledge.png"))
        mask = wd.js("return window.strataHitMask();")
        native_mask, native_cov, native_mean = native_render(cli, "default", "ray", None, SIZE, out, view="ledge")
        d = disagreement(mask, native_mask)
        md = max(abs(a - b) for a, b in zip(r["mean"], native_mean))
        check(d <= MAX_DISAGREE and md <= MAX_MEAN_DIFF,
              "default world, view ledge (y 12670, the texture's second piece): hit/miss disagreement with the "
              "native ray %.3f %%, mean colour differs by %.2f" % (100 * d, md))
        # the same view on WebGPU (the level's second piece there too), against the web ray just checked
        wd.js("var m = document.getElementById('method');"
              "m.selectedIndex = Array.prototype.map.call(m.options, function (o) { return o.textContent; })"
              ".indexOf('ray-compute'); m.dispatchEvent(new Event('change'));")
        rc = wd.js("return window.strataView('ledge', '%dx%d');" % SIZE)
        wd.canvas_png(os.path.join(out, "web-default-ledge-ray-compute.png"), rc.get("backend"))
        d = disagreement(wd.js("return window.strataHitMask();"), mask)
        md = max(abs(a - b) for a, b in zip(rc["mean"], r["mean"]))
        check(rc.get("backend") == "webgpu" and d <= MAX_DISAGREE and md <= MAX_MEAN_DIFF,
              "default world, view ledge on WebGPU (ray-compute): hit/miss disagreement with ray %.3f %%, mean "
              "colour differs by %.2f" % (100 * d, md))
        # voxel-compute there: the whole world's pyramid baked on WebGPU (its texture's two pieces read), timed
        t0 = time.time()
        wd.js("var m = document.getElementById('method');"
              "m.selectedIndex = Array.prototype.map.call(m.options, function (o) { return o.textContent; })"
              ".indexOf('voxel-compute'); m.dispatchEvent(new Event('change'));")
        vc = wd.js("return window.strataView('ledge', '%dx%d');" % SIZE)
        first = time.time() - t0
        t0 = time.time()
        wd.js("return window.strataRedraw();")
        print("measured: default world, voxel-compute at %dx%d: the method made, the pyramid baked and the view drawn "
              "and read back in %.0f ms (made in %.0f ms), a redraw %.0f ms; load average %.1f" % (
                  SIZE[0], SIZE[1], 1000 * first, vc.get("method_ms", -1), 1000 * (time.time() - t0),
                  os.getloadavg()[0]), flush=True)
        wd.canvas_png(os.path.join(out, "web-default-ledge-voxel-compute.png"), vc.get("backend"))
        # against the native voxel-compute shaded flat (its exact column walk and ray's uniform steps differ in 8.6 %
        # of this view's pixels natively, so ray is no yardstick here)
        native_mask, native_cov, native_mean = native_render(cli, "default", "voxel-compute", None, SIZE, out,
                                                             view="ledge", shading="flat")
        d = disagreement(wd.js("return window.strataHitMask();"), native_mask)
        md = max(abs(a - b) for a, b in zip(vc["mean"], native_mean))
        outliers = colour_outliers(wd.js("return window.strataPixels();"),
                                   png_pixels(os.path.join(out, "native-voxel-compute-ledge-flat.png")))
        check(vc.get("backend") == "webgpu" and d <= MAX_DISAGREE and md <= MAX_MEAN_DIFF and
              outliers <= MAX_PIXEL_OUTLIERS,
              "default world, view ledge on WebGPU (voxel-compute) against the native voxel-compute shaded flat: "
              "hit/miss disagreement %.3f %%, mean colour differs by %.2f, %.3f %% of the pixels off by more than "
              "%d levels" % (100 * d, md, 100 * outliers, PIXEL_LEVELS))
    return masks


def check_no_webgpu(dport, port, masks, out):
    """A browser that offers no WebGPU adapter (Chromium without --enable-unsafe-webgpu): the page says so, leaves
    the compute methods out and draws a compute method asked for by its WebGL2 twin."""
    wd = WebDriver(dport, [a for a in CHROME_ARGS if a != "--enable-unsafe-webgpu"])
    try:
        wd.open(scene_url(port, "ray-compute"))
        r = wd.wait_result()
        notice = wd.js("return document.getElementById('notice').textContent;")
        disabled = wd.js("var o = Array.prototype.filter.call(document.getElementById('method').options,"
                         "function (o) { return o.disabled; }); return o.map(function (o) { return o.textContent; });")
        check("error" not in r and r.get("backend") == "webgl2" and r.get("method") == "ray" and
              "WebGPU is not available" in notice and sorted(disabled) == sorted(COMPUTE) and
              ("ray" not in masks or wd.js("return window.strataHitMask();") == masks["ray"]),
              "no WebGPU adapter: ray-compute falls back to ray on WebGL2 (result %s, %s; disabled %s); the page "
              "says %r" % (r.get("backend"), r.get("method"), disabled, notice))
        if "error" not in r:
            wd.canvas_png(os.path.join(out, "web-no-webgpu.png"))
            wd.page_png(os.path.join(out, "page-no-webgpu.png"))
    finally:
        wd.quit()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--page", required=True, help="folder to build the page into (web/build.py --out)")
    ap.add_argument("--reference", required=True, help="the web_reference tool")
    ap.add_argument("--cli", required=True, help="the native strata CLI (its GPU methods on the same scenes)")
    ap.add_argument("--out", default=None, help="screenshots and results go here")
    ap.add_argument("--methods", default=None,
                    help="comma-separated: only these methods' checks against their twins and the reference, and "
                         "nothing else (for work on one port; the ctest runs everything)")
    a = ap.parse_args()
    if a.methods:
        METHODS[:] = [m for m in a.methods.split(",") if m]
    t0 = time.time()
    out = a.out or tempfile.mkdtemp(prefix="strata-web-")
    os.makedirs(out, exist_ok=True)
    for tool in (CHROMIUM,):
        if not os.access(tool, os.X_OK):
            print("FAIL %s is missing: install Debian's chromium and chromium-driver (scripts/setup.sh)" % tool)
            return 1
    b = subprocess.run([sys.executable, os.path.join(ROOT, "web/build.py"), "--out", a.page],
                       capture_output=True, text=True)
    if b.returncode:
        print("FAIL building the page: " + (b.stderr.strip() or b.stdout.strip()))
        return 1
    print("built the page in %.1f s" % (time.time() - t0), flush=True)
    server = driver = wd = None
    try:
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port),
                                   "--directory", a.page], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        wait_port(port, server, "http.server")
        dport = free_port()
        try:
            driver = subprocess.Popen([CHROMEDRIVER, "--port=%d" % dport], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, start_new_session=True)
        except FileNotFoundError:
            print("FAIL chromedriver is missing: install Debian's chromium-driver (scripts/setup.sh)")
            return 1
        wait_port(dport, driver, "chromedriver")
        wd = WebDriver(dport)
        masks = run_checks(wd, port, a.reference, a.cli, out, only_methods=bool(a.methods))
        wd.quit()
        wd = None
        if not a.methods:
            check_no_webgpu(dport, port, masks, out)
    except Exception as e:  # any failure of the harness is a failure of the test, with its reason
        check(False, "the web test stopped: %s" % e)
    finally:
        if wd:
            wd.quit()
        stop(driver)  # chromedriver's session end closes the browser; its group goes with it
        stop(server)
    print("screenshots in %s; %.1f s" % (out, time.time() - t0))
    print("%d passed, %d failed" % (len(passes), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
