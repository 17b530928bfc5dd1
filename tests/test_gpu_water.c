/* GPU tests of the water (lavapipe, validation on), against known answers: the compute FFT equals a direct DFT
 * (16², 64²), heights come out real, a single wave's phase speed is √(g/k), the Jacobian folds where a choppy
 * wave folds and the foam appears there and decays with e^{−dt/τ}, the GPU fields match the CPU query to 1 cm,
 * the rendered Gerstner surface matches st_water_height, and the water composes with every terrain method —
 * pixels of terrain above the water are unchanged, pixels over water show water. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_store.h"
#include "render/passes/ocean_gpu.h"
#include "render/render_internal.h"
#include "strata/water.h"
#include "support.h"
#include "water/water_internal.h"

#define PI 3.14159265358979323846

static st_water *make_water(st_water_desc d) {
    st_water *w = NULL;
    assert_st_ok(st_water_create(&d, &w, err));
    return w;
}

/* One step of the GPU ocean at time t, waited for. */
static void gpu_step(st_engine *e, st_ocean_gpu *o, double t, double dt, float lambda, bool fresh) {
    VkCommandBuffer cmd;
    assert_st_ok(st_gpu_once_begin(e->gpu, &cmd, err));
    st_ocean_gpu_record(o, cmd, t, dt, lambda, 2.5f, fresh);
    assert_st_ok(st_gpu_once_submit(e->gpu, cmd, err));
}

/* The four packed channels of one texel at time 0 (h̃ = h0(k) + conj(h0(−k))), as ocean_rows.comp builds them. */
static void packed_channels(const st_water *w, uint32_t N, uint32_t i, uint32_t j, double dk, uint32_t packing,
                            double out[8]) {
    const float *h0 = st_water_h0(w, 0);
    size_t p = (size_t)j * N + i, m = (size_t)((N - j) % N) * N + (N - i) % N;
    double ht[2] = {h0[2 * p] + h0[2 * m], h0[2 * p + 1] - h0[2 * m + 1]};
    double kx = ((double)i - N / 2) * dk, ky = ((double)j - N / 2) * dk, k = sqrt(kx * kx + ky * ky);
    memset(out, 0, 8 * sizeof *out);
    if (!(k > 0)) return;
    /* (α + iβ)·h̃ for the pairs (Dx, Dy), (h, ∂Dx/∂y), (∂h/∂x, ∂h/∂y), (∂Dx/∂x, ∂Dy/∂y) */
    double c[4][2] = {{-ky / k, kx / k}, {1, -kx * ky / k}, {-ky, kx}, {-kx * kx / k, -ky * ky / k}};
    if (packing == 1) c[1][0] = 1, c[1][1] = 0;
    for (int q = 0; q < 4; q++) {
        out[2 * q] = c[q][0] * ht[0] - c[q][1] * ht[1];
        out[2 * q + 1] = c[q][0] * ht[1] + c[q][1] * ht[0];
    }
}

static void check_fft_against_dft(st_engine *e, uint32_t N) {
    st_water *w = make_water((st_water_desc){.mode = ST_WATER_OCEAN, .fft_size = N, .cascades = 1, .patch_m = {40}});
    srand(N * 7);
    for (size_t p = 0; p < (size_t)N * N * 2; p++) w->h0[0][p] = (float)rand() / RAND_MAX - 0.5f; /* any spectrum */
    st_ocean_gpu *o = NULL;
    assert_st_ok(st_ocean_gpu_create(e->gpu, w, &o, err));
    gpu_step(e, o, 0.0, 0.0, 1.0f, true);
    float *got = malloc(sizeof(float) * 8 * N * N);
    assert_st_ok(st_ocean_gpu_read_transform(o, 0, got, err));
    double dk = 2 * PI / 40.0;
    double *in = malloc(sizeof(double) * 8 * N * N);
    for (uint32_t j = 0; j < N; j++)
        for (uint32_t i = 0; i < N; i++) packed_channels(w, N, i, j, dk, 0, in + 8 * (j * N + i));
    double worst[4] = {0}, scale[4] = {0};
    for (uint32_t y = 0; y < N; y++)
        for (uint32_t x = 0; x < N; x++) {
            double acc[8] = {0};
            for (uint32_t v = 0; v < N; v++)
                for (uint32_t u = 0; u < N; u++) {
                    double ph = 2 * PI * (double)((u * x + v * y) % N) / N, co = cos(ph), si = sin(ph);
                    const double *q = in + 8 * (v * N + u);
                    for (int c = 0; c < 4; c++) {
                        acc[2 * c] += q[2 * c] * co - q[2 * c + 1] * si;
                        acc[2 * c + 1] += q[2 * c] * si + q[2 * c + 1] * co;
                    }
                }
            const float *g = got + 8 * (y * N + x);
            for (int c = 0; c < 4; c++)
                for (int k = 0; k < 2; k++) {
                    worst[c] = fmax(worst[c], fabs(g[2 * c + k] - acc[2 * c + k]));
                    scale[c] = fmax(scale[c], fabs(acc[2 * c + k]));
                }
        }
    for (int c = 0; c < 4; c++)
        if (!(worst[c] <= 1e-4 * scale[c])) fail_msg("%u²: transform %d differs from the DFT by %g of %g", N, c, worst[c], scale[c]);
    free(in);
    free(got);
    st_ocean_gpu_destroy(o);
    st_water_destroy(w);
}

static void test_fft_matches_dft(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 10);
    st_engine *e = test_engine(l);
    check_fft_against_dft(e, 16);
    check_fft_against_dft(e, 64);
    test_engine_finish(e, l);
}

static void test_heights_are_real(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 10);
    st_engine *e = test_engine(l);
    st_water *w = make_water((st_water_desc){.mode = ST_WATER_OCEAN, .fft_size = 64, .wind_speed = 9});
    st_ocean_gpu *o = NULL;
    assert_st_ok(st_ocean_gpu_create(e->gpu, w, &o, err));
    st_ocean_gpu_set_test_packing(o, 1); /* h alone in transform 1: its imaginary part is the height's own */
    gpu_step(e, o, 2.3, 0.0, 1.0f, true);
    float *got = malloc(sizeof(float) * 8 * 64 * 64);
    for (uint32_t c = 0; c < st_water_cascade_count(w); c++) {
        assert_st_ok(st_ocean_gpu_read_transform(o, c, got, err));
        double im = 0, re = 0;
        for (size_t p = 0; p < 64 * 64; p++) {
            re = fmax(re, fabs(got[8 * p + 2]));
            im = fmax(im, fabs(got[8 * p + 3]));
        }
        assert_true(re > 0);
        if (!(im <= 1e-6 * re)) fail_msg("cascade %u: imaginary height %g of %g", c, im, re);
    }
    free(got);
    st_ocean_gpu_destroy(o);
    st_water_destroy(w);
    test_engine_finish(e, l);
}

/* An ocean of one cascade holding the single wave h = A·cos(k·x − ωt), k = n0·2π/L along +x. */
static st_water *single_wave_over(uint32_t N, float L, int n0, float A, float depth_m) {
    st_water *w = make_water((st_water_desc){.mode = ST_WATER_OCEAN, .fft_size = N, .cascades = 1, .patch_m = {L},
                                             .depth_m = depth_m});
    memset(w->h0[0], 0, sizeof(float) * 2 * N * N);
    w->h0[0][2 * ((size_t)(N / 2) * N + N / 2 + n0)] = A / 2;
    return w;
}

static st_water *single_wave(uint32_t N, float L, int n0, float A) { return single_wave_over(N, L, n0, A, 0); }

/* The GPU's displacement texture of cascade c (N² × (λDx, λDy, h, J)) and surface texture (RGBA16F, as floats). */
static void read_textures(st_ocean_gpu *o, st_engine *e, uint32_t c, float *disp, float *surf) {
    st_gpu_image *d = st_ocean_gpu_disp(o), *s = st_ocean_gpu_surf(o);
    if (disp) assert_st_ok(st_gpu_image_read_layer(e->gpu, d, c, VK_IMAGE_LAYOUT_GENERAL, disp, err));
    if (surf) {
        uint16_t *half = malloc((size_t)s->width * s->height * 8);
        assert_st_ok(st_gpu_image_read_layer(e->gpu, s, c, VK_IMAGE_LAYOUT_GENERAL, half, err));
        for (size_t i = 0; i < (size_t)s->width * s->height * 4; i++) {
            uint16_t hb = half[i];
            int ex = (hb >> 10) & 31, mant = hb & 1023;
            float v = ex == 0 ? ldexpf((float)mant, -24) : ldexpf((float)(mant | 1024), ex - 25);
            surf[i] = (hb & 0x8000) ? -v : v;
        }
        free(half);
    }
}

static double row_phase(const float *disp, uint32_t N, int n0) {
    double c = 0, s = 0;
    for (uint32_t i = 0; i < N; i++) {
        double a = 2 * PI * n0 * (double)i / N;
        c += disp[4 * i + 2] * cos(a);
        s += disp[4 * i + 2] * sin(a);
    }
    return atan2(s, c);
}

static void test_dispersion_phase_speed(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 10);
    st_engine *e = test_engine(l);
    const uint32_t N = 64;
    float *disp = malloc(sizeof(float) * 4 * N * N);
    for (int n0 = 2; n0 <= 16; n0 *= 4) {
        float depth = n0 == 2 ? 3.0f : 0.0f; /* the long wave over 3 m of water: √(g/k·tanh(k·h)) */
        st_water *w = single_wave_over(N, 100.0f, n0, 0.5f, depth);
        st_ocean_gpu *o = NULL;
        assert_st_ok(st_ocean_gpu_create(e->gpu, w, &o, err));
        double k = 2 * PI * n0 / 100.0, t1 = 1.0, t2 = t1 + 0.2 * 2 * PI / st_water_dispersion(k, depth);
        gpu_step(e, o, t1, 0, 1.0f, true);
        read_textures(o, e, 0, disp, NULL);
        double p1 = row_phase(disp, N, n0);
        gpu_step(e, o, t2, t2 - t1, 1.0f, false);
        read_textures(o, e, 0, disp, NULL);
        double dp = row_phase(disp, N, n0) - p1;
        while (dp < 0) dp += 2 * PI;
        double c = dp / k / (t2 - t1), want = st_water_dispersion(k, depth) / k;
        if (!(fabs(c - want) <= 0.01 * want))
            fail_msg("k = %g over %g m: phase speed %g, want ω(k)/k = %g", k, depth, c, want);
        st_ocean_gpu_destroy(o);
        st_water_destroy(w);
    }
    free(disp);
    test_engine_finish(e, l);
}

/* h = A cos θ with λkA > 1 folds where cos θ > 1/(λkA): J = 1 − λkA·cos θ < 0 exactly there; the foam is full
 * where J ≤ 0.25, then, with the folds gone (λ = 0), fades by e^{−dt/τ} per step. */
static void test_foam_from_folds_decays(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 10);
    st_engine *e = test_engine(l);
    const uint32_t N = 64;
    const float L = 64.0f, A = 2.0f, lambda = 1.5f;
    const int n0 = 4;
    st_water *w = single_wave(N, L, n0, A);
    st_ocean_gpu *o = NULL;
    assert_st_ok(st_ocean_gpu_create(e->gpu, w, &o, err));
    double k = 2 * PI * n0 / L, t = 0.6, om = st_water_omega(w, 0)[(N / 2) * N + N / 2 + n0];
    gpu_step(e, o, t, 0, lambda, true);
    float *disp = malloc(sizeof(float) * 4 * N * N), *surf = malloc(sizeof(float) * 4 * N * N);
    read_textures(o, e, 0, disp, surf);
    int folded = 0, foamed = 0;
    for (uint32_t j = 0; j < N; j++)
        for (uint32_t i = 0; i < N; i++) {
            size_t p = 4 * ((size_t)j * N + i);
            double th = k * (double)i * L / N - om * t, want = 1 - lambda * k * A * cos(th);
            float J = disp[p + 3];
            if (!(fabs(J - want) < 1e-3)) fail_msg("J(%u, %u) = %g, want %g", i, j, J, want);
            if (fabs(want) > 1e-2 && ((J < 0) != (want < 0))) fail_msg("fold at (%u, %u): J %g, want %g", i, j, J, want);
            folded += J < 0;
            if (want <= 0.24) {
                if (!(surf[p + 3] > 0.99f)) fail_msg("no foam where J = %g", want);
                foamed++;
            }
            if (want >= 0.81 && surf[p + 3] != 0.0f) fail_msg("foam %g where J = %g", surf[p + 3], want);
        }
    assert_true(folded > 0 && foamed > 0);
    /* the folds gone: the foam fades, 1 s per step with τ = 2.5 s */
    for (int step = 1; step <= 2; step++) {
        gpu_step(e, o, t + step, 1.0, 0.0f, false);
        read_textures(o, e, 0, NULL, surf);
        double want = exp(-step / 2.5);
        for (uint32_t i = 0; i < N; i++) {
            double th = k * (double)i * L / N - om * t;
            if (1 - lambda * k * A * cos(th) > 0.24) continue;
            if (!(fabs(surf[4 * i + 3] - want) < 5e-3)) fail_msg("step %d: foam %g, want %g", step, surf[4 * i + 3], want);
        }
    }
    free(disp);
    free(surf);
    st_ocean_gpu_destroy(o);
    st_water_destroy(w);
    test_engine_finish(e, l);
}

/* The GPU's fields, sampled bilinearly as the shaders sample them, against st_water_displace at random points
 * and times: within 1 cm. */
static void test_cpu_query_matches_gpu(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 10);
    st_engine *e = test_engine(l);
    const uint32_t N = 64;
    st_water *w = make_water((st_water_desc){.mode = ST_WATER_OCEAN, .fft_size = N, .wind_speed = 9, .choppiness = 1.2f});
    uint32_t C = st_water_cascade_count(w);
    st_ocean_gpu *o = NULL;
    assert_st_ok(st_ocean_gpu_create(e->gpu, w, &o, err));
    float *disp = malloc(sizeof(float) * 4 * N * N * C);
    srand(11);
    double worst = 0;
    for (int it = 0; it < 4; it++) {
        double t = 0.5 + 37.3 * it + (double)rand() / RAND_MAX;
        gpu_step(e, o, t, 0, st_water_choppiness(w), true);
        for (uint32_t c = 0; c < C; c++) read_textures(o, e, c, disp + (size_t)4 * N * N * c, NULL);
        for (int q = 0; q < 25; q++) {
            double x = (double)rand() / RAND_MAX * 2000 - 1000, y = (double)rand() / RAND_MAX * 2000 - 1000;
            float cpu[3];
            assert_st_ok(st_water_displace(w, t, x, y, cpu, err));
            double gpu[3] = {x, y, 0};
            for (uint32_t c = 0; c < C; c++) {
                st_water_cascade cs = st_water_cascade_at(w, c);
                double gx = x / cs.patch_m * N, gy = y / cs.patch_m * N, fx = gx - floor(gx), fy = gy - floor(gy);
                int64_t ix = (int64_t)floor(gx), iy = (int64_t)floor(gy);
                for (int k = 0; k < 4; k++) {
                    size_t tx = (size_t)((ix + (k & 1)) & (N - 1)), ty = (size_t)((iy + (k >> 1)) & (N - 1));
                    double wgt = ((k & 1) ? fx : 1 - fx) * ((k >> 1) ? fy : 1 - fy);
                    const float *v = disp + (size_t)4 * N * N * c + 4 * (ty * N + tx);
                    for (int a = 0; a < 3; a++) gpu[a] += wgt * v[a];
                }
            }
            for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(gpu[a] - cpu[a]));
        }
    }
    if (!(worst <= 0.01)) fail_msg("the CPU query is %g m from the GPU field", worst);
    free(disp);
    st_ocean_gpu_destroy(o);
    st_water_destroy(w);
    test_engine_finish(e, l);
}

/* ---- the pass ---------------------------------------------------------------------------------------- */

/* 128²: land at 20 (sand), a basin [40, 88)² of water stand-ins (material 0 at 0) holding a sand bar [56, 72)²
 * at height 0 (a real bed half a step under the surface), a slab over land at [8, 24)². */
static st_level *basin_level(void) {
    st_level *l = test_flat_level(128, 128, 20);
    for (int y = 40; y < 88; y++)
        for (int x = 40; x < 88; x++) {
            bool bar = x >= 56 && x < 72 && y >= 56 && y < 72;
            st_level_set_single(l, x, y, 0, bar ? 1 : 0);
        }
    for (int y = 8; y < 24; y++)
        for (int x = 8; x < 24; x += 2) st_level_set_dual(l, x, y, 20, 60, 70, 2, 3);
    return l;
}

static void render_drawn(st_engine *e, const char *method, st_water_mode mode, st_water_draw draw, st_camera cam,
                         uint32_t W, uint32_t H, uint8_t *rgba, float *depth) {
    st_render_desc d = {.method = method, .width = W, .height = H,
                        .water = {.mode = mode, .draw = draw, .fft_size = 64, .wind_speed = 10}};
    st_renderer *r = NULL;
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    st_renderer_set_time(r, 1.5);
    st_frame_timing t;
    assert_st_ok(st_renderer_draw(r, &cam, &t, err));
    assert_st_ok(st_renderer_readback(r, rgba, depth, err));
    /* the water's passes are timed by name like every other, last in the frame: the ocean's simulation, then
     * the surface; a frame without water has neither */
    uint32_t n = t.pass_count, sims = 0, surfaces = 0;
    for (uint32_t i = 0; i < n; i++) {
        assert_non_null(t.passes[i].name);
        sims += strcmp(t.passes[i].name, "water-sim") == 0;
        surfaces += strcmp(t.passes[i].name, "water") == 0;
    }
    assert_int_equal(sims, mode == ST_WATER_OCEAN ? 1 : 0);
    assert_int_equal(surfaces, mode == ST_WATER_NONE ? 0 : 1);
    if (mode != ST_WATER_NONE) assert_string_equal(t.passes[n - 1].name, "water");
    if (mode == ST_WATER_OCEAN) assert_string_equal(t.passes[n - 2].name, "water-sim");
    if (mode == ST_WATER_NONE) assert_null(st_renderer_water(r));
    else assert_non_null(st_renderer_water(r));
    st_renderer_destroy(r);
}

static void render(st_engine *e, const char *method, st_water_mode mode, st_camera cam, uint32_t W, uint32_t H,
                   uint8_t *rgba, float *depth) {
    render_drawn(e, method, mode, ST_WATER_DRAW_COMPUTE, cam, W, H, rgba, depth);
}

/* The compute rasteriser and resolve draw the picture the hardware rasteriser and fragment shaders draw: over
 * both kinds of target, both surfaces, from high and from low over the water, colours within 2 levels but at
 * 1 pixel in 200 (which triangle covers a pixel's centre, and the footprint of the filters, come from different
 * arithmetic; with per-pixel forward differences for the footprint instead of the quad's, 6 % of the pixels were
 * off, the sun's glitter most), a mean difference under 0.3 levels, and the depths within 1e-5. */
static void test_compute_draw_matches_raster(void **state) {
    (void)state;
    st_level *l = basin_level();
    st_engine *e = test_engine(l);
    const uint32_t W = 64, H = 40;
    st_camera cams[2] = {{.position = {64, 4, 45}, .yaw_deg = 0, .pitch_deg = -38},
                         {.position = {60, 44, 3}, .yaw_deg = 10, .pitch_deg = -12}}; /* low over the basin */
    uint8_t *c0 = malloc(W * H * 4), *c1 = malloc(W * H * 4);
    float *d0 = malloc(W * H * sizeof(float)), *d1 = malloc(W * H * sizeof(float));
    const char *methods[2] = {"ray", "ray-compute"};
    const st_water_mode modes[2] = {ST_WATER_GERSTNER, ST_WATER_OCEAN};
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 2; k++)
            for (int c = 0; c < 2; c++) {
                render_drawn(e, methods[m], modes[k], ST_WATER_DRAW_RASTER, cams[c], W, H, c0, d0);
                render_drawn(e, methods[m], modes[k], ST_WATER_DRAW_COMPUTE, cams[c], W, H, c1, d1);
                st_view v = st_camera_view(&cams[c], W, H);
                int off = 0, depth_off = 0, water = 0;
                double sum = 0;
                for (size_t p = 0; p < (size_t)W * H; p++) {
                    float hit[3];
                    if (!isnan(test_pixel_hit(&v, d1, (uint32_t)(p % W), (uint32_t)(p / W), hit)) && fabsf(hit[2] - 0.5f) < 1.0f)
                        water++;
                    int worst = 0;
                    for (int ch = 0; ch < 3; ch++) {
                        int diff = abs(c0[4 * p + ch] - c1[4 * p + ch]);
                        worst = diff > worst ? diff : worst;
                    }
                    sum += worst;
                    if (worst > 2) off++;
                    if (d0[p] > 0 && d1[p] > 0 && fabsf(d0[p] - d1[p]) > 1e-5f * d0[p]) depth_off++;
                }
                const char *what = st_water_mode_name(modes[k]);
                if (water < (int)(W * H) / 64) fail_msg("%s + %s, camera %d: %d water pixels", methods[m], what, c, water);
                if (off > (int)(W * H) / 200 || depth_off > (int)(W * H) / 200 || sum / (W * H) > 0.3)
                    fail_msg("%s + %s, camera %d: %d pixels off by more than 2 levels, %d depths off, mean %.3f",
                             methods[m], what, c, off, depth_off, sum / (W * H));
                print_message("%s + %s, camera %d: %d water pixels; %d of %u off by more than 2 levels, %d depths, "
                              "mean %.3f\n", methods[m], what, c, water, off, W * H, depth_off, sum / (W * H));
            }
    free(c0);
    free(c1);
    free(d0);
    free(d1);
    test_engine_finish(e, l);
}

static void test_water_composes_with_every_method(void **state) {
    (void)state;
    st_level *l = basin_level();
    st_engine *e = test_engine(l);
    const uint32_t W = 48, H = 30;
    st_camera cam = {.position = {64, 4, 45}, .yaw_deg = 0, .pitch_deg = -38};
    st_view v = st_camera_view(&cam, W, H);
    uint8_t *c0 = malloc(W * H * 4), *c1 = malloc(W * H * 4);
    float *d0 = malloc(W * H * sizeof(float)), *d1 = malloc(W * H * sizeof(float));
    for (size_t m = 0; m < st_method_count(); m++) {
        const char *method = st_method_at(m)->name;
        render(e, method, ST_WATER_NONE, cam, W, H, c0, d0);
        st_water_mode modes[2] = {ST_WATER_GERSTNER, ST_WATER_OCEAN};
        for (int k = 0; k < (m < 2 ? 2 : 1); k++) { /* the ocean over both kinds of target (ray, ray-compute) */
            render(e, method, modes[k], cam, W, H, c1, d1);
            int land = 0, water = 0;
            for (uint32_t j = 0; j < H; j++)
                for (uint32_t i = 0; i < W; i++) {
                    size_t p = (size_t)j * W + i;
                    float hit[3];
                    float dist = test_pixel_hit(&v, d0, i, j, hit);
                    if (isnan(dist)) continue;
                    if (hit[2] >= 5.0f) { /* terrain well above any wave */
                        if (memcmp(c0 + 4 * p, c1 + 4 * p, 4) || d0[p] != d1[p])
                            fail_msg("%s + %s: land pixel (%u, %u) at z %.1f changed", method,
                                     st_water_mode_name(modes[k]), i, j, hit[2]);
                        land++;
                    } else if (hit[2] <= 0.01f) { /* the basin: water over it */
                        float whit[3];
                        float wd = test_pixel_hit(&v, d1, i, j, whit);
                        if (isnan(wd) || fabsf(whit[2] - 0.5f) > 1.0f)
                            fail_msg("%s + %s: no water at (%u, %u): depth z %.2f", method,
                                     st_water_mode_name(modes[k]), i, j, whit[2]);
                        if (!memcmp(c0 + 4 * p, c1 + 4 * p, 3))
                            fail_msg("%s + %s: pixel (%u, %u) over water unchanged", method, st_water_mode_name(modes[k]), i, j);
                        water++;
                    }
                }
            if (land < 20 || water < 20) fail_msg("%s: %d land and %d water pixels in view", method, land, water);
        }
    }
    free(c0);
    free(c1);
    free(d0);
    free(d1);
    test_engine_finish(e, l);
}

/* An eye under the surface (the basin flooded to 10.5, the eye at 5 over its bed at 0, looking up a little):
 * the bed is seen through the water — every pixel of it nearer the water's own colour than without water, the
 * farther the nearer — and the surface above shows, seen from below, at its height. */
static void test_underwater_view(void **state) {
    (void)state;
    st_level *l = basin_level();
    for (int y = 40; y < 88; y++)
        for (int x = 40; x < 88; x++) st_level_set_single(l, x, y, 0, 1); /* a bed, not stand-ins */
    st_engine *e = test_engine(l);
    const uint32_t W = 48, H = 32;
    st_camera cam = {.position = {64, 45, 5}, .yaw_deg = 0, .pitch_deg = 10};
    st_view v = st_camera_view(&cam, W, H);
    uint8_t *c0 = malloc(W * H * 4), *c1 = malloc(W * H * 4);
    float *d0 = malloc(W * H * sizeof(float)), *d1 = malloc(W * H * sizeof(float));
    const char *methods[2] = {"ray", "ray-compute"};
    const double deep[3] = {0.008, 0.055, 0.075}; /* water.c's deep colour (linear) */
    for (int m = 0; m < 2; m++) {
        for (int k = 0; k < 2; k++) {
            st_render_desc d = {.method = methods[m], .width = W, .height = H,
                                .water = {.mode = k ? ST_WATER_OCEAN : ST_WATER_NONE, .fft_size = 64, .level = 10.5f}};
            st_renderer *r = NULL;
            assert_st_ok(st_renderer_create(e, &d, &r, err));
            assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
            assert_st_ok(st_renderer_readback(r, k ? c1 : c0, k ? d1 : d0, err));
            st_renderer_destroy(r);
        }
        int bed = 0, surface = 0;
        for (uint32_t j = 0; j < H; j++)
            for (uint32_t i = 0; i < W; i++) {
                size_t p = (size_t)j * W + i;
                float hit[3];
                if (!isnan(test_pixel_hit(&v, d1, i, j, hit)) && fabsf(hit[2] - 10.5f) < 1.0f) surface++;
                if (isnan(test_pixel_hit(&v, d0, i, j, hit)) || hit[2] > 1.0f) continue;
                double before = 0, after = 0;
                for (int ch = 0; ch < 3; ch++) {
                    double want = 255 * (deep[ch] <= 0.0031308 ? 12.92 * deep[ch] : 1.055 * pow(deep[ch], 1 / 2.4) - 0.055);
                    before += fabs(c0[4 * p + ch] - want);
                    after += fabs(c1[4 * p + ch] - want);
                }
                if (!(after < before)) fail_msg("%s: bed pixel (%u, %u) not seen through water", methods[m], i, j);
                bed++;
            }
        print_message("%s: %d bed pixels, %d of the surface\n", methods[m], bed, surface);
        if (bed < 100 || surface < 40) fail_msg("%s: %d bed and %d surface pixels", methods[m], bed, surface);
    }
    free(c0);
    free(c1);
    free(d0);
    free(d1);
    test_engine_finish(e, l);
}

/* Water over a DEM store (camera-relative, metres, the store's sea level): a tilted plane from 20 m below the sea
 * to 40 m above it, seen along its coast, by both store methods. Pixels of land 5 m
 * above the sea are unchanged; pixels whose terrain is 3 m under it show the water's surface within 1.5 m of
 * the sea level, in another colour. */
static void test_water_over_a_store(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_TILT, .size = 129, .spacing = 8, .base = -20, .slope_x = 60.0 / 1024};
    st_store *store = analytic_store(&a, 65, "water_store");
    st_engine *e = store_engine(store, &(st_world_desc){.gpu_slots = 64});
    const uint32_t W = 48, H = 32;
    double coast = 20.0 / a.slope_x; /* x of the coast */
    st_camera cam = store_camera(coast, 150, 60, 0, -35, 1500);
    st_view v = st_camera_view(&cam, W, H);
    const char *methods[2] = {"cdlod", "cdlod-compute"};
    float *d0 = malloc(W * H * sizeof(float)), *d1 = malloc(W * H * sizeof(float));
    uint8_t *c0 = malloc(W * H * 4), *c1 = malloc(W * H * 4);
    for (int m = 0; m < 2; m++) {
        for (int k = 0; k < 2; k++) {
            st_render_desc d = {.method = methods[m], .width = W, .height = H,
                                .water = {.mode = k ? ST_WATER_OCEAN : ST_WATER_NONE, .fft_size = 64, .wind_speed = 8}};
            st_renderer *r = NULL;
            assert_st_ok(st_renderer_create(e, &d, &r, err));
            st_renderer_set_time(r, 2.0);
            uint32_t frames = 0;
            assert_st_ok(st_renderer_settle(r, &cam, 400, &frames, err));
            assert_st_ok(st_renderer_readback(r, k ? c1 : c0, k ? d1 : d0, err));
            if (k) assert_true(st_water_get_desc(st_renderer_water(r))->level == 0.0f); /* the store's sea level */
            st_renderer_destroy(r);
        }
        int land = 0, sea = 0;
        for (uint32_t j = 0; j < H; j++)
            for (uint32_t i = 0; i < W; i++) {
                size_t p = (size_t)j * W + i;
                float hit[3], whit[3];
                if (isnan(test_pixel_hit(&v, d0, i, j, hit))) continue;
                double ground = analytic_at(&a, hit[0], hit[1]); /* world metres (the view's eye is the world's) */
                if (ground >= 5) {
                    if (memcmp(c0 + 4 * p, c1 + 4 * p, 4) || d0[p] != d1[p])
                        fail_msg("%s: land pixel (%u, %u) at %.1f m changed", methods[m], i, j, ground);
                    land++;
                } else if (ground <= -3) {
                    if (isnan(test_pixel_hit(&v, d1, i, j, whit)))
                        fail_msg("%s: nothing at (%u, %u) over the sea", methods[m], i, j);
                    double wz = whit[2];
                    if (fabs(wz) > 1.5) fail_msg("%s: water at (%u, %u) is at %.2f m", methods[m], i, j, wz);
                    if (!memcmp(c0 + 4 * p, c1 + 4 * p, 3)) fail_msg("%s: sea pixel (%u, %u) unchanged", methods[m], i, j);
                    sea++;
                }
            }
        print_message("%s: %d land and %d sea pixels\n", methods[m], land, sea);
        if (land < 100 || sea < 100) fail_msg("%s: %d land and %d sea pixels in view", methods[m], land, sea);
    }
    free(d0);
    free(d1);
    free(c0);
    free(c1);
    st_engine_destroy(e);
    st_store_close(store);
}

/* Over open water every pixel that sees the (stand-in) sea floor shows water: no crack between triangles or rings.
 * (A vertex's displacement once depended on which other vertices shared its batch — textureSize at a level
 * that varies between invocations — and the grid split along lattice lines.) */
static void test_water_is_watertight(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 0);
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++) st_level_set_single(l, x, y, 0, 0);
    st_engine *e = test_engine(l);
    const uint32_t W = 320, H = 200;
    st_camera cams[2] = {{.position = {100, 100, 60}, .yaw_deg = 45, .pitch_deg = -90},
                         {.position = {100, 100, 12}, .yaw_deg = 30, .pitch_deg = -30}};
    float *d0 = malloc(W * H * sizeof(float)), *d1 = malloc(W * H * sizeof(float));
    const char *methods[2] = {"ray", "ray-compute"};
    for (int m = 0; m < 2; m++)
        for (int c = 0; c < 2; c++) {
            st_view v = st_camera_view(&cams[c], W, H);
            render(e, methods[m], ST_WATER_NONE, cams[c], W, H, NULL, d0);
            render(e, methods[m], ST_WATER_OCEAN, cams[c], W, H, NULL, d1);
            int holes = 0, sea = 0;
            for (uint32_t j = 0; j < H; j++)
                for (uint32_t i = 0; i < W; i++) {
                    float hit[3];
                    if (isnan(test_pixel_hit(&v, d0, i, j, hit))) continue;
                    sea++;
                    if (isnan(test_pixel_hit(&v, d1, i, j, hit)) || hit[2] < 0.02f) holes++;
                }
            if (holes || sea < 1000) fail_msg("%s, camera %d: %d of %d sea pixels without water", methods[m], c, holes, sea);
        }
    free(d0);
    free(d1);
    test_engine_finish(e, l);
}

/* Top-down over the basin: the rendered Gerstner surface (from its depth) against st_water_height, within 1 cm. */
static void test_rendered_gerstner_matches_query(void **state) {
    (void)state;
    st_level *l = basin_level();
    st_engine *e = test_engine(l);
    const uint32_t W = 40, H = 24;
    st_render_desc d = {.method = "ray-compute", .width = W, .height = H,
                        .water = {.mode = ST_WATER_GERSTNER, .gerstner_waves = 3, .wind_speed = 8, .wind_dir_deg = 30}};
    st_renderer *r = NULL;
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    /* low over the basin, so every pixel sees the finest ring (0.25 apart: the triangles' interpolation error,
     * Σ A·k²·s²/8, stays under 3 mm) */
    st_camera cam = {.position = {64, 64, 3.5f}, .yaw_deg = 0, .pitch_deg = -90};
    st_view v = st_camera_view(&cam, W, H);
    float *depth = malloc(W * H * sizeof *depth);
    double worst = 0;
    for (int it = 0; it < 3; it++) {
        double t = 0.7 + 5.3 * it;
        st_renderer_set_time(r, t);
        assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
        assert_st_ok(st_renderer_readback(r, NULL, depth, err));
        for (uint32_t j = 0; j < H; j++)
            for (uint32_t i = 0; i < W; i++) {
                float hit[3], z;
                if (isnan(test_pixel_hit(&v, depth, i, j, hit))) fail_msg("nothing at (%u, %u)", i, j);
                assert_st_ok(st_water_height(st_renderer_water(r), t, hit[0], hit[1], &z, err));
                worst = fmax(worst, fabs(z - hit[2]));
            }
    }
    if (!(worst <= 0.01)) fail_msg("the rendered surface is %g from st_water_height", worst);
    free(depth);
    st_renderer_destroy(r);
    test_engine_finish(e, l);
}

/* The surf: over the basin's stand-ins (their depth the shore slope times the distance to the bank) the waves
 * break where the local wave height passes 0.78 of the depth (st_water_shore_at on the CPU): the pixels there
 * carry foam, the pixels of water where it does not pass carry none. */
static void test_surf_foam_where_waves_break(void **state) {
    (void)state;
    st_level *l = basin_level();
    st_engine *e = test_engine(l);
    const uint32_t W = 64, H = 64;
    st_render_desc d = {.method = "ray-compute", .width = W, .height = H,
                        .water = {.mode = ST_WATER_GERSTNER, .gerstner_waves = 1, .wind_speed = 5}};
    st_renderer *r = NULL;
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    st_camera cam = {.position = {64, 64, 40}, .yaw_deg = 0, .pitch_deg = -90};
    st_view v = st_camera_view(&cam, W, H);
    uint8_t *rgba = malloc(W * H * 4);
    float *depth = malloc(W * H * sizeof *depth);
    st_renderer_set_time(r, 2.0);
    assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
    assert_st_ok(st_renderer_readback(r, rgba, depth, err));
    const st_water *w = st_renderer_water(r);
    assert_true(st_water_has_bed(w));
    uint32_t calm = 0, calm_bright = 0, surf = 0;
    double surf_red = 0;
    for (uint32_t j = 0; j < H; j++)
        for (uint32_t i = 0; i < W; i++) {
            float hit[3];
            if (isnan(test_pixel_hit(&v, depth, i, j, hit))) continue;
            /* water pixels: inside the basin, off the sand bar */
            if (hit[0] < 41 || hit[0] > 87 || hit[1] < 41 || hit[1] > 87) continue;
            if (hit[0] > 55 && hit[0] < 73 && hit[1] > 55 && hit[1] < 73) continue;
            /* and out of the sun's glint (the shared sun (1, 2, 4)): the eye's ray mirrored by the level surface
             * within 25° of the sun shows glitter, as white as foam */
            double m[3] = {hit[0] - cam.position[0], hit[1] - cam.position[1], cam.position[2] - hit[2]};
            double ml = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
            if ((m[0] + 2 * m[1] + 4 * m[2]) / (ml * sqrt(21.0)) > cos(25 * 3.14159265 / 180)) continue;
            st_water_shore_sample s = st_water_shore_at(w, hit[0], hit[1]);
            uint8_t red = rgba[4 * (j * W + i)];
            if (s.breaking < 0.95f) {
                calm++;
                calm_bright += red > 120;
            } else if (s.breaking > 2.2f) {
                surf++;
                surf_red += red;
            }
        }
    print_message("calm %u (bright %u), surf %u (mean red %.1f)\n", calm, calm_bright, surf, surf ? surf_red / surf : 0);
    assert_true(calm > 200 && surf > 100);
    assert_true(calm_bright * 100 <= calm);  /* no foam where the waves do not break */
    assert_true(surf_red / surf > 120);      /* foam where they do */
    free(rgba);
    free(depth);
    st_renderer_destroy(r);
    test_engine_finish(e, l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fft_matches_dft),
        cmocka_unit_test(test_heights_are_real),
        cmocka_unit_test(test_dispersion_phase_speed),
        cmocka_unit_test(test_foam_from_folds_decays),
        cmocka_unit_test(test_cpu_query_matches_gpu),
        cmocka_unit_test(test_rendered_gerstner_matches_query),
        cmocka_unit_test(test_surf_foam_where_waves_break),
        cmocka_unit_test(test_water_is_watertight),
        cmocka_unit_test(test_compute_draw_matches_raster),
        cmocka_unit_test(test_water_over_a_store),
        cmocka_unit_test(test_underwater_view),
        cmocka_unit_test(test_water_composes_with_every_method),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
