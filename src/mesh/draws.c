/* Which chunk copies of a fitted mesh a view draws: the culling the native and the web mesh methods share. */
#include <math.h>
#include <stdlib.h>

#include "strata/camera.h"
#include "strata/mesh.h"

#define MESH_MAX_TILES 64 /* wrapped level copies per axis considered */

static int cmp_draw(const void *a, const void *b) {
    const st_mesh_draw *x = a, *y = b;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    return x->chunk < y->chunk ? -1 : x->chunk > y->chunk; /* deterministic order */
}

uint32_t st_mesh_select_draws(const st_mesh *m, const st_level *level, const st_view *view, st_mesh_draw *out,
                              uint32_t cap) {
    st_view v = *view;
    st_frustum frustum = st_view_frustum(&v);
    float hx = 0.5f * v.width / v.focal_px, hy = 0.5f * v.height / v.focal_px;
    float far = v.far_dist * sqrtf(1.0f + hx * hx + hy * hy);
    float C = (float)m->chunk_size, W = (float)m->width, H = (float)m->height;
    int tx0 = (int)floorf((v.eye[0] - far) / W), tx1 = (int)floorf((v.eye[0] + far) / W);
    int ty0 = (int)floorf((v.eye[1] - far) / H), ty1 = (int)floorf((v.eye[1] + far) / H);
    if (tx1 - tx0 >= MESH_MAX_TILES) tx0 = (int)floorf(v.eye[0] / W) - MESH_MAX_TILES / 2, tx1 = tx0 + MESH_MAX_TILES - 1;
    if (ty1 - ty0 >= MESH_MAX_TILES) ty0 = (int)floorf(v.eye[1] / H) - MESH_MAX_TILES / 2, ty1 = ty0 + MESH_MAX_TILES - 1;
    /* along an axis that does not wrap there is the level itself and no copy of it */
    if (!level->wrap_x) tx0 = tx1 = 0;
    if (!level->wrap_y) ty0 = ty1 = 0;
    uint32_t n = 0;
    for (int ty = ty0; ty <= ty1; ty++)
        for (int tx = tx0; tx <= tx1; tx++) {
            float ox = (float)tx * W, oy = (float)ty * H;
            /* the chunks of this copy within [eye − far, eye + far] (chunk c's box spans [c·C, (c+1)·C + 1]:
             * texel centres from c·C + 0.5, slab outlines half a texel past them) */
            int cx0 = (int)floorf((v.eye[0] - far - ox - 1.0f) / C), cx1 = (int)floorf((v.eye[0] + far - ox) / C);
            int cy0 = (int)floorf((v.eye[1] - far - oy - 1.0f) / C), cy1 = (int)floorf((v.eye[1] + far - oy) / C);
            if (cx0 < 0) cx0 = 0;
            if (cy0 < 0) cy0 = 0;
            if (cx1 >= (int)m->chunks_x) cx1 = (int)m->chunks_x - 1;
            if (cy1 >= (int)m->chunks_y) cy1 = (int)m->chunks_y - 1;
            for (int cy = cy0; cy <= cy1; cy++)
                for (int cx = cx0; cx <= cx1; cx++) {
                    uint32_t ci = (uint32_t)cy * m->chunks_x + (uint32_t)cx;
                    const st_mesh_chunk *c = &m->chunks[ci];
                    float lo[3] = {c->aabb_min[0] + ox, c->aabb_min[1] + oy, c->aabb_min[2]};
                    float hi[3] = {c->aabb_max[0] + ox, c->aabb_max[1] + oy, c->aabb_max[2]};
                    float dx = fmaxf(fmaxf(lo[0] - v.eye[0], v.eye[0] - hi[0]), 0.0f);
                    float dy = fmaxf(fmaxf(lo[1] - v.eye[1], v.eye[1] - hi[1]), 0.0f);
                    if (dx * dx + dy * dy > far * far || !st_frustum_meets_box(&frustum, lo, hi)) continue;
                    float ex = 0.5f * (lo[0] + hi[0]) - v.eye[0], ey = 0.5f * (lo[1] + hi[1]) - v.eye[1];
                    float dist = sqrtf(ex * ex + ey * ey);
                    if (n == cap) { /* keep the nearest: replace the farthest so far */
                        if (!cap) continue;
                        uint32_t worst = 0;
                        for (uint32_t i = 1; i < n; i++)
                            if (out[i].dist > out[worst].dist) worst = i;
                        if (out[worst].dist <= dist) continue;
                        n--;
                        out[worst] = out[n];
                    }
                    out[n++] = (st_mesh_draw){.dist = dist,
                                              .chunk = ci,
                                              .lod = st_mesh_lod_for_distance(dist),
                                              .origin = {ox + (float)((uint32_t)cx * m->chunk_size) + 0.5f,
                                                         oy + (float)((uint32_t)cy * m->chunk_size) + 0.5f}};
                }
        }
    qsort(out, n, sizeof *out, cmp_draw);
    return n;
}
