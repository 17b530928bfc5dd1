/* GPU tests of cdlod's selection in a compute pass (--lod-select gpu; lavapipe, validation on): on several cameras
 * the pass selects the very nodes the CPU's st_lod_select does (level, position, quadrants, skirt sides, fallback
 * tile) with the same counts, including views the one-level rule widens, a tile that fails to load (fallbacks) and
 * a first frame with nothing loaded (every node missing), whatever number of coarse levels the CPU walks before
 * the pass (the handover: none, each level, the default), also where that walk hands over nothing; its frames draw
 * what the CPU's draw; and a renderer driven by the GPU's requests alone reaches full detail. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/methods.h"
#include "store_frames.h"
#include "strata/lod.h"

#define W 96
#define H 64

static int node_order(const void *pa, const void *pb) {
    const st_lod_node *a = pa, *b = pb;
    if (a->level != b->level) return a->level < b->level ? -1 : 1;
    if (a->y != b->y) return a->y < b->y ? -1 : 1;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    return 0;
}

/* The GPU's last selection against st_lod_select over the engine's residency, for the renderer's last view; the
 * levels the CPU walked before the pass into *cpu_levels (when not NULL). Returns whether the CPU widened the
 * ranges. */
static bool check_same_selection_of(st_engine *e, st_renderer *r, const st_method_knobs *k, const char *label,
                                    uint32_t *cpu_levels) {
    st_lod_node *gpu = NULL;
    uint32_t gn = 0;
    assert_st_ok(st_cdlod_gpu_selection(r, &gpu, &gn, err));
    st_lod_world w;
    assert_st_ok(st_lod_world_of_store(st_large_world_store(e->world), st_large_world_residency(e->world), k->lod_grid,
                                       &w, err));
    st_lod_params p = {.tau_px = k->tau_px, .skirts = k->skirts};
    st_lod_view lv = st_lod_view_of(&r->view);
    st_lod_selection sel = {0};
    assert_st_ok(st_lod_select(&w, &p, &lv, &sel, err));
    st_lod_frame_stats s;
    assert_true(st_renderer_lod_stats(r, &s));
    if (cpu_levels) *cpu_levels = s.cpu_levels;
    if (gn != sel.count)
        fail_msg("%s: the GPU selected %u nodes, the CPU %u (quadrants %u / %llu, missing %u / %u, culled %u / %u; the "
                 "CPU walked %u levels first)", label, gn, sel.count, s.quadrants, (unsigned long long)sel.quadrants,
                 s.missing, sel.missing, s.culled, sel.culled, s.cpu_levels);
    qsort(gpu, gn, sizeof *gpu, node_order);
    qsort(sel.nodes, sel.count, sizeof *sel.nodes, node_order);
    for (uint32_t i = 0; i < gn; i++) {
        const st_lod_node *g = &gpu[i], *c = &sel.nodes[i];
        if (g->level != c->level || g->x != c->x || g->y != c->y || g->quadrants != c->quadrants ||
            g->skirts != c->skirts || g->fallback != c->fallback || !st_tile_key_equal(g->tile, c->tile))
            fail_msg("%s: node %u: GPU L%u (%llu, %llu) quadrants %x skirts %x fallback %d tile %u/%u/%u, CPU L%u "
                     "(%llu, %llu) quadrants %x skirts %x fallback %d tile %u/%u/%u",
                     label, i, g->level, (unsigned long long)g->x, (unsigned long long)g->y, g->quadrants, g->skirts,
                     g->fallback, g->tile.level, g->tile.x, g->tile.y, c->level, (unsigned long long)c->x,
                     (unsigned long long)c->y, c->quadrants, c->skirts, c->fallback, c->tile.level, c->tile.x,
                     c->tile.y);
    }
    assert_int_equal(s.nodes, sel.count);
    assert_int_equal(s.quadrants, sel.quadrants);
    assert_int_equal(s.triangles, sel.triangles);
    assert_int_equal(s.skirt_triangles, sel.skirt_triangles);
    assert_int_equal(s.missing, sel.missing);
    assert_int_equal(s.fallback, sel.fallback);
    assert_int_equal(s.culled, sel.culled);
    assert_int_equal(s.one_level_violations, sel.one_level_violations);
    assert_int_equal(s.widened, sel.widened);
    for (uint32_t l = 0; l < sel.levels; l++) assert_int_equal(s.per_level[l], sel.per_level[l]);
    bool widened = sel.widened > 0;
    free(gpu);
    st_lod_selection_free(&sel);
    return widened;
}

/* check_same_selection_of without the levels. */
static bool check_same_selection(st_engine *e, st_renderer *r, const st_method_knobs *k, const char *label) {
    return check_same_selection_of(e, r, k, label, NULL);
}

/* Several cameras over the sines, with and without skirts, settled: the same nodes; the frames draw the same
 * surface as the CPU selection's. */
static void test_gpu_selection_equals_cpu(void **state) {
    (void)state;
    scene sc = sine_scene(70, "cdlod-gpu-select", NULL);
    const analytic *a = &sc.a;
    st_camera cams[] = {
        store_camera(500, 520, analytic_bilinear(a, 500, 520) + 300, 0, -90, 3000),  /* straight down */
        store_camera(150, 200, analytic_bilinear(a, 150, 200) + 30, 60, -50, 3000),   /* low over steep sines */
        store_camera(320, 260, analytic_bilinear(a, 320, 260) + 42, 60, -50, 3000),
        store_camera(100, 120, analytic_bilinear(a, 100, 120) + 120, 45, -15, 3000),  /* toward the horizon */
        store_camera(1000, 980, analytic_bilinear(a, 1000, 980) + 20, 225, -5, 3000), /* a corner, looking in */
        store_camera(20, 600, analytic_bilinear(a, 20, 600) + 60, 270, -20, 3000),    /* at the edge, looking out */
    };
    /* the coarse levels the CPU walks before the pass, per camera (the world has 5 levels: at most 4; 0 is the
     * default, ST_LOD_SELECT_CPU_LEVELS; 9 is clamped to 4; −1 none): every count on both sides of the skirts */
    const int32_t cpu_levels[2][6] = {{-1, 1, 2, 3, 4, 0}, {3, 9, -1, 4, 1, 2}};
    bool widened = false;
    for (int skirts = 0; skirts < 2; skirts++) {
        /* the walk's width changes the rounds, never the result: 1024 invocations, then 64 (the default 256 in
         * the tests below) */
        st_method_knobs kg = {.tau_px = 2, .lod_grid = 8, .skirts = skirts, .lod_select_gpu = true,
                              .lod_select_threads = skirts ? 64u : 1024u};
        st_method_knobs kc = kg;
        kc.lod_select_gpu = false;
        st_renderer *rg = store_renderer(sc.engine, "cdlod", W, H, &kg);
        st_renderer *rc = store_renderer(sc.engine, "cdlod", W, H, &kc);
        for (size_t c = 0; c < sizeof cams / sizeof cams[0]; c++) {
            char label[64];
            int32_t k = cpu_levels[skirts][c];
            snprintf(label, sizeof label, "camera %zu%s, %d CPU levels", c, skirts ? " with skirts" : "", k);
            st_cdlod_set_cpu_levels(rg, k);
            frame fc = store_frame(sc.engine, rc, cams[c], W, H);
            frame fg = store_frame(sc.engine, rg, cams[c], W, H);
            uint32_t walked = 0;
            widened |= check_same_selection_of(sc.engine, rg, &kg, label, &walked);
            assert_int_equal(walked, k < 0 ? 0u : k == 0 ? ST_LOD_SELECT_CPU_LEVELS : k > 4 ? 4u : (uint32_t)k);
            uint32_t differ = 0;
            for (uint32_t i = 0; i < W * H; i++) {
                float g = fg.dist[i], cpu = fc.dist[i];
                if (isnan(g) != isnan(cpu) || (!isnan(g) && fabsf(g - cpu) > 1e-4f * cpu + 1e-4f)) differ++;
            }
            if (differ) {
                frame_write("gpu-select", &fg, W, H);
                frame_write("cpu-select", &fc, W, H);
                fail_msg("%s: %u pixels differ between the GPU's and the CPU's selection", label, differ);
            }
            frame_free(&fc);
            frame_free(&fg);
        }
        /* the sky: the CPU's walk culls every root and hands over nothing; the pass draws nothing either */
        st_cdlod_set_cpu_levels(rg, 2);
        frame fs = store_frame(sc.engine, rg, store_camera(500, 500, analytic_bilinear(a, 500, 500) + 300, 0, 70, 3000),
                               W, H);
        uint32_t walked = 0;
        check_same_selection_of(sc.engine, rg, &kg, "the sky", &walked);
        assert_int_equal(walked, 2);
        assert_int_equal(fs.lod.nodes, 0);
        frame_free(&fs);
        st_renderer_destroy(rg);
        st_renderer_destroy(rc);
    }
    assert_true(widened); /* the widening of the one-level rule was among the cases */
    scene_free(&sc);
}

/* Lists longer than the part of them the pass keeps in shared memory (64 entries each with 64 invocations): the
 * entries past it go through the Work buffer, and the nodes are still the CPU's. A level with more than 4 × 64
 * quadrants drawn had more than 64 candidates. */
static void test_gpu_selection_lists_past_shared(void **state) {
    (void)state;
    scene sc = sine_scene(70, "cdlod-gpu-spill", NULL);
    st_method_knobs k = {.tau_px = 0.5f, .lod_grid = 8, .lod_select_gpu = true, .lod_select_threads = 64u};
    st_renderer *r = store_renderer(sc.engine, "cdlod", 320, 200, &k);
    st_camera cam = store_camera(500, 520, analytic_bilinear(&sc.a, 500, 520) + 150, 30, -60, 3000);
    frame f = store_frame(sc.engine, r, cam, 320, 200);
    st_lod_frame_stats s;
    assert_true(st_renderer_lod_stats(r, &s));
    uint32_t most = 0;
    for (uint32_t l = 0; l < s.levels; l++)
        if (s.per_level[l] > most) most = s.per_level[l];
    if (most <= 4 * 64) fail_msg("no level drew more than %u quadrants (at most %u): the lists stayed in shared memory",
                                 4 * 64, most);
    check_same_selection(sc.engine, r, &k, "lists past shared memory");
    frame_free(&f);
    st_renderer_destroy(r);
    scene_free(&sc);
}

/* A tile that never loads: its nodes draw their parent's tile on both sides; the first frame of a fresh renderer
 * with nothing resident leaves every node missing on both. */
static void test_gpu_selection_fallback_and_missing(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_SINE, .size = 257, .spacing = 2, .base = 60, .amp = 20, .wave = 10};
    st_store *store = analytic_store(&a, 33, "cdlod-gpu-broken");
    broken_loader bl = {store, {0, 3, 3}};
    st_engine *e = store_engine(store, &(st_world_desc){.gpu_slots = 256, .load = broken_load, .load_user = &bl});
    st_method_knobs k = {.tau_px = 0.5f, .lod_grid = 8, .skirts = true, .lod_select_gpu = true};
    st_camera cam = store_camera(224, 224, analytic_bilinear(&a, 224, 224) + 60, 0, -90, 1000);
    st_renderer *r = store_renderer(e, "cdlod", W, H, &k);
    assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
    st_lod_frame_stats s;
    assert_true(st_renderer_lod_stats(r, &s));
    assert_true(s.missing > 0);
    assert_true(s.hole_px > 0);
    uint32_t walked = 0;
    check_same_selection_of(e, r, &k, "first frame", &walked);
    assert_int_equal(walked, ST_LOD_SELECT_CPU_LEVELS < 3 ? ST_LOD_SELECT_CPU_LEVELS : 3u); /* of a world of 4 levels */
    /* the GPU's requests alone bring the view in: no settle, no CPU selection */
    int i = 0;
    for (; i < 300; i++) {
        assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
        assert_true(st_renderer_lod_stats(r, &s));
        st_world_stats ws;
        assert_st_ok(st_engine_world_stats(e, &ws, err));
        if (!s.missing && s.fallback && !ws.residency.queued && !ws.residency.loading) break;
    }
    assert_true(i < 300);
    assert_int_equal(s.hole_px, 0);
    check_same_selection(e, r, &k, "broken tile");
    /* the fallbacks with each handover (4 levels: the CPU walks 1 to 3 of them, then none): the CPU's draws and
     * parents find their ancestors' tiles in the pass as the candidates do */
    for (int32_t c = 1; c <= 4; c++) {
        int32_t levels = c < 4 ? c : -1;
        st_cdlod_set_cpu_levels(r, levels);
        assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
        char label[64];
        snprintf(label, sizeof label, "broken tile, %d CPU levels", levels);
        check_same_selection_of(e, r, &k, label, &walked);
        assert_int_equal(walked, levels < 0 ? 0u : (uint32_t)levels);
        assert_true(st_renderer_lod_stats(r, &s));
        assert_true(s.fallback > 0);
    }
    st_renderer_destroy(r);
    test_engine_finish(e, NULL);
    st_store_close(store);
}

/* cdlod-compute sizes its dispatch on the CPU: asking it for the GPU selection is one clear error. */
static void test_gpu_selection_refused_for_compute(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_PLANE, .size = 129, .spacing = 2, .base = 10};
    st_store *store = analytic_store(&a, 33, "cdlod-gpu-refused");
    st_engine *e = store_engine(store, NULL);
    st_render_desc d = {.method = "cdlod-compute", .width = W, .height = H, .knobs = {.lod_select_gpu = true}};
    st_renderer *r = NULL;
    st_error e2 = {0};
    st_result res = st_renderer_create(e, &d, &r, &e2);
    assert_int_equal(res, ST_ERR_UNSUPPORTED);
    assert_non_null(strstr(e2.message, "--lod-select cpu"));
    assert_null(r);
    test_engine_finish(e, NULL);
    st_store_close(store);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_selection_equals_cpu),
        cmocka_unit_test(test_gpu_selection_lists_past_shared),
        cmocka_unit_test(test_gpu_selection_fallback_and_missing),
        cmocka_unit_test(test_gpu_selection_refused_for_compute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
