/* Textured shading on the GPU: every level method shows the same material at the centre pixel of a flat floor
 * (the one shading path, the footprint from the camera alone); a vertical wall takes the side projection (the
 * texture's gradients in the image are about as strong across as along the wall, where a top projection
 * would smear it into vertical streaks); a paint of the control map sends exactly its dirty rectangle to the
 * GPU; textured shading really textures (the floor is not one colour) and flat shading ignores the materials;
 * far away the floor still shows its material's pattern (the far copy); the fetches per pixel are within their
 * targets; an 80° face is textured without stretch (the texel footprint's aspect, known answer 1/sin 80°). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_store.h"
#include "render/render_internal.h"
#include "strata/image.h"
#include "strata/shading.h"
#include "support.h"

static uint8_t *render_rgba_lit(st_engine *e, const char *method, st_shading shading, st_camera cam, uint32_t w,
                                uint32_t h, bool shadows) {
    st_renderer *r = NULL;
    st_render_desc d = {.method = method, .width = w, .height = h, .shadows = shadows, .shading = shading};
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    uint8_t *rgba = malloc((size_t)w * h * 4);
    assert_non_null(rgba);
    assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
    assert_st_ok(st_renderer_readback(r, rgba, NULL, err));
    st_renderer_destroy(r);
    return rgba;
}

static uint8_t *render_rgba(st_engine *e, const char *method, st_shading shading, st_camera cam, uint32_t w,
                            uint32_t h) {
    return render_rgba_lit(e, method, shading, cam, w, h, true);
}

/* The mean colour of the 3×3 pixels around the centre. */
static void centre_colour(const uint8_t *rgba, uint32_t w, uint32_t h, float out[3]) {
    for (int c = 0; c < 3; c++) {
        float s = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                size_t x = (size_t)((int)w / 2 + dx), y = (size_t)((int)h / 2 + dy);
                s += rgba[(y * w + x) * 4 + (size_t)c];
            }
        out[c] = s / 9.0f;
    }
}

static void test_every_method_same_floor_material(void **state) {
    (void)state;
    st_level *level = test_flat_level(256, 256, 40);
    st_engine *e = test_engine(level);
    const uint32_t W = 96, H = 64;
    st_camera cam = {.position = {128.3f, 100.6f, 70.0f}, .yaw_deg = 0, .pitch_deg = -55};
    uint8_t *flat = render_rgba(e, "ray", ST_SHADING_FLAT, cam, W, H);
    uint8_t *ref = render_rgba(e, "ray", ST_SHADING_TEXTURED, cam, W, H);
    float ref_c[3];
    centre_colour(ref, W, H, ref_c);
    /* textured: the floor varies; flat: one colour (lit alike everywhere, the fog far away) */
    double var_t = 0, var_f = 0, mean_t = 0, mean_f = 0;
    for (uint32_t i = 0; i < W * H; i++) mean_t += ref[i * 4 + 1], mean_f += flat[i * 4 + 1];
    mean_t /= W * H, mean_f /= W * H;
    for (uint32_t i = 0; i < W * H; i++)
        var_t += (ref[i * 4 + 1] - mean_t) * (ref[i * 4 + 1] - mean_t), var_f += (flat[i * 4 + 1] - mean_f) * (flat[i * 4 + 1] - mean_f);
    var_t /= W * H, var_f /= W * H;
    printf("floor green: flat mean %.1f variance %.2f, textured mean %.1f variance %.2f\n", mean_f, var_f, mean_t, var_t);
    assert_true(var_f < 0.5);
    assert_true(var_t > 1.0);
    /* tinted by the type's colour: on average the textured floor keeps the flat colour */
    assert_true(fabs(mean_t - mean_f) < 0.15 * mean_f + 4);
    for (size_t m = 0; m < st_method_count(); m++) {
        const char *name = st_method_at(m)->name;
        uint8_t *img = render_rgba(e, name, ST_SHADING_TEXTURED, cam, W, H);
        float c[3];
        centre_colour(img, W, H, c);
        float d = fmaxf(fabsf(c[0] - ref_c[0]), fmaxf(fabsf(c[1] - ref_c[1]), fabsf(c[2] - ref_c[2])));
        printf("%-14s centre (%.1f, %.1f, %.1f), ray's (%.1f, %.1f, %.1f): %.1f apart\n", name, c[0], c[1], c[2],
               ref_c[0], ref_c[1], ref_c[2], d);
        if (d > 6.0f) fail_msg("%s shows another colour at the floor's centre (%.1f levels from ray's)", name, d);
        free(img);
    }
    free(flat);
    free(ref);
    test_engine_finish(e, level);
}

/* The anisotropy of the image's luminance gradients over a window (the structure tensor's eigenvalue ratio,
 * square-rooted): about 1 for an undistorted texture, large where it is smeared along one direction. */
static double gradient_aspect(const uint8_t *rgba, uint32_t w, uint32_t x0, uint32_t y0, uint32_t size) {
    double sxx = 0, syy = 0, sxy = 0;
    for (uint32_t y = y0; y < y0 + size; y++)
        for (uint32_t x = x0; x < x0 + size; x++) {
#define LUM(i, j) (0.3 * rgba[((size_t)(j) * w + (i)) * 4] + 0.59 * rgba[((size_t)(j) * w + (i)) * 4 + 1] + \
                   0.11 * rgba[((size_t)(j) * w + (i)) * 4 + 2])
            double gx = LUM(x + 1, y) - LUM(x - 1, y), gy = LUM(x, y + 1) - LUM(x, y - 1);
#undef LUM
            sxx += gx * gx, syy += gy * gy, sxy += gx * gy;
        }
    double tr = sxx + syy, det = sxx * syy - sxy * sxy, disc = sqrt(fmax(tr * tr / 4 - det, 0));
    double l1 = tr / 2 + disc, l2 = tr / 2 - disc;
    return l2 > 1e-9 ? sqrt(l1 / l2) : INFINITY;
}

static void test_wall_side_projection(void **state) {
    (void)state;
    st_level *level = test_flat_level(256, 256, 10);
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 100; x++) st_level_set_single(level, x, y, 220, 3); /* a rock wall facing +x */
    st_engine *e = test_engine(level);
    const uint32_t W = 128, H = 96;
    /* level with the wall's middle, looking at it square on (−x) from 36 texels */
    st_camera cam = {.position = {136.0f, 128.4f, 110.0f}, .yaw_deg = 270, .pitch_deg = 0};
    /* unshadowed: the shadow map's texels would stripe the wall's lighting, and the texture is the subject */
    uint8_t *img = render_rgba_lit(e, "ray", ST_SHADING_TEXTURED, cam, W, H, false);
    double a = gradient_aspect(img, W, W / 2 - 24, H / 2 - 24, 48);
    uint8_t *flat = render_rgba_lit(e, "ray", ST_SHADING_FLAT, cam, W, H, false);
    double sum = 0;
    for (uint32_t y = H / 2 - 24; y < H / 2 + 24; y++)
        for (uint32_t x = W / 2 - 24; x < W / 2 + 24; x++)
            sum += fabs((double)img[((size_t)y * W + x) * 4 + 1] - flat[((size_t)y * W + x) * 4 + 1]);
    const char *dump = getenv("STRATA_DUMP_IMAGES");
    if (dump) {
        char path[1024];
        snprintf(path, sizeof path, "%s/wall.png", dump);
        st_error pe = {0};
        st_png_write(path, W, H, 4, 8, img, &pe);
    }
    printf("wall: gradient aspect %.2f, mean |textured − flat| %.2f levels\n", a, sum / (48 * 48));
    assert_true(sum / (48 * 48) > 1.0); /* the wall is textured at all */
    if (!(a <= 1.5)) fail_msg("the wall's texture is stretched: gradient aspect %.2f (at most 1.5)", a);
    free(img);
    free(flat);
    test_engine_finish(e, level);
}

/* The mean |luminance − its 3×3 box mean| over the centre size² window: the image's fine detail. */
static double fine_detail(const uint8_t *rgba, uint32_t w, uint32_t h, uint32_t size) {
    double sum = 0;
    for (uint32_t y = h / 2 - size / 2; y < h / 2 + size / 2; y++)
        for (uint32_t x = w / 2 - size / 2; x < w / 2 + size / 2; x++) {
#define LUM(i, j) (0.3 * rgba[((size_t)(j) * w + (i)) * 4] + 0.59 * rgba[((size_t)(j) * w + (i)) * 4 + 1] + \
                   0.11 * rgba[((size_t)(j) * w + (i)) * 4 + 2])
            double box = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) box += LUM((int)x + dx, (int)y + dy);
            sum += fabs(LUM(x, y) - box / 9.0);
#undef LUM
        }
    return sum / ((double)size * size);
}

/* Far away a tile's mips average it to its mean colour; the far copy (the layer MAT_FAR_SCALE times larger)
 * keeps the material's pattern in the picture where the near copy alone had faded to nearly one colour. */
static void test_far_floor_keeps_its_texture(void **state) {
    (void)state;
    st_level *level = test_flat_level(1024, 1024, 40);
    st_engine *e = test_engine(level);
    const uint32_t W = 64, H = 64;
    double detail[2];
    const float heights[2] = {24.0f, 160.0f}; /* the sand's near copy at about mip 4.6 and 7.4 */
    for (int i = 0; i < 2; i++) {
        st_camera cam = {.position = {512.3f, 512.6f, 40.0f + heights[i]}, .yaw_deg = 0, .pitch_deg = -90};
        uint8_t *img = render_rgba_lit(e, "ray", ST_SHADING_TEXTURED, cam, W, H, false);
        detail[i] = fine_detail(img, W, H, 48);
        free(img);
    }
    printf("sand floor: fine detail %.2f levels from %.0f above, %.2f from %.0f above\n", detail[0],
           (double)heights[0], detail[1], (double)heights[1]);
    /* the near copy alone gave 0.71 and 0.20 levels here (lavapipe): its mips had averaged the sand away */
    if (!(detail[0] >= 1.2 && detail[1] >= 0.45))
        fail_msg("the distant floor is nearly one colour: fine detail %.2f and %.2f levels (want 1.2 and 0.45)",
                 detail[0], detail[1]);
    test_engine_finish(e, level);
}

static void test_paint_uploads_dirty_rect(void **state) {
    (void)state;
    st_level *level = test_flat_level(64, 64, 20);
    st_engine *e = test_engine(level);
    assert_null(st_engine_control_map(e)); /* nothing until textured shading asks */
    st_renderer *r = NULL;
    st_render_desc d = {.method = "ray", .width = 32, .height = 32, .shading = ST_SHADING_TEXTURED};
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    st_control_map *map = st_engine_control_map(e);
    assert_non_null(map);
    size_t bytes = (size_t)64 * 64 * 4;
    uint8_t *before = malloc(bytes), *gpu = malloc(bytes);
    memcpy(before, map->texels, bytes);
    st_rect dirty;
    st_control_map_paint(map, 40.0f, 12.0f, 4.0f, ST_MAT_SNOW, 1.0f, &dirty);
    assert_false(st_rect_empty(dirty));
    /* texels outside the stroke changed on the CPU too, but not sent: the GPU must keep the old ones */
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++)
            if (!(x >= dirty.x0 && x < dirty.x1 && y >= dirty.y0 && y < dirty.y1))
                map->texels[((size_t)y * 64 + (size_t)x) * 4 + 3] ^= 0x80;
    assert_st_ok(st_engine_update_control(e, dirty, err));
    st_rect sent = st_engine_control_last_upload(e);
    assert_memory_equal(&sent, &dirty, sizeof sent);
    assert_st_ok(st_gpu_image_read(e->gpu, &e->materials.control, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, gpu, err));
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            size_t i = ((size_t)y * 64 + (size_t)x) * 4;
            bool inside = x >= dirty.x0 && x < dirty.x1 && y >= dirty.y0 && y < dirty.y1;
            const uint8_t *want = inside ? map->texels + i : before + i;
            if (memcmp(gpu + i, want, 4))
                fail_msg("GPU control texel (%d, %d) is %u,%u,%u,%u, want %u,%u,%u,%u (%s the dirty rectangle)", x, y,
                         gpu[i], gpu[i + 1], gpu[i + 2], gpu[i + 3], want[0], want[1], want[2], want[3],
                         inside ? "inside" : "outside");
        }
    /* a rectangle past the map is clipped, an empty one sends nothing */
    assert_st_ok(st_engine_update_control(e, (st_rect){60, 60, 90, 90}, err));
    sent = st_engine_control_last_upload(e);
    assert_true(sent.x1 == 64 && sent.y1 == 64);
    st_renderer_destroy(r);
    free(before);
    free(gpu);
    test_engine_finish(e, level);
}

/* A Comanche-style pair: a flat floor whose colour map has four quadrants of distinct colours. Every method, flat
 * shaded, shows at each pixel the colour the C twin (st_shade_lit: the colour map's texel of the column the
 * pixel's ray meets, lit straight from above) gives it; textured, the floor keeps each quadrant's colour as its
 * mean (the materials tinted by the colour map). Pixels within 1.5 texels of a border are left out. */
static const uint8_t QUADRANT[4][3] = {{220, 40, 30}, {30, 200, 60}, {40, 60, 220}, {230, 210, 40}};

static int quadrant_of(float x, float y) { return (x >= 32.0f ? 1 : 0) + (y >= 32.0f ? 2 : 0); }

static void test_colour_map_is_the_albedo(void **state) {
    (void)state;
    st_level *level = test_flat_level(64, 64, 20);
    level->wrap_x = level->wrap_y = false;
    level->colors = malloc(64 * 64 * 3);
    assert_non_null(level->colors);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) memcpy(level->colors + (y * 64 + x) * 3, QUADRANT[quadrant_of((float)x, (float)y)], 3);
    st_engine *e = test_engine(level);
    const uint32_t W = 48, H = 48;
    st_camera cam = {.position = {32.3f, 31.6f, 20.0f + 45.0f}, .yaw_deg = 0, .pitch_deg = -90};
    st_view v = st_camera_view(&cam, W, H);
    st_shade_env env;
    st_shade_env_init(&env, level, v.eye, cam.far_dist);
    /* where each pixel's ray meets the floor, and the twin's colour there (no shadows: the sun's full share) */
    int *quad = malloc(sizeof(int) * W * H);
    uint8_t *want = malloc((size_t)W * H * 3);
    size_t kept = 0;
    for (uint32_t j = 0; j < H; j++)
        for (uint32_t i = 0; i < W; i++) {
            float dir[3], tn, tf;
            st_view_pixel_ray(&v, i, j, dir, &tn, &tf);
            float t = (20.0f - v.eye[2]) / dir[2], p[3] = {v.eye[0] + t * dir[0], v.eye[1] + t * dir[1], 20.0f};
            bool inner = fabsf(p[0] - 32.0f) > 1.5f && fabsf(p[1] - 32.0f) > 1.5f && p[0] > 1.5f && p[1] > 1.5f &&
                         p[0] < 62.5f && p[1] < 62.5f;
            quad[j * W + i] = inner ? quadrant_of(p[0], p[1]) : -1;
            kept += inner;
            float n[3] = {0, 0, 1}, rgb[3];
            st_shade_lit(&env, p, st_level_texel(level, (int)p[0], (int)p[1]), n, 1.0f, rgb);
            for (int k = 0; k < 3; k++) want[(j * W + i) * 3 + (uint32_t)k] = st_shade_srgb8(rgb[k]);
        }
    assert_true(kept > W * H / 2);
    const char *methods[] = {"ray", "ray-compute", "voxel", "voxel-compute", "slice", "slice-compute", "paint",
                             "paint-compute", "scatter", "scatter-plain", "voxelspace", "mesh", "mesh-compute"};
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
        uint8_t *img = render_rgba_lit(e, methods[m], ST_SHADING_FLAT, cam, W, H, false);
        int worst = 0;
        size_t bad = 0;
        for (uint32_t k = 0; k < W * H; k++) {
            if (quad[k] < 0) continue;
            int d = 0;
            for (int c = 0; c < 3; c++) {
                int dc = abs((int)img[k * 4 + (uint32_t)c] - (int)want[k * 3 + (uint32_t)c]);
                if (dc > d) d = dc;
            }
            if (d > worst) worst = d;
            bad += d > 2;
        }
        printf("%-14s flat: colour map's colour within %d levels of the twin's (%zu of %zu pixels over 2)\n",
               methods[m], worst, bad, kept);
        if (bad) fail_msg("%s: %zu pixels differ from the colour map's colour by more than 2 levels (worst %d)",
                          methods[m], bad, worst);
        free(img);
    }
    /* textured: each quadrant's mean is its colour map colour (the tint), within the texture's variation */
    for (size_t m = 0; m < 3; m++) {
        uint8_t *img = render_rgba_lit(e, methods[m * 5], ST_SHADING_TEXTURED, cam, W, H, false);
        for (int q = 0; q < 4; q++) {
            double got[3] = {0}, exp[3] = {0};
            size_t n = 0;
            for (uint32_t k = 0; k < W * H; k++)
                if (quad[k] == q) {
                    for (int c = 0; c < 3; c++)
                        got[c] += img[k * 4 + (uint32_t)c], exp[c] += want[k * 3 + (uint32_t)c];
                    n++;
                }
            for (int c = 0; c < 3; c++) {
                got[c] /= (double)n, exp[c] /= (double)n;
                if (fabs(got[c] - exp[c]) > 0.15 * exp[c] + 8)
                    fail_msg("%s textured: quadrant %d channel %d has mean %.1f, the colour map's %.1f", methods[m * 5],
                             q, c, got[c], exp[c]);
            }
            printf("%-14s textured: quadrant %d mean (%.0f, %.0f, %.0f), colour map's (%.0f, %.0f, %.0f)\n",
                   methods[m * 5], q, got[0], got[1], got[2], exp[0], exp[1], exp[2]);
        }
        free(img);
    }
    free(quad);
    free(want);
    test_engine_finish(e, level);
}

/* ---- fetches per pixel (ST_SHADING_FETCHES) ----------------------------------------------------------- */

static void test_fetches_per_pixel(void **state) {
    (void)state;
    st_level *level = NULL;
    assert_st_ok(st_fetch_scene_level(&level, err));
    st_engine *e = test_engine(level);
    const uint32_t W = 96, H = 64;
    st_camera cam = st_fetch_scene_camera();
    const char *methods[] = {"ray-compute", "mesh-compute", "mesh"};
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
        uint8_t *label = render_rgba_lit(e, methods[m], ST_SHADING_FLAT, cam, W, H, false);
        uint8_t *count = render_rgba_lit(e, methods[m], ST_SHADING_FETCHES, cam, W, H, false);
        st_fetch_tally t[2] = {{0}};
        size_t steep_on_cliff = 0, steep_on_floor = 0;
        for (uint32_t k = 0; k < W * H; k++) {
            int region = st_fetch_scene_region(label + k * 4);
            if (region < 0) continue;
            st_fetch_pixel p = st_fetch_pixel_decode(count + k * 4);
            st_fetch_tally_add(&t[region], p);
            steep_on_cliff += region == 1 && p.steep;
            steep_on_floor += region == 0 && p.steep;
        }
        printf("%-13s material fetches per pixel: floor max %d mean %.2f (%zu px), 80-degree cliff max %d mean %.2f "
               "(%zu px, %zu of them a side projection); map lookups at most %d\n", methods[m], t[0].max,
               st_fetch_tally_mean(&t[0]), t[0].count, t[1].max, st_fetch_tally_mean(&t[1]), t[1].count,
               steep_on_cliff, t[0].lookups_max > t[1].lookups_max ? t[0].lookups_max : t[1].lookups_max);
        assert_true(t[0].count > W * H / 8 && t[1].count > W * H / 8); /* both in the picture */
        /* counted at all: every textured pixel reads at least one layer's albedo and its control texel */
        assert_true(st_fetch_tally_mean(&t[0]) >= 1.0 && st_fetch_tally_mean(&t[1]) >= 1.0);
        /* the control map's texel and the colour map's */
        assert_int_equal(t[0].lookups_max, 2);
        assert_int_equal(t[1].lookups_max, 2);
        /* the floor reads the top projection alone; the cliff's column sides (most of its pixels) a side's */
        assert_int_equal(steep_on_floor, 0);
        assert_true(steep_on_cliff > t[1].count / 2);
        if (t[0].max > 8 || t[1].max > 12)
            fail_msg("%s: %d fetches on flat ground (at most 8), %d on the cliff (at most 12)", methods[m], t[0].max,
                     t[1].max);
        free(label);
        free(count);
    }
    test_engine_finish(e, level);
}

/* ---- no stretch on an 80° face ------------------------------------------------------------------------------ */

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* A store method's frame of cam, settled (every wanted tile resident and drawn at its level), read back. */
static uint8_t *render_store_settled(st_engine *e, const char *method, st_shading shading, st_camera cam, uint32_t w,
                                     uint32_t h) {
    st_renderer *r = NULL;
    st_render_desc d = {.method = method, .width = w, .height = h, .shading = shading};
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    uint32_t frames = 0;
    assert_st_ok(st_renderer_settle(r, &cam, 400, &frames, err));
    uint8_t *rgba = malloc((size_t)w * h * 4);
    assert_non_null(rgba);
    assert_st_ok(st_renderer_readback(r, rgba, NULL, err));
    st_renderer_destroy(r);
    return rgba;
}

/* The texel footprint's aspect (the fetch image's blue): its median over the centre 6×6 pixels, whose rays are
 * within a degree or two of the centre's, and the share of the centre size² window at most 1.5; returns the
 * share of the window that read a side projection. */
static double window_aspect(const uint8_t *count, uint32_t w, uint32_t h, uint32_t size, float *median,
                            double *within) {
    float a[36];
    size_t n = 0, all = 0, ok = 0, steep = 0;
    for (uint32_t y = h / 2 - size / 2; y < h / 2 + size / 2; y++)
        for (uint32_t x = w / 2 - size / 2; x < w / 2 + size / 2; x++) {
            st_fetch_pixel p = st_fetch_pixel_decode(count + ((size_t)y * w + x) * 4);
            if (x + 3 >= w / 2 && x < w / 2 + 3 && y + 3 >= h / 2 && y < h / 2 + 3) a[n++] = p.aspect;
            all++;
            ok += p.aspect <= 1.5f;
            steep += p.steep;
        }
    qsort(a, n, sizeof *a, cmp_float);
    *median = a[n / 2];
    *within = (double)ok / (double)all;
    return (double)steep / (double)all;
}

/* An 80° face seen square on (along its normal): the pixel's footprint on the face is round, so what the
 * texture's footprint has of an aspect is the projection's stretch. The side projection compresses the face's
 * slope direction by sin 80° (aspect 1/sin 80° = 1.0154); the top projection would by cos 80° (5.76). On a
 * tile store the face is the plane itself (z = 5.67·x, a DEM's normal); on a level it is a staircase of column
 * sides seen 10° off their normal (1/cos 10° = 1.0154 too) and tops seen 80° off theirs (about 3 % of its
 * pixels). Measured from the shader's own footprint (the fetch image) and from the rendered texture's gradients. */
static void test_no_stretch_on_80_degree_face(void **state) {
    (void)state;
    const double s80 = sin(80.0 * M_PI / 180.0), c80 = cos(80.0 * M_PI / 180.0), want = 1.0 / s80;
    const uint32_t W = 48, H = 48;
    /* the tile store: the plane z = 10 + tan 80° · x */
    analytic a = {.shape = SHAPE_TILT, .size = 129, .spacing = 1, .base = 10, .slope_x = s80 / c80};
    st_store *store = analytic_store(&a, 33, "materials-80");
    st_engine *se = store_engine(store, NULL);
    double mid_z = analytic_at(&a, 64, 64), d = 30;
    st_camera sc = store_camera(64 - d * s80, 64, mid_z + d * c80, 90, -10, 1000);
    uint8_t *count = render_store_settled(se, "cdlod", ST_SHADING_FETCHES, sc, W, H);
    uint8_t *img = render_store_settled(se, "cdlod", ST_SHADING_TEXTURED, sc, W, H);
    float median;
    double within;
    double steep = window_aspect(count, W, H, 24, &median, &within);
    double grad = gradient_aspect(img, W, W / 2 - 16, H / 2 - 16, 32);
    printf("80-degree plane (cdlod): texel footprint aspect median %.3f (want 1/sin 80 = %.3f), %.0f %% of the "
           "window <= 1.5, %.0f %% a side projection; rendered texture's gradient aspect %.2f\n", (double)median,
           want, 100 * within, 100 * steep, grad);
    assert_true(steep == 1.0);
    if (fabs(median - want) > 0.02) fail_msg("the 80-degree plane's footprint aspect is %.3f, want %.3f", (double)median, want);
    assert_true(within == 1.0);
    if (!(grad <= 1.5)) fail_msg("the 80-degree plane's texture is stretched: gradient aspect %.2f (at most 1.5)", grad);
    free(count);
    free(img);
    st_engine_destroy(se);
    st_store_close(store);

    /* the level's 80° cliff (the fetch scene's), from 40 units along the face's normal */
    st_level *level = NULL;
    assert_st_ok(st_fetch_scene_level(&level, err));
    st_engine *e = test_engine(level);
    st_camera cam = {.position = {(float)(145.6 - 40 * s80), 128.6f, (float)(120 + 40 * c80)}, .yaw_deg = 90,
                     .pitch_deg = -10};
    /* the mesh's materials lie on its 80° triangles (before, on the face of the column under each point: an
     * 80° triangle took a step's top projection wherever it passed within half a unit of that top, 21 % of the
     * window, and the rendered texture's gradient aspect was 1.69) */
    const char *methods[] = {"ray-compute", "mesh"};
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
        count = render_rgba_lit(e, methods[m], ST_SHADING_FETCHES, cam, W, H, false);
        img = render_rgba_lit(e, methods[m], ST_SHADING_TEXTURED, cam, W, H, false);
        steep = window_aspect(count, W, H, 24, &median, &within);
        grad = gradient_aspect(img, W, W / 2 - 16, H / 2 - 16, 32);
        printf("80-degree cliff (%s): texel footprint aspect median %.3f (want 1/cos 10 = %.3f), %.0f %% of the "
               "window <= 1.5, %.0f %% a side projection; rendered texture's gradient aspect %.2f\n", methods[m],
               (double)median, want, 100 * within, 100 * steep, grad);
        if (fabs(median - want) > 0.02)
            fail_msg("%s: the 80-degree cliff's footprint aspect is %.3f, want %.3f", methods[m], (double)median, want);
        assert_true(within >= 0.9 && steep >= 0.9);
        if (!(grad <= 1.5))
            fail_msg("%s: the 80-degree cliff's texture is stretched: gradient aspect %.2f (at most 1.5)", methods[m], grad);
        free(count);
        free(img);
    }
    test_engine_finish(e, level);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_method_same_floor_material),
        cmocka_unit_test(test_wall_side_projection),
        cmocka_unit_test(test_far_floor_keeps_its_texture),
        cmocka_unit_test(test_paint_uploads_dirty_rect),
        cmocka_unit_test(test_colour_map_is_the_albedo),
        cmocka_unit_test(test_fetches_per_pixel),
        cmocka_unit_test(test_no_stretch_on_80_degree_face),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
