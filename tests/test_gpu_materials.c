/* Textured shading on the GPU: every level method shows the same material at the centre pixel of a flat floor
 * (the one shading path, the footprint from the camera alone); a vertical wall takes the side projection (the
 * texture's gradients in the image are about as strong across as along the wall, where a top projection
 * would smear it into vertical streaks); a paint of the control map sends exactly its dirty rectangle to the
 * GPU; textured shading really textures (the floor is not one colour) and flat shading ignores the materials;
 * far away the floor still shows its material's pattern (the far copy). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A floor at 20 for x < 128, a cliff rising at 80° (tan 80° = 5.67 steps per texel) over x in [128, 163) and a
 * plateau at 220 behind it; its colour map labels the three (red, green, magenta) so a flat render says which
 * pixel shows which. */
static st_level *cliff_level(void) {
    st_level *l = test_flat_level(256, 256, 20);
    l->wrap_x = l->wrap_y = false;
    l->colors = malloc(256 * 256 * 3);
    assert_non_null(l->colors);
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++) {
            int h = x < 128 ? 20 : (int)fminf(220.0f, 20.0f + roundf((float)(x - 127) * 5.671f));
            st_level_set_single(l, x, y, (uint8_t)h, (uint8_t)(h >= 60 ? 3 : 2));
            uint8_t *c = l->colors + ((size_t)y * 256 + (size_t)x) * 3;
            c[0] = h < 21 || h >= 220 ? 255 : 0;
            c[1] = h >= 21 && h < 220 ? 255 : 0;
            c[2] = h >= 220 ? 255 : 0;
        }
    return l;
}

/* The count a channel holds: the linear value k / 32 through sRGB to 8 bits (materials.glsl, mat_fetch_colour). */
static int decode_count(uint8_t v) {
    int best = 0;
    for (int k = 1; k <= 32; k++)
        if (abs((int)st_shade_srgb8((float)k / 32.0f) - v) < abs((int)st_shade_srgb8((float)best / 32.0f) - v)) best = k;
    return best;
}

static void test_fetches_per_pixel(void **state) {
    (void)state;
    st_level *level = cliff_level();
    st_engine *e = test_engine(level);
    const uint32_t W = 96, H = 64;
    /* from over the floor toward the cliff, which fills the upper part of the image */
    st_camera cam = {.position = {20.3f, 128.6f, 70.0f}, .yaw_deg = 90, .pitch_deg = -14};
    const char *methods[] = {"ray-compute", "mesh-compute"};
    for (size_t m = 0; m < 2; m++) {
        uint8_t *label = render_rgba_lit(e, methods[m], ST_SHADING_FLAT, cam, W, H, false);
        uint8_t *count = render_rgba_lit(e, methods[m], ST_SHADING_FETCHES, cam, W, H, false);
        int most[2] = {0, 0}, lookups = 0;
        double sum[2] = {0, 0};
        size_t n[2] = {0, 0};
        for (uint32_t k = 0; k < W * H; k++) {
            const uint8_t *c = label + k * 4;
            int region = c[0] > 60 && c[1] < 20 && c[2] < 20 ? 0 : c[1] > 60 && c[0] < 20 && c[2] < 20 ? 1 : -1;
            if (region < 0) continue;
            int taps = decode_count(count[k * 4]);
            most[region] = taps > most[region] ? taps : most[region];
            sum[region] += taps;
            n[region]++;
            int look = decode_count(count[k * 4 + 1]);
            lookups = look > lookups ? look : lookups;
        }
        printf("%-13s material fetches per pixel: floor max %d mean %.2f (%zu px), 80-degree cliff max %d mean %.2f "
               "(%zu px); map lookups at most %d\n", methods[m], most[0], n[0] ? sum[0] / (double)n[0] : 0, n[0],
               most[1], n[1] ? sum[1] / (double)n[1] : 0, n[1], lookups);
        assert_true(n[0] > W * H / 8 && n[1] > W * H / 8); /* both in the picture */
        /* counted at all: every textured pixel reads at least one layer's albedo and its control texel */
        assert_true(sum[0] / (double)n[0] >= 1.0 && sum[1] / (double)n[1] >= 1.0);
        assert_int_equal(lookups, 2); /* the control map's texel and the colour map's */
        if (most[0] > 8 || most[1] > 12)
            fail_msg("%s: %d fetches on flat ground (at most 8), %d on the cliff (at most 12)", methods[m], most[0],
                     most[1]);
        free(label);
        free(count);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
