#!/usr/bin/env python3
"""Builds the web page into build-web/: the shaders of the native build translated to GLSL ES 3.00
(glslangValidator -> SPIR-V -> spirv-cross, with their bindings from spirv-cross's reflection), the C core
and the web backend compiled by Debian's emscripten (no ports, no downloads), and the page's own files.

usage: web/build.py [--out build-web] [--jobs N]"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The shaders the web backend runs: the native ones by file name (shaders/...), and the web's own display
# passes (web/shaders/). Each is compiled with ST_TERRAIN_PIECES (globals.glsl says why), ST_NO_MATERIALS (no
# textured shading: the page binds no materials) and
# ST_NO_STORAGE_BUFFERS (lists as textures: paint.vert, mesh.vert) and ST_NO_INSTANCING (instances as runs of vertices:
# paint.vert; SwiftShader makes each instance a draw of its own).
SHADERS = [
    "shaders/fullscreen.vert",
    "shaders/methods/ray.frag",
    "shaders/methods/slice.vert",
    "shaders/methods/slice.frag",
    "shaders/methods/slice_plain.frag",
    "shaders/methods/paint.vert",
    "shaders/methods/paint.frag",
    "shaders/methods/mesh.vert",
    "shaders/methods/mesh.frag",
    "web/shaders/present.frag",
    "web/shaders/depth_copy.frag",
]

# The WGSL ports of the compute shaders (web/wgsl/; no GLSL to WGSL translator is available here): each native
# compute shader the web runs and its port, whose "//! requires" line names the files put in front of it.
WGSL = [
    ("ray.comp", "ray_compute.wgsl"),
    ("scatter.comp", "scatter_compute.wgsl"),
    ("scatter_tiles.comp", "scatter_tiles.wgsl"),
    ("scatter_plain.comp", "scatter_plain.wgsl"),
    ("scatter_resolve.comp", "scatter_resolve.wgsl"),
    ("voxel.comp", "voxel_compute.wgsl"),
    ("voxel_bake.comp", "voxel_bake.wgsl"),
    ("voxel_mip.comp", "voxel_mip.wgsl"),
    ("mesh_raster.comp", "mesh_raster.wgsl"),
    ("mesh_big.comp", "mesh_big.wgsl"),
    ("mesh_resolve.comp", "mesh_resolve.wgsl"),
]

# The C core the page runs (the same files as the native library), then the web's own.
CORE = [
    "src/core/camera.c", "src/core/crc.c", "src/core/error.c", "src/core/file.c", "src/core/jobs.c",
    "src/core/log.c", "src/core/timer.c",
    "src/terrain/edit.c", "src/terrain/gen.c", "src/terrain/gen_region.c", "src/terrain/gen_slabs.c",
    "src/terrain/gen_world.c", "src/terrain/level.c", "src/terrain/control.c",
    "src/io/heightmap_level.c", "src/io/vmc.c", "src/io/vmp.c", "src/io/vpr.c", "src/io/pal.c", "src/io/world_ini.c", "src/io/world.c",
    "src/view/pick.c", "src/view/history.c", "src/view/controls.c",
    "src/render/globals.c", "src/render/scatter_levels.c", "src/render/methods/voxel_layout.c",
    "src/mesh/tin.c", "src/mesh/chunks.c", "src/mesh/predicates.c", "src/mesh/draws.c", "src/mesh/slots.c",
]
WEB = ["web/backend_gl.c", "web/backend_gpu.c", "web/methods/ray.c", "web/methods/scatter.c", "web/methods/slice.c", "web/methods/paint.c", "web/methods/mesh.c", "web/methods/mesh_fit.c", "web/methods/mesh_compute.c", "web/methods/voxel.c", "web/app.c", "web/dem_png.c", "web/gen_bands.c"]
PAGE = ["web/index.html", "web/app.js", "web/gpu.js", "web/gen_worker.js", "data/default_world.json"]

EXPORTS = [
    "_main", "_malloc", "_free",
    "_web_init", "_web_load_default", "_web_load_gen", "_web_load_world", "_web_load_png", "_web_set_method",
    "_web_set_size", "_web_set_camera", "_web_render", "_web_read", "_web_result_ptr", "_web_pixels_ptr",
    "_web_dig", "_web_undo", "_web_error", "_web_level_crc", "_web_level_width", "_web_level_height",
    "_web_method_count", "_web_method_name", "_web_default_camera", "_web_control", "_web_set_view",
    "_web_gen_begin", "_web_gen_finish", "_web_gen_rows", "_web_gen_plane", "_web_gen_width", "_web_gen_height",
    "_web_band_make", "_web_band_plane", "_web_band_free", "_web_band_error",
    "_web_preview_begin", "_web_preview_region", "_web_preview_exact", "_web_preview_texels",
    "_web_init_gpu", "_web_method_compute", "_web_backend", "_web_set_diagnostic", "_web_set_wireframe",
]


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.stderr.write("web build: %s failed:\n%s%s" % (cmd[0], r.stdout, r.stderr))
        sys.exit(1)
    return r.stdout


def newer(target, deps):
    if not os.path.exists(target):
        return True
    t = os.path.getmtime(target)
    return any(os.path.getmtime(d) > t for d in deps)


def c_string(text):
    out = []
    for line in text.splitlines():
        out.append('"' + line.replace("\\", "\\\\").replace('"', '\\"') + '\\n"')
    return "\n".join(out)


def wgsl_expand(port):
    """A WGSL port's text with the files its "//! requires" line names put in front, in that order."""
    folder = os.path.join(ROOT, "web/wgsl")
    text = open(os.path.join(folder, port)).read()
    parts = []
    for line in text.splitlines():
        if line.startswith("//! requires"):
            for dep in line.split()[2:]:
                parts.append("// ---- %s\n" % dep + open(os.path.join(folder, dep)).read())
    return "".join(parts) + "// ---- %s\n" % port + text


def translate_shaders(gen):
    """Every shader to GLSL ES 3.00 plus a table of its uniform blocks and samplers by (set, binding)."""
    includes = [os.path.join(ROOT, "shaders/common", f) for f in os.listdir(os.path.join(ROOT, "shaders/common"))]
    entries, bodies = [], []
    for i, src in enumerate(SHADERS):
        name = os.path.basename(src)
        path = os.path.join(ROOT, src)
        spv = os.path.join(gen, name + ".spv")
        es = os.path.join(gen, name + ".es")
        refl = os.path.join(gen, name + ".json")
        if newer(es, [path, __file__] + includes):
            run(["glslangValidator", "-V", "--target-env", "vulkan1.3", "-DST_TERRAIN_PIECES", "-DST_NO_STORAGE_BUFFERS", "-DST_NO_MATERIALS",
                 "-DST_NO_INSTANCING",
                 "-I" + os.path.join(ROOT, "shaders/common"), path, "-o", spv])
            run(["spirv-cross", spv, "--es", "--version", "300", "--glsl-emit-push-constant-as-ubo",
                 "--fixup-clipspace", "--remove-unused-variables", "--output", es])
            run(["spirv-cross", spv, "--reflect", "--output", refl])
        text = open(es).read()
        # Fragment shaders get highp floats throughout, as the native build computes them.
        text = text.replace("precision mediump float;", "precision highp float;")
        meta = json.load(open(refl))
        binds = []
        for ubo in meta.get("ubos", []):
            binds.append((ubo["name"], ubo.get("set", 0), ubo["binding"], 0))
        for pc in meta.get("push_constants", []):
            binds.append((meta["types"][pc["type"]]["name"], 15, 0, 0))  # the seam's push-constant slot (ST_GB_PUSH_SET)
        for tex in meta.get("textures", []):
            binds.append((tex["name"], tex.get("set", 0), tex["binding"], 1))
        if meta.get("ssbos"):
            sys.stderr.write("web build: %s uses storage buffers, which WebGL2 has not\n" % src)
            sys.exit(1)
        bodies.append("static const char shader_%d[] =\n%s;\n" % (i, c_string(text)))
        bodies.append("static const st_web_binding binds_%d[] = {%s{NULL, 0, 0, 0}};\n" % (
            i, "".join('{"%s", %d, %d, %d}, ' % b for b in binds)))
        entries.append('    {"%s", shader_%d, binds_%d},\n' % (name, i, i))
    wgsl_entries = []
    for i, (native, port) in enumerate(WGSL):
        text = wgsl_expand(port)
        bodies.append("static const char wgsl_%d[] =\n%s;\n" % (i, c_string(text)))
        wgsl_entries.append('    {"%s", "%s", wgsl_%d},\n' % (native, port, i))
    out = os.path.join(gen, "shaders_es.c")
    with open(out + ".tmp", "w") as f:
        f.write("/* Generated by web/build.py from the shaders' GLSL sources: GLSL ES 3.00 and bindings. */\n")
        f.write('#include <stddef.h>\n#include "web_shaders.h"\n\n')
        f.write("".join(bodies))
        f.write("const st_web_shader st_web_shaders[] = {\n%s    {NULL, NULL, NULL}};\n" % "".join(entries))
        f.write("const st_web_wgsl st_web_wgsl_ports[] = {\n%s    {NULL, NULL, NULL}};\n" % "".join(wgsl_entries))
    os.replace(out + ".tmp", out)
    return out


STB_CFLAGS = []


def compile_c(src, obj, gen):
    # the native build's flags (CMakeLists.txt)
    cmd = ["emcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Wshadow", "-Wno-unused-parameter", "-Werror",
           "-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE",
           "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "src"), "-I" + os.path.join(ROOT, "web"),
           "-I" + gen] + STB_CFLAGS + ["-c", src, "-o", obj]
    run(cmd)


# The C core the threshold tool needs (the generator and what it calls).
THRESHOLD_CORE = [c for c in CORE if c.startswith(("src/core/", "src/terrain/"))]


def default_threshold(out, objdir, gen, headers):
    """default_threshold.json: the default world's dual threshold, made by the page's own generator code under
    node (web/gen_threshold.c), so that the page can finish the rows in sight before the rest of the world."""
    src = os.path.join(ROOT, "web/gen_threshold.c")
    obj = os.path.join(objdir, "web_gen_threshold.o")
    objs = [os.path.join(objdir, c.replace("/", "_").replace(".c", ".o")) for c in THRESHOLD_CORE]
    if newer(obj, [src] + headers):
        compile_c(src, obj, gen)
    tool = os.path.join(gen, "gen_threshold.js")
    if newer(tool, objs + [obj, __file__]):
        run(["emcc", "-O2", "-o", tool, obj] + objs + ["-sENVIRONMENT=node", "-sWASM_ASYNC_COMPILATION=0", "-sALLOW_MEMORY_GROWTH=1",
                                                        "-sMAXIMUM_MEMORY=2147483648"])
    target = os.path.join(out, "default_threshold.json")
    if newer(target, [tool]):
        text = run(["node", tool])
        json.loads(text)  # one JSON object, or the build stops here
        with open(target + ".tmp", "w") as f:
            f.write(text)
        os.replace(target + ".tmp", target)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "build-web"))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    os.environ["NODE_PATH"] = "/usr/share/nodejs"  # emcc's JS tools find acorn there (Debian's node modules)
    for tool in ("emcc", "glslangValidator", "spirv-cross", "node"):
        if not shutil.which(tool):
            sys.stderr.write("web build: %s not found (scripts/setup.sh installs it)\n" % tool)
            sys.exit(1)
    out = os.path.abspath(a.out)
    gen = os.path.join(out, "gen")
    objdir = os.path.join(out, "obj")
    os.makedirs(gen, exist_ok=True)
    os.makedirs(objdir, exist_ok=True)
    STB_CFLAGS[:] = run(["pkg-config", "--cflags", "stb"]).split()
    shaders_c = translate_shaders(gen)
    headers = []
    for d in ("include/strata", "src/core", "src/terrain", "src/io", "src/render", "src/mesh", "web", "web/methods"):
        p = os.path.join(ROOT, d)
        headers += [os.path.join(p, f) for f in os.listdir(p) if f.endswith(".h")]
    jobs = []
    objs = []
    for src in CORE + WEB + [shaders_c]:
        path = src if os.path.isabs(src) else os.path.join(ROOT, src)
        obj = os.path.join(objdir, src.replace("/", "_").replace(".c", ".o").lstrip("_"))
        objs.append(obj)
        if newer(obj, [path] + headers):
            jobs.append((path, obj))
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for f in [ex.submit(compile_c, p, o, gen) for p, o in jobs]:
            f.result()
    js = os.path.join(out, "strata.js")
    if newer(js, objs + [__file__]):
        run(["emcc", "-O2", "-o", js] + objs + [
            "-sUSE_WEBGL2=1", "-sMIN_WEBGL_VERSION=2", "-sMAX_WEBGL_VERSION=2", "-sENVIRONMENT=web,worker",
            "-sALLOW_MEMORY_GROWTH=1", "-sINITIAL_MEMORY=134217728", "-sMAXIMUM_MEMORY=2147483648",
            "-sEXPORTED_FUNCTIONS=" + ",".join(EXPORTS),
            "-sEXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString,HEAPU8,HEAPF32",
            "-sOFFSCREENCANVAS_SUPPORT=0", "-sFILESYSTEM=1"])
    default_threshold(out, objdir, gen, headers)
    for p in PAGE:
        shutil.copyfile(os.path.join(ROOT, p), os.path.join(out, os.path.basename(p)))
    print("web build: %s (strata.js, strata.wasm, index.html)" % out)


if __name__ == "__main__":
    main()
