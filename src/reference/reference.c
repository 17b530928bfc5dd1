/* The CPU reference ray cast. Within one texel column the solid set is [−∞, low] ∪ [mid, high] (the one
 * SOLID predicate), so a ray is intersected exactly cell by cell — no step size, nothing skipped, a 1-texel
 * wall is as visible as a mountain. A pyramid of block bounds (maximum height, shared air gap under slabs)
 * lets empty air — above the terrain or inside a cave — be crossed a block at a time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/file.h"
#include "strata/image.h"
#include "strata/reference.h"
#include "strata/shading.h"

#define MAX_LEVELS 7 /* blocks up to 64×64 texels: beyond that a block rarely stays empty */

/* What a ray may assume about a block of texels without looking inside: everything above `max` is air,
 * and so is every z with gap_lo < z < gap_hi (the air gap under the slabs that every texel shares; a single
 * texel's gap is everything above it, stored as 255 — conservative, since z ≥ 255 is covered by max). */
typedef struct block {
    uint8_t max, gap_lo, gap_hi, pad;
} block;

struct st_reference {
    const st_level *level;
    uint32_t crc;
    int levels;                 /* pyramid levels 1..levels describe blocks of 2^L × 2^L texels */
    block *max[MAX_LEVELS + 1];
    uint32_t mw[MAX_LEVELS + 1], mh[MAX_LEVELS + 1];
    uint8_t global_max;
    bool shadows; /* shade with an exact shadow ray per hit (on unless st_reference_set_shadows) */
};

/* ---- construction ------------------------------------------------------------------------------------ */

uint32_t st_reference_level_crc32(const st_level *level) {
    size_t n = (size_t)level->width * level->height;
    const uint8_t *heights, *meta;
    st_level_planes(level, &heights, &meta);
    uint32_t crc = st_crc32_update(st_crc32(heights, n), meta, n);
    /* a colour map is part of the world (its colours are the reference's); a level without one keeps its CRC */
    return level->colors ? st_crc32_update(crc, level->colors, n * 3) : crc;
}

typedef struct {
    st_reference *ref;
    int lv;
} build_job;

static inline uint8_t u8max(uint8_t a, uint8_t b) { return a > b ? a : b; }
static inline uint8_t u8min(uint8_t a, uint8_t b) { return a < b ? a : b; }

/* The block of one texel pair (x even): a dual pair's gap is (low, mid); single texels have air above their
 * heights. The larger height byte bounds both texels' solid tops. */
static block pair_block(const uint8_t *h, const uint8_t *m) {
    block b = {u8max(h[0], h[1]), 0, 255, 0};
    if (m[0] & ST_META_DUAL) {
        unsigned d = ((m[0] & ST_META_DELTA_MASK) << 2) | (m[1] & ST_META_DELTA_MASK);
        unsigned mid = (unsigned)h[0] + (d << ST_DELTA_POWER);
        b.gap_lo = h[0];
        b.gap_hi = (uint8_t)(mid < h[1] ? mid : h[1]);
    } else {
        b.gap_lo = b.max;
    }
    return b;
}

static block merge(block a, block b) {
    block r = {u8max(a.max, b.max), u8max(a.gap_lo, b.gap_lo), u8min(a.gap_hi, b.gap_hi), 0};
    return r;
}

static void build_rows(void *user, size_t begin, size_t end) {
    build_job *job = user;
    st_reference *ref = job->ref;
    int lv = job->lv;
    uint32_t w = ref->mw[lv];
    for (size_t y = begin; y < end; y++) {
        block *dst = ref->max[lv] + y * w;
        if (lv == 1) { /* a 2×2 block is one pair in each of two rows */
            const st_level *l = ref->level;
            uint32_t y0 = (uint32_t)(2 * y);
            const uint8_t *h0 = st_level_height_row(l, y0), *m0 = st_level_meta_row(l, y0);
            const uint8_t *h1 = st_level_height_row(l, y0 + 1), *m1 = st_level_meta_row(l, y0 + 1);
            for (uint32_t x = 0; x < w; x++)
                dst[x] = merge(pair_block(h0 + 2 * x, m0 + 2 * x), pair_block(h1 + 2 * x, m1 + 2 * x));
        } else {
            uint32_t sw = ref->mw[lv - 1];
            const block *a = ref->max[lv - 1] + 2 * y * sw, *b = a + sw;
            for (uint32_t x = 0; x < w; x++)
                dst[x] = merge(merge(a[2 * x], a[2 * x + 1]), merge(b[2 * x], b[2 * x + 1]));
        }
    }
}

st_result st_reference_create(const st_level *level, st_reference **out, st_error *err) {
    *out = NULL;
    if (!level || level->width < 2 || level->height < 2 || !st_is_pow2(level->width) || !st_is_pow2(level->height))
        return st_error_set(err, ST_ERR_INVALID, "reference: the level must be at least 2×2 with power-of-two sides");
    st_reference *ref = calloc(1, sizeof *ref);
    if (!ref) return st_error_set(err, ST_ERR_NOMEM, "reference: out of memory");
    ref->level = level;
    ref->shadows = true;
    ref->crc = st_reference_level_crc32(level);
    uint32_t w = level->width, h = level->height;
    int levels = 0;
    while (levels < MAX_LEVELS && (w >> (levels + 1)) >= 1 && (h >> (levels + 1)) >= 1) levels++;
    ref->levels = levels;
    for (int lv = 1; lv <= levels; lv++) {
        ref->mw[lv] = w >> lv;
        ref->mh[lv] = h >> lv;
        ref->max[lv] = malloc((size_t)ref->mw[lv] * ref->mh[lv] * sizeof(block));
        if (!ref->max[lv]) {
            st_reference_destroy(ref);
            return st_error_set(err, ST_ERR_NOMEM, "reference: cannot allocate the height pyramid");
        }
        build_job job = {ref, lv};
        st_parallel_for(ref->mh[lv], 64, build_rows, &job);
    }
    uint8_t gmax = 0;
    if (levels > 0) {
        size_t n = (size_t)ref->mw[levels] * ref->mh[levels];
        for (size_t i = 0; i < n; i++)
            if (ref->max[levels][i].max > gmax) gmax = ref->max[levels][i].max;
    } else {
        for (uint32_t y = 0; y < h; y++) {
            const uint8_t *row = st_level_height_row(level, y);
            for (uint32_t x = 0; x < w; x++)
                if (row[x] > gmax) gmax = row[x];
        }
    }
    ref->global_max = gmax;
    *out = ref;
    return ST_OK;
}

void st_reference_destroy(st_reference *ref) {
    if (!ref) return;
    for (int lv = 1; lv <= MAX_LEVELS; lv++) free(ref->max[lv]);
    free(ref);
}

uint32_t st_reference_crc(const st_reference *ref) { return ref->crc; }

void st_reference_set_shadows(st_reference *ref, bool on) { ref->shadows = on; }

/* ---- one ray ------------------------------------------------------------------------------------------- */

static inline int64_t floor_shift(int64_t v, int lv) { return v >= 0 ? v >> lv : -((-v - 1) >> lv) - 1; }

/* What a hit is made of, beyond its distance: the face entered, the material, the texel column (unwrapped,
 * in the ray's own coordinates) and whether the slab (upper) interval or the floor was hit. */
typedef struct ray_hit {
    double t;
    uint8_t face, type;
    bool upper;
    int64_t cx, cy;
} ray_hit;

/* Past the edge of an axis that does not wrap there is nothing: a ray in cell (ix, iy) out there that moves away
 * from the level (or along its edge) meets nothing more. */
static inline bool left_for_good(const st_level *l, int64_t ix, int64_t iy, double dx, double dy) {
    const int64_t W = l->width, H = l->height;
    return (!l->wrap_x && ((ix < 0 && dx <= 0) || (ix >= W && dx >= 0))) ||
           (!l->wrap_y && ((iy < 0 && dy <= 0) || (iy >= H && dy >= 0)));
}

static bool cast_ray(const st_reference *ref, const float origin[3], const float dir[3], float t_min, float t_max,
                     ray_hit *hit) {
    const st_level *level = ref->level;
    const double ox = origin[0], oy = origin[1], oz = origin[2];
    const double dx = dir[0], dy = dir[1], dz = dir[2];
    const double tmax = t_max;
    const double gmax = ref->global_max;
    double t = t_min > 0 ? t_min : 0;
    if (!(t < tmax)) return false;
    if (dz >= 0 && oz + dz * t > gmax) return false; /* above everything and not coming down */
    int64_t ix = (int64_t)floor(ox + dx * t), iy = (int64_t)floor(oy + dy * t);
    const uint32_t wmask = level->width - 1, hmask = level->height - 1;
    if (left_for_good(level, ix, iy, dx, dy)) return false;
    uint8_t entry_face = ST_REF_FACE_INSIDE; /* the first cell is entered at the near plane, not a face */
    const uint8_t face_x = dx > 0 ? ST_REF_FACE_WEST : ST_REF_FACE_EAST;
    const uint8_t face_y = dy > 0 ? ST_REF_FACE_SOUTH : ST_REF_FACE_NORTH;
    const double inv_dx = dx != 0 ? 1.0 / dx : 0, inv_dy = dy != 0 ? 1.0 / dy : 0;
    int lv = 0;
    for (;;) {
        int64_t size = (int64_t)1 << lv;
        int64_t x0 = floor_shift(ix, lv) * size, y0 = floor_shift(iy, lv) * size;
        double tx = dx > 0 ? ((double)(x0 + size) - ox) * inv_dx : dx < 0 ? ((double)x0 - ox) * inv_dx : INFINITY;
        double ty = dy > 0 ? ((double)(y0 + size) - oy) * inv_dy : dy < 0 ? ((double)y0 - oy) * inv_dy : INFINITY;
        double te = tx < ty ? tx : ty;
        if (te < t) te = t; /* rounding at a corner: never step backwards */
        double tb = te < tmax ? te : tmax;
        /* a block past a non-wrapping edge is all air (blocks never straddle an edge: they are aligned and no
         * larger than the level) */
        bool outside = !st_level_contains(level, x0, y0);
        if (!outside && lv > 0) {
            double za = oz + dz * t, zb = oz + dz * tb;
            double zmin = za < zb ? za : zb, zmax = za < zb ? zb : za;
            uint32_t bx = (uint32_t)(x0 >> lv) & (ref->mw[lv] - 1), by = (uint32_t)(y0 >> lv) & (ref->mh[lv] - 1);
            block b = ref->max[lv][(size_t)by * ref->mw[lv] + bx];
            bool air = zmin > (double)b.max || (zmin > (double)b.gap_lo && zmax < (double)b.gap_hi);
            if (!air) {
                lv--; /* something in this block may be hit: look closer */
                continue;
            }
        } else if (!outside) {
            st_texel tx_ = st_level_texel(level, (int)((uint32_t)ix & wmask), (int)((uint32_t)iy & hmask));
            double za = oz + dz * t;
            double low = tx_.low, mid = tx_.mid, high = tx_.high;
            double best = INFINITY;
            uint8_t face = 0, type = 0;
            bool upper = false;
            if (za <= low) {
                best = t, face = entry_face, type = tx_.low_type;
            } else if (dz < 0) {
                double tl = (low - oz) / dz;
                if (tl <= tb) best = tl < t ? t : tl, face = ST_REF_FACE_TOP, type = tx_.low_type;
            }
            if (tx_.dual && best > t) {
                if (za >= mid && za <= high) {
                    best = t, face = entry_face, type = tx_.high_type, upper = true;
                } else if (za < mid && dz > 0) {
                    double tm = (mid - oz) / dz;
                    if (tm <= tb && tm < best)
                        best = tm < t ? t : tm, face = ST_REF_FACE_BOTTOM, type = tx_.high_type, upper = true;
                } else if (za > high && dz < 0) {
                    double th = (high - oz) / dz;
                    if (th <= tb && th < best)
                        best = th < t ? t : th, face = ST_REF_FACE_TOP, type = tx_.high_type, upper = true;
                }
            }
            if (best <= tb) {
                *hit = (ray_hit){best, face, type, upper, ix, iy};
                return true;
            }
        }
        /* the block is empty along this stretch of the ray: cross it */
        if (te >= tmax) return false;
        if (tx == ty) { /* exactly through a corner: the side cells are only touched at a point */
            ix = dx > 0 ? x0 + size : x0 - 1;
            iy = dy > 0 ? y0 + size : y0 - 1;
            entry_face = face_x;
        } else if (tx < ty) {
            ix = dx > 0 ? x0 + size : x0 - 1;
            int64_t ny = (int64_t)floor(oy + dy * te);
            iy = ny < y0 ? y0 : ny > y0 + size - 1 ? y0 + size - 1 : ny;
            entry_face = face_x;
        } else {
            iy = dy > 0 ? y0 + size : y0 - 1;
            int64_t nx = (int64_t)floor(ox + dx * te);
            ix = nx < x0 ? x0 : nx > x0 + size - 1 ? x0 + size - 1 : nx;
            entry_face = face_y;
        }
        t = te;
        if (dz >= 0 && oz + dz * t > gmax) return false;
        if (left_for_good(level, ix, iy, dx, dy)) return false;
        if (lv < ref->levels) lv++;
    }
}

bool st_reference_ray(const st_reference *ref, const float origin[3], const float dir[3], float t_min, float t_max,
                      float *t_hit, uint8_t *face, uint8_t *type) {
    ray_hit h;
    if (!cast_ray(ref, origin, dir, t_min, t_max, &h)) return false;
    if (t_hit) *t_hit = (float)h.t;
    if (face) *face = h.face;
    if (type) *type = h.type;
    return true;
}

/* ---- shading --------------------------------------------------------------------------------------------- */

/* The colour of a hit by the shared formula (st_shade_lit). The point is put exactly on the layer it hit and
 * inside its column (as voxel-compute nudges its hits), so the gradient reads that column. The sun's visibility
 * is an exact shadow ray from the point the GPU methods look up in the shadow map, whose texels are 1.57 units
 * at 1024² and filtered 2×2 (docs/harness.md). */
static void shade_hit(const st_reference *ref, const st_shade_env *env, const float eye[3], const float dir[3],
                      const ray_hit *h, uint8_t rgb8[3]) {
    st_texel s = st_level_texel(ref->level, (int)((uint64_t)h->cx & (ref->level->width - 1)),
                                (int)((uint64_t)h->cy & (ref->level->height - 1)));
    double p[3];
    for (int k = 0; k < 3; k++) p[k] = (double)eye[k] + (double)dir[k] * h->t;
    double x0 = (double)h->cx, y0 = (double)h->cy;
    double z = p[2];
    if (h->face == ST_REF_FACE_TOP) z = h->upper ? s.high : s.low;
    else if (h->face == ST_REF_FACE_BOTTOM) z = s.mid;
    else if (h->upper) z = z < s.mid ? s.mid : z > s.high ? s.high : z;
    else z = z > s.low ? s.low : z;
    float q[3] = {(float)(p[0] < x0 + 0.001 ? x0 + 0.001 : p[0] > x0 + 0.999 ? x0 + 0.999 : p[0]),
                  (float)(p[1] < y0 + 0.001 ? y0 + 0.001 : p[1] > y0 + 0.999 ? y0 + 0.999 : p[1]), (float)z};
    float n[3];
    st_shade_gradient_normal(ref->level, q, st_shade_upper(s, q[2]), n);
    float visibility = 1.0f;
    if (ref->shadows) {
        /* The point the shadow map is asked about (shadow.glsl): along the normal by the map's normal offset and
         * toward the sun by 0.25 + its depth bias, at the publication map's texel size. Below that scale the
         * shading does not want shadows (a 1-unit step on rough ground would shade the step behind it); above it
         * the ray is exact where the map has texels and a 2×2 filter. */
        float off = ST_SHADOW_OFFSET_TEXELS * st_shadow_texel_world(ST_SHADOW_SIZE_REFERENCE);
        float o[3];
        for (int k = 0; k < 3; k++) o[k] = q[k] + n[k] * off + env->sun[k] * (ST_SHADOW_TOWARD_SUN + off);
        ray_hit sh;
        if (cast_ray(ref, o, env->sun, 0.0f, 1e7f, &sh)) visibility = 0.0f;
    }
    float rgb[3];
    st_shade_lit(env, q, s, n, visibility, rgb);
    for (int k = 0; k < 3; k++) rgb8[k] = st_shade_srgb8(rgb[k]);
}

/* ---- images ---------------------------------------------------------------------------------------------- */

st_result st_ref_image_create(uint32_t width, uint32_t height, st_ref_image *out, st_error *err) {
    memset(out, 0, sizeof *out);
    if (!width || !height || width > 16384 || height > 16384)
        return st_error_set(err, ST_ERR_INVALID, "reference image %ux%u: sides must be 1..16384", width, height);
    size_t n = (size_t)width * height;
    out->distance = malloc(n * sizeof(float));
    out->face = malloc(n);
    out->type = malloc(n);
    out->rgba = malloc(n * 4);
    if (!out->distance || !out->face || !out->type || !out->rgba) {
        st_ref_image_free(out);
        return st_error_set(err, ST_ERR_NOMEM, "reference image %ux%u: out of memory", width, height);
    }
    out->width = width;
    out->height = height;
    return ST_OK;
}

void st_ref_image_free(st_ref_image *img) {
    if (!img) return;
    free(img->distance);
    free(img->face);
    free(img->type);
    free(img->rgba);
    memset(img, 0, sizeof *img);
}

typedef struct {
    const st_reference *ref;
    st_view view;
    st_shade_env env;
    st_ref_image *img;
} cast_job;

static void cast_rows(void *user, size_t begin, size_t end) {
    cast_job *job = user;
    st_ref_image *img = job->img;
    for (size_t j = begin; j < end; j++) {
        for (uint32_t i = 0; i < img->width; i++) {
            float dir[3], tn, tf;
            st_view_pixel_ray(&job->view, i, (uint32_t)j, dir, &tn, &tf);
            size_t k = j * img->width + i;
            ray_hit h;
            uint8_t *c = img->rgba + 4 * k;
            if (cast_ray(job->ref, job->view.eye, dir, tn, tf, &h)) {
                img->distance[k] = (float)h.t;
                img->face[k] = h.face;
                img->type[k] = h.type;
                shade_hit(job->ref, &job->env, job->view.eye, dir, &h, c);
            } else {
                img->distance[k] = NAN;
                img->face[k] = ST_REF_SKY;
                img->type[k] = 0;
                c[0] = st_shade_srgb8(ST_FOG_R), c[1] = st_shade_srgb8(ST_FOG_G), c[2] = st_shade_srgb8(ST_FOG_B);
            }
            c[3] = 255;
        }
    }
}

st_result st_reference_cast(const st_reference *ref, const st_camera *camera, st_ref_image *img, st_error *err) {
    if (!img->distance || !img->width)
        return st_error_set(err, ST_ERR_INVALID, "reference: the image is not allocated");
    cast_job job = {ref, st_camera_view(camera, img->width, img->height), {0}, img};
    st_shade_env_init(&job.env, ref->level, job.view.eye, job.view.far_dist);
    st_parallel_for(img->height, 4, cast_rows, &job);
    return ST_OK;
}

/* ---- disk cache --------------------------------------------------------------------------------------- */

#define CACHE_MAGIC "STRREF02"

typedef struct cache_header {
    char magic[8];
    uint32_t version, level_crc, level_w, level_h, width, height;
    uint32_t shading; /* bit 0: exact shadows; bits 1, 2: x, y do not wrap */
    float camera[8]; /* position xyz, yaw, pitch, fovy, near, far with defaults resolved */
    uint32_t payload_crc, reserved;
} cache_header;

static void camera_key(const st_camera *c, float k[8]) {
    k[0] = c->position[0];
    k[1] = c->position[1];
    k[2] = c->position[2];
    k[3] = c->yaw_deg;
    k[4] = c->pitch_deg;
    k[5] = c->fovy_deg > 0 ? c->fovy_deg : ST_DEFAULT_FOVY_DEG;
    k[6] = c->near_dist > 0 ? c->near_dist : ST_DEFAULT_NEAR;
    k[7] = c->far_dist > 0 ? c->far_dist : ST_DEFAULT_FAR;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint32_t payload_crc(const st_ref_image *img) {
    size_t n = (size_t)img->width * img->height;
    uint32_t crc = st_crc32(img->distance, n * sizeof(float));
    crc = st_crc32_update(crc, img->face, n);
    crc = st_crc32_update(crc, img->type, n);
    return st_crc32_update(crc, img->rgba, n * 4);
}

static bool cache_load(const char *path, const cache_header *want, st_ref_image *img) {
    FILE *fp = NULL;
    if (st_file_open_read(path, &fp, NULL)) return false; /* missing, or not a regular file: a miss */
    cache_header h;
    size_t n = (size_t)img->width * img->height;
    bool ok = fread(&h, sizeof h, 1, fp) == 1 && !memcmp(h.magic, want->magic, 8) && h.version == want->version &&
              h.level_crc == want->level_crc && h.level_w == want->level_w && h.level_h == want->level_h &&
              h.width == want->width && h.height == want->height && h.shading == want->shading && !memcmp(h.camera, want->camera, sizeof h.camera);
    ok = ok && fread(img->distance, sizeof(float), n, fp) == n && fread(img->face, 1, n, fp) == n &&
         fread(img->type, 1, n, fp) == n && fread(img->rgba, 4, n, fp) == n && fgetc(fp) == EOF;
    fclose(fp);
    return ok && payload_crc(img) == h.payload_crc;
}

st_result st_reference_cast_cached(const st_reference *ref, const st_camera *camera, const char *cache_dir,
                                   st_ref_image *img, bool *from_cache, st_error *cache_err, st_error *err) {
    if (from_cache) *from_cache = false;
    if (!cache_dir || !*cache_dir) return st_reference_cast(ref, camera, img, err);
    cache_header want;
    memset(&want, 0, sizeof want);
    memcpy(want.magic, CACHE_MAGIC, 8);
    want.version = ST_REFERENCE_VERSION;
    want.level_crc = ref->crc;
    want.level_w = ref->level->width;
    want.level_h = ref->level->height;
    want.width = img->width;
    want.height = img->height;
    /* the planes' CRC does not say where the level wraps: the bounded axes are part of the key */
    want.shading = (ref->shadows ? 1u : 0u) | (ref->level->wrap_x ? 0u : 2u) | (ref->level->wrap_y ? 0u : 4u);
    camera_key(camera, want.camera);
    uint64_t key = fnv1a(0xcbf29ce484222325ull, &want, offsetof(cache_header, payload_crc));
    char path[1200];
    snprintf(path, sizeof path, "%s/ref-%016llx.bin", cache_dir, (unsigned long long)key);
    if (cache_load(path, &want, img)) {
        if (from_cache) *from_cache = true;
        return ST_OK;
    }
    st_result r = st_reference_cast(ref, camera, img, err);
    if (r) return r;
    /* A cache that cannot be written costs time, not correctness: say so to the caller and go on. */
    st_error werr = {0};
    if (st_make_dirs(cache_dir, &werr) != ST_OK) {
        if (cache_err) *cache_err = werr;
        return ST_OK;
    }
    want.payload_crc = payload_crc(img);
    st_atomic_file f;
    if (st_atomic_open(&f, path, &werr) != ST_OK) {
        if (cache_err) *cache_err = werr;
        return ST_OK;
    }
    size_t n = (size_t)img->width * img->height;
    fwrite(&want, sizeof want, 1, f.fp);
    fwrite(img->distance, sizeof(float), n, f.fp);
    fwrite(img->face, 1, n, f.fp);
    fwrite(img->type, 1, n, f.fp);
    fwrite(img->rgba, 4, n, f.fp);
    if (st_atomic_commit(&f, &werr) != ST_OK && cache_err) *cache_err = werr;
    return ST_OK;
}
