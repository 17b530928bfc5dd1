#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
// Painted in compute, pass 1: one invocation per block (the raster variant's instance). It builds the block's
// bars as the raster variant's vertex shader does (paint_bars.glsl) and rasterises their camera-facing faces
// exactly into the visibility buffer: a face whose box holds at most 32 pixels over its box, a larger one over its
// own pixels on each row (face_row_span) when those are about 256, and the rest are queued, in jobs of 64 × 256
// pixels of their box, for paint_big.comp. So no invocation tests much more than 6 × 256 pixels however near, tall or
// slanted its faces are (st_paint_compute_work reads the frame's most).
// The blocks may be drawn in a few passes, nearest tiles first (pc.phase, knob paint_passes; one by default, the
// fastest on the H200); after the first, the occlusion cells hold the farthest depth drawn so far per 8 × 8 pixels,
// and a workgroup whose tile's box lies behind them, or a face whose pixels do, is skipped.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "face_raster.glsl"
#include "paint_bars.glsl"
#include "paint_compute.glsl"

layout(local_size_x = 64) in;

uint tested = 0u; // pixels this invocation tested: the frame's most goes to the queue header (word 5)
uint atomics = 0u, faces = 0u, faces_hidden = 0u; // the rest of this invocation's work (counted with PAINT_COUNT)
shared uint tile_seen; // some cell over the workgroup's tile box is not yet covered nearer than the box

// Pixels x .. x + n − 1 (n ≤ 4) of row y, by pc.phase.w (knob paint_splat − 1): 2 (the default) their atomics
// without a read (on the H200 the fastest: nothing waits); 0 their depths first, then their words' reads side by
// side, then the atomics of those nearer than what is there (the word only grows); 1 one pixel at a time (read,
// wait, atomic).
void splat4(Face f, float eps, int x, int y, int n) {
    tested += uint(n);
    uint i[4];
    uint64_t v[4];
    bool hit[4];
    for (int k = 0; k < 4; k++) {
        float depth = k < n ? face_pixel_depth_eps(f, ivec2(x + k, y), eps) : -1.0;
        hit[k] = depth > 0.0;
        i[k] = uint(y * int(g.screen_right.w) + x + k);
        v[k] = (uint64_t(floatBitsToUint(depth)) << 32) | uint64_t(f.material);
    }
    if (pc.phase.w == 2u) {
        for (int k = 0; k < 4; k++)
            if (hit[k]) {
                atomics++;
                atomicMax(paint_vis[i[k]], v[k]);
            }
        return;
    }
    if (pc.phase.w == 1u) {
        for (int k = 0; k < 4; k++)
            if (hit[k] && paint_vis[i[k]] < v[k]) {
                atomics++;
                atomicMax(paint_vis[i[k]], v[k]);
            }
        return;
    }
    uint64_t old[4];
    for (int k = 0; k < 4; k++) old[k] = hit[k] ? paint_vis[i[k]] : ~0ul;
    for (int k = 0; k < 4; k++)
        if (old[k] < v[k]) {
            atomics++;
            atomicMax(paint_vis[i[k]], v[k]);
        }
}

// Columns x0..x1 of row y of the face, four at a time.
void splat_span(Face f, float eps, int y, int x0, int x1) {
    for (int x = x0; x <= x1; x += 4) splat4(f, eps, x, y, min(4, x1 - x + 1));
}

// Rows y0..y1 of the face over columns x0..x1 of its box.
void splat_rows(Face f, int y0, int y1, int x0, int x1) {
    float eps = paint_seam(f);
    for (int y = y0; y <= y1; y++) {
        ivec2 span = paint_row(f, y, x0, x1);
        splat_span(f, eps, y, span.x, span.y);
    }
}

// The job of the face's box r (64 rows × 256 columns, bands of rows outer): its first and last pixel.
ivec4 paint_job(ivec4 r, uint j) {
    uint col_jobs = uint(r.z - r.x) / uint(PAINT_JOB_COLUMNS) + 1u;
    int y0 = r.y + PAINT_JOB_ROWS * int(j / col_jobs), x0 = r.x + PAINT_JOB_COLUMNS * int(j % col_jobs);
    return ivec4(x0, y0, min(x0 + PAINT_JOB_COLUMNS - 1, r.z), min(y0 + PAINT_JOB_ROWS - 1, r.w));
}

void face(Face f) {
    if (!(f.ext.x < f.ext.y && f.ext.z < f.ext.w)) return; // collapsed: no fragment in the raster variant either
    ivec4 r = face_pixel_rect(f);
    if (r.x > r.z || r.y > r.w) return;
    faces++;
    float eps = paint_seam(f);
    if (paint_rect_hidden(r, paint_face_nearest(f, eps), 16)) { // behind what the earlier passes drew
        faces_hidden++;
        return;
    }
    uint w = uint(r.z - r.x + 1), h = uint(r.w - r.y + 1);
    if (w * h <= 32u) { // small: its box
        for (int y = r.y; y <= r.w; y++) splat_span(f, eps, y, r.x, r.z);
        return;
    }
    // a thin face at a slant covers a small part of its box, a near one most of it: its own pixels on each row,
    // here when they are about 256 (a box of 256 holds no more)
    bool here = w * h <= PAINT_IN_PLACE;
    if (!here && h <= PAINT_IN_PLACE) { // count them (a row costs about a pixel)
        uint n = h;
        for (int y = r.y; y <= r.w; y++) {
            ivec2 span = paint_row(f, y, r.x, r.z);
            n += uint(max(span.y - span.x + 1, 0));
        }
        here = n <= PAINT_IN_PLACE;
    }
    if (here) {
        splat_rows(f, r.y, r.w, r.x, r.z);
        return;
    }
    uint jobs = ((w - 1u) / uint(PAINT_JOB_COLUMNS) + 1u) * ((h - 1u) / uint(PAINT_JOB_ROWS) + 1u);
    atomicAdd(paint_queue[4], 1u);
    uint j0 = atomicAdd(paint_queue[3], jobs);
    uint fit = j0 < pc.misc.z ? min(jobs, pc.misc.z - j0) : 0u;
    for (uint j = 0u; j < fit; j++) {
        ivec4 a = paint_job(r, j);
        uint at = PAINT_QUEUE_HEADER + 4u * (j0 + j);
        paint_queue[at] = f.material;
        paint_queue[at + 1u] = uint(a.x) | (uint(a.y) << 16);
        paint_queue[at + 2u] = uint(a.z) | (uint(a.w) << 16);
    }
    if (fit > 0u) atomicMax(paint_queue[0], min(j0 + fit - paint_queue[7], 65535u)); // this pass's jobs
    if (fit < jobs) { // the job queue is full: the rest here, correct but slower (and counted)
        atomicAdd(paint_queue[6], jobs - fit);
        for (uint j = fit; j < jobs; j++) {
            ivec4 a = paint_job(r, j);
            splat_rows(f, a.y, a.w, a.x, a.z);
        }
    }
}

// Whether the box [lo, hi] is certainly behind the occlusion cells, the cells over its pixels shared out among the
// workgroup (the same box for every invocation): false when a corner is not in front of the near plane or the box
// covers more than 64 · 8 cells. Every invocation reaches it (it holds barriers).
bool tile_hidden(vec3 lo, vec3 hi) {
    if (gl_LocalInvocationIndex == 0u) tile_seen = 0u;
    barrier();
    float n = g.level_info.z, focal = g.forward.w, zmin = 1e30;
    vec2 smin = vec2(1e30), smax = vec2(-1e30);
    for (int k = 0; k < 8; k++) {
        vec3 q = mix(lo, hi, bvec3((k & 1) != 0, (k & 2) != 0, (k & 4) != 0)) - g.eye.xyz;
        vec3 v = vec3(dot(q, g.screen_right.xyz), dot(q, g.screen_up.xyz), dot(q, g.forward.xyz));
        zmin = min(zmin, v.z);
        vec2 s = v.xy / max(v.z, n);
        smin = min(smin, s);
        smax = max(smax, s);
    }
    bool seen = zmin * (1.0 - 1e-5) - 1e-3 <= n; // the near plane cuts it (or it is behind the eye): drawn
    if (!seen) {
        vec2 half_size = 0.5 * vec2(g.screen_right.w, g.screen_up.w);
        // pixel centres the box may cover, one pixel of margin (the faces' own tests decide exactly)
        ivec4 r = ivec4(floor(half_size.x + focal * smin.x) - 1.0, floor(half_size.y - focal * smax.y) - 1.0,
                        ceil(half_size.x + focal * smax.x) + 1.0, ceil(half_size.y - focal * smin.y) + 1.0);
        r.xy = max(r.xy, ivec2(0));
        r.zw = min(r.zw, ivec2(g.screen_right.w, g.screen_up.w) - 1);
        if (r.x <= r.z && r.y <= r.w) { // else off screen: nothing of it is drawn
            ivec4 c = paint_cells_of(r);
            int cw = c.z - c.x + 1, cells = cw * (c.w - c.y + 1);
            float depth = depth_from_view_z(zmin * (1.0 - 1e-5) - 1e-3);
            if (cells > 64 * 8) seen = true;
            else
                for (int i = int(gl_LocalInvocationIndex); i < cells && !seen; i += 64)
                    seen = !paint_cell_covers(c.xy + ivec2(i % cw, i / cw), depth);
        }
    }
    if (seen) tile_seen = 1u;
    barrier();
    return tile_seen == 0u;
}

void main() {
    uint gi = pc.phase.x + gl_GlobalInvocationID.y * pc.misc.y + gl_GlobalInvocationID.x;
    // a workgroup's blocks are of one tile at levels 0 and 1 (256 and 64 a tile; every range starts at a tile), so
    // the tile's box is tested once for all of them; level 2 (16 a tile) tests its faces alone
    uint gi0 = gi - gl_LocalInvocationIndex, lod0 = paint_lod_of(gi0);
    if (pc.phase.z != 0u && lod0 < 2u && gi0 < pc.phase.y) { // uniform in the workgroup
        ivec4 t = paint_tile(pc.tile_base[lod0] + ((gi0 - pc.first[lod0]) >> (8u - 2u * lod0)));
        vec3 lo = vec3(vec2(t.xy), 0.0), hi = vec3(vec2(t.xy + PAINT_TILE), float(t.w));
        if (tile_hidden(lo, hi)) {
            if (PAINT_COUNT != 0u && gl_LocalInvocationIndex == 0u) atomicAdd(paint_queue[PAINT_COUNT_TILES_HIDDEN], 1u);
            return;
        }
    }
    if (gi >= pc.phase.y) return;
    uint lod = paint_lod_of(gi);
    PaintBlock k = paint_block(pc.tile_base[lod], lod, gi - pc.first[lod]);
    PaintColumn col = paint_column(k); // the block's cells and neighbours, read once for both bars
    Surface sx, sy;
    paint_block_neighbours(k, sx, sy);
    for (int bar = 0; bar < 2; bar++) {
        vec3 lo, hi;
        vec4 sides;
        if (!paint_bar_faces(k, col, bar, sx, sy, lo, hi, sides)) continue;
        uint id = gi * 6u + uint(bar) * 3u; // the raster variant's draw order: x, y, z face of the floor, then the slab
        for (uint axis = 0u; axis < 3u; axis++) face(paint_bar_face(lo, hi, sides, axis, id + axis));
    }
    if (tested > paint_queue[5]) atomicMax(paint_queue[5], tested); // a read first: the word is rarely raised
    if (PAINT_COUNT != 0u) {
        atomicAdd(paint_queue[PAINT_COUNT_BLOCKS], 1u);
        atomicAdd(paint_queue[PAINT_COUNT_FACES], faces);
        atomicAdd(paint_queue[PAINT_COUNT_FACES_HIDDEN], faces_hidden);
        atomicAdd(paint_queue[PAINT_COUNT_TESTED], tested);
        atomicAdd(paint_queue[PAINT_COUNT_ATOMICS], atomics);
    }
}
