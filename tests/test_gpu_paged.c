/* GPU tests of paged terrain: after random camera jumps over a pool too small for the world (so pages are
 * evicted and slots reused), the page table maps every page it names to a slot holding exactly that page's
 * texels and maps every page within reach of the eye; and a paged render equals the render of the same level
 * held as one texture, colour and depth bit for bit, once the pages in reach are resident — for ray-compute,
 * voxel-compute (its pyramid rebuilt where pages arrive after it was made) and scatter; edits reach resident
 * pages in the next frame, survive eviction, undo across it, and are written back into the store; a paged world
 * with no level in memory draws the same bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/methods/methods.h"
#include "render/methods/voxel.h"
#include "render/render_internal.h"
#include "strata/gen.h"
#include "strata/paged.h"
#include "strata/tiles.h"
#include "support.h"

#define SIDE 1024u
#define PAGE 64u
#define PAGES (SIDE / PAGE)
#define POOL 48u
#define FAR 100.0f

static st_level *world_level(void) {
    st_gen_desc gd = {.seed = 11, .width = SIDE, .height = SIDE, .dual_percent = 15.0f};
    st_level *l = NULL;
    assert_st_ok(st_gen_world(&gd, &l, err));
    return l;
}

static char store_dir[1100]; /* the folder of the last world_store */
static st_store *world_store(const st_level *l, const char *tag) {
    const char *dir = test_temp_dir(tag);
    snprintf(store_dir, sizeof store_dir, "%s", dir);
    st_store_build_desc d = {.tile_size = PAGE};
    st_store_build_stats st;
    assert_st_ok(st_store_build_level(l, dir, &d, &st, err));
    st_store *s = NULL;
    assert_st_ok(st_store_open(dir, &s, err));
    return s;
}

static st_camera camera_at(float x, float y, float yaw) {
    st_camera c = {0};
    c.position[0] = x;
    c.position[1] = y;
    c.position[2] = 160.0f;
    c.yaw_deg = yaw;
    c.pitch_deg = -25.0f;
    c.fovy_deg = 60.0f;
    c.near_dist = 0.5f;
    c.far_dist = FAR;
    return c;
}

/* Whether page (px, py) lies within reach of the eye: its square within far + one page (the default margin) of
 * (x, y), the world wrapping both ways. Written apart from the engine's request walk. */
static bool in_reach(uint32_t px, uint32_t py, float x, float y) {
    for (int wy = -1; wy <= 1; wy++)
        for (int wx = -1; wx <= 1; wx++) {
            float x0 = (float)px * PAGE + (float)wx * SIDE, y0 = (float)py * PAGE + (float)wy * SIDE;
            float dx = fmaxf(0.0f, fmaxf(x0 - x, x - (x0 + PAGE)));
            float dy = fmaxf(0.0f, fmaxf(y0 - y, y - (y0 + PAGE)));
            if (sqrtf(dx * dx + dy * dy) <= FAR + PAGE - 1.0f) return true; /* a texel inside the exact bound */
        }
    return false;
}

static void test_page_table_after_jumps(void **state) {
    (void)state;
    st_level *level = world_level();
    st_store *store = world_store(level, "paged-table");
    st_engine *e = NULL;
    st_engine_desc ed = {.validate = true};
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = POOL};
    assert_st_ok(st_engine_set_paged_level(e, level, store, &pd, err));
    size_t bytes = (size_t)(PAGE / 2) * PAGE * 4;
    uint8_t *got = malloc(bytes), *want = malloc(bytes);
    srand(7);
    for (int jump = 0; jump < 12; jump++) {
        float x = (float)(rand() % SIDE), y = (float)(rand() % SIDE);
        st_camera cam = camera_at(x, y, (float)(rand() % 360));
        uint32_t frames = 0;
        assert_st_ok(st_engine_paged_settle(e, &cam, 5000, &frames, err));
        st_paged_stats ps;
        assert_st_ok(st_engine_paged_stats(e, &ps, err));
        assert_int_equal(ps.missing, 0);
        assert_true(ps.wanted <= POOL);
        bool used[POOL] = {false};
        uint32_t mapped = 0;
        for (uint32_t py = 0; py < PAGES; py++)
            for (uint32_t px = 0; px < PAGES; px++) {
                uint32_t slot;
                if (!st_engine_paged_page(e, px, py, &slot, got, bytes)) {
                    if (in_reach(px, py, x, y)) fail_msg("jump %d: page (%u, %u) in reach is not mapped", jump, px, py);
                    continue;
                }
                mapped++;
                assert_true(slot < POOL);
                if (used[slot]) fail_msg("jump %d: slot %u mapped twice", jump, slot);
                used[slot] = true;
                st_rect rect = {(int32_t)(px * PAGE), (int32_t)(py * PAGE), (int32_t)((px + 1) * PAGE),
                                (int32_t)((py + 1) * PAGE)};
                assert_int_equal(st_level_pack_pairs(level, rect, want), bytes);
                if (memcmp(got, want, bytes)) fail_msg("jump %d: slot %u does not hold page (%u, %u)", jump, slot, px, py);
            }
        assert_int_equal(mapped, ps.mapped);
    }
    st_paged_stats ps;
    assert_st_ok(st_engine_paged_stats(e, &ps, err));
    assert_true(ps.residency.evictions > 0); /* the pool was too small for every jump: slots were reused */

    free(got);
    free(want);
    test_engine_finish(e, NULL);
    st_store_close(store);
    st_level_destroy(level);
}

/* Whether the GPU's copy of page (px, py) holds the level's texels there now. */
static bool page_is_level(st_engine *e, const st_level *level, uint32_t px, uint32_t py) {
    size_t bytes = (size_t)(PAGE / 2) * PAGE * 4;
    uint8_t *got = malloc(bytes), *want = malloc(bytes);
    uint32_t slot;
    bool mapped = st_engine_paged_page(e, px, py, &slot, got, bytes);
    st_rect rect = {(int32_t)(px * PAGE), (int32_t)(py * PAGE), (int32_t)((px + 1) * PAGE), (int32_t)((py + 1) * PAGE)};
    st_level_pack_pairs(level, rect, want);
    bool same = mapped && !memcmp(got, want, bytes);
    free(got);
    free(want);
    return same;
}

/* A dig on a resident page reaches its slot in the next frame; the page, evicted by a jump across the world and
 * brought back, comes back dug; undone while evicted, it comes back undone; written back, the store holds it. */
static void test_edits_across_eviction(void **state) {
    (void)state;
    st_level *level = world_level();
    st_store *store = world_store(level, "paged-edits");
    st_engine *e = NULL;
    st_engine_desc ed = {.validate = true};
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = POOL};
    assert_st_ok(st_engine_set_paged_level(e, level, store, &pd, err));
    st_renderer *r = test_renderer(e, "voxel-compute", 32, 20, NULL);
    st_camera here = camera_at(300, 300, 0), away = camera_at(800, 800, 0);
    assert_st_ok(st_engine_paged_settle(e, &here, 5000, NULL, err));
    uint32_t px = 300 / PAGE, py = 300 / PAGE;
    st_rect before_rect = {280, 280, 321, 321};
    uint8_t saved_h[41 * 41], saved_m[41 * 41];
    st_level_read_rect(level, before_rect, saved_h, saved_m);
    st_level *original = NULL;
    assert_st_ok(st_level_clone(level, &original, err));
    st_rect dirty;
    assert_st_ok(st_level_dig(level, 300, 300, 20, 60, &dirty, err));
    assert_st_ok(st_engine_update_level(e, dirty, err));
    assert_false(page_is_level(e, level, px, py)); /* not before the next frame */
    free(test_draw_depth(r, here, 32, 20));
    assert_true(page_is_level(e, level, px, py)); /* the frame after the dig */
    /* away: the page loses its slot; back: it comes back dug */
    assert_st_ok(st_engine_paged_settle(e, &away, 5000, NULL, err));
    uint32_t slot;
    assert_false(st_engine_paged_page(e, px, py, &slot, NULL, 0));
    assert_st_ok(st_engine_paged_settle(e, &here, 5000, NULL, err));
    assert_true(page_is_level(e, level, px, py));
    /* undo while away */
    assert_st_ok(st_engine_paged_settle(e, &away, 5000, NULL, err));
    st_level_write_rect(level, before_rect, saved_h, saved_m);
    assert_st_ok(st_engine_update_level(e, before_rect, err));
    assert_st_ok(st_engine_paged_settle(e, &here, 5000, NULL, err));
    assert_true(page_is_level(e, level, px, py));
    assert_memory_equal(st_level_height_row(level, 300), st_level_height_row(original, 300), SIDE);
    /* dig again and write back: the store holds the dug page, the rest as built */
    assert_st_ok(st_level_dig(level, 300, 300, 20, 60, &dirty, err));
    assert_st_ok(st_engine_update_level(e, dirty, err));
    uint32_t written = 0;
    assert_st_ok(st_engine_paged_write_back(e, &written, err));
    assert_int_equal(written, 4); /* the pages the edits met: x and y in [280, 321) cross pages 4 and 5 */
    assert_st_ok(st_engine_paged_write_back(e, &written, err));
    assert_int_equal(written, 0); /* nothing left unsaved */
    st_renderer_destroy(r);
    test_engine_finish(e, NULL);
    st_store_close(store);
    assert_st_ok(st_store_open(store_dir, &store, err));
    st_level *back = NULL;
    assert_st_ok(st_store_read_level(store, &back, err));
    for (uint32_t y = 0; y < SIDE; y++) {
        assert_memory_equal(st_level_height_row(back, y), st_level_height_row(level, y), SIDE);
        assert_memory_equal(st_level_meta_row(back, y), st_level_meta_row(level, y), SIDE);
    }
    st_level_destroy(back);
    st_store_close(store);
    st_level_destroy(original);
    st_level_destroy(level);
}

/* Whether the GPU's copy of page (px, py), n texels a side, holds `level`'s texels there now. */
static bool page_matches(st_engine *e, const st_level *level, uint32_t n, uint32_t px, uint32_t py) {
    size_t bytes = (size_t)(n / 2) * n * 4;
    uint8_t *got = malloc(bytes), *want = malloc(bytes);
    uint32_t slot;
    bool mapped = st_engine_paged_page(e, px, py, &slot, got, bytes);
    st_rect rect = {(int32_t)(px * n), (int32_t)(py * n), (int32_t)((px + 1) * n), (int32_t)((py + 1) * n)};
    st_level_pack_pairs(level, rect, want);
    bool same = mapped && !memcmp(got, want, bytes);
    free(got);
    free(want);
    return same;
}

/* Settles at five pages away from (1, 1) in turn, each taking a slot of the pool of 4: the page's slot goes to
 * another. */
static void tour_away(st_engine *e) {
    const float at[5][2] = {{1400, 1400}, {1900, 400}, {400, 1900}, {1150, 150}, {150, 1150}};
    for (int i = 0; i < 5; i++) {
        st_camera c = camera_at(at[i][0], at[i][1], 0);
        assert_st_ok(st_engine_paged_settle(e, &c, 5000, NULL, err));
    }
}

static uint32_t held_pages(st_engine *e) {
    st_paged_stats ps;
    assert_st_ok(st_engine_paged_stats(e, &ps, err));
    return ps.edits_held;
}

/* Edits of a generated world with no level in memory, kept in an overlay store: a dig reaches its resident page
 * in the next frame; the page, evicted by a jump away and brought back, comes back dug — before the write-back
 * (from the edits held on the CPU) and after it (the held copy dropped, from the residency manager's copy that the
 * write-back refreshed); an undo while it is
 * evicted brings it back undone; a raise and a dig over a page edge, written back, and the overlay reopened on its
 * own: the world read whole equals the generator's level with the same edits made by st_level_dig/raise. */
static void test_edits_without_level(void **state) {
    (void)state;
    enum { N = 256 }; /* a generated world's pages */
    const char *spec = "gen:multi:7:2048x2048";
    const char *dir = test_temp_dir("paged-overlay");
    st_gen_desc gd;
    assert_st_ok(st_gen_parse(spec, &gd, err));
    st_level *want = NULL;
    assert_st_ok(st_gen_world(&gd, &want, err));
    st_level *original = NULL;
    assert_st_ok(st_level_clone(want, &original, err));
    st_store *store = NULL;
    assert_st_ok(st_store_open_overlay(spec, dir, &store, err));
    st_engine *e = NULL;
    st_engine_desc ed = {.validate = true};
    assert_st_ok(st_engine_create(&ed, &e, err));
    /* 4 GPU slots, but room on the CPU for every page visited: a page away loses its slot and keeps its CPU copy,
     * which must not be uploaded older than the edits once they are written back */
    st_paged_desc pd = {.pool_pages = 4, .cpu_tiles = 64, .margin = 1.0f};
    assert_st_ok(st_engine_set_paged_world(e, store, &pd, err));
    st_renderer *r = test_renderer(e, "ray-compute", 32, 20, NULL);
    st_camera here = camera_at(400, 400, 0);
    double eye[3] = {400, 400, 160};
    st_camera_set_eye(&here, eye); /* the eye in the camera's origin, as a flight keeps it: the pages follow it */
    assert_st_ok(st_engine_paged_settle(e, &here, 5000, NULL, err));
    const uint32_t px = 400 / N, py = 400 / N;
    assert_true(page_matches(e, want, N, px, py));
    st_rect dirty, d2;
    assert_st_ok(st_engine_paged_edit(e, false, 400, 400, 20, 60, &dirty, err));
    assert_st_ok(st_level_dig(want, 400, 400, 20, 60, &d2, err));
    assert_memory_equal(&dirty, &d2, sizeof dirty); /* the same rectangle as the whole level's dig */
    assert_false(page_matches(e, want, N, px, py)); /* not before the next frame */
    free(test_draw_depth(r, here, 32, 20));
    assert_true(page_matches(e, want, N, px, py));
    assert_int_equal(held_pages(e), 1);
    /* away (the pool of 4 gives the page's slot away) and back: dug, from the held copy */
    tour_away(e);
    assert_false(st_engine_paged_page(e, px, py, NULL, NULL, 0));
    assert_st_ok(st_engine_paged_settle(e, &here, 5000, NULL, err));
    assert_true(page_matches(e, want, N, px, py));
    /* written back while away: dropped from the edits held, then back from the CPU copy the write-back refreshed,
     * still dug */
    tour_away(e);
    uint32_t written = 0;
    assert_st_ok(st_engine_paged_write_back(e, &written, err));
    assert_int_equal(written, 1);
    assert_int_equal(held_pages(e), 0);
    tour_away(e);
    assert_st_ok(st_engine_paged_settle(e, &here, 5000, NULL, err));
    assert_true(page_matches(e, want, N, px, py));
    /* undone while away (the page neither held nor resident): back, it is the generator's again */
    tour_away(e);
    assert_int_equal(st_engine_paged_undo_count(e), 1);
    bool undone = false;
    assert_st_ok(st_engine_paged_undo(e, &undone, NULL, err));
    assert_true(undone);
    assert_st_ok(st_engine_paged_undo(e, &undone, NULL, err));
    assert_false(undone); /* nothing left to undo */
    assert_st_ok(st_engine_paged_settle(e, &here, 5000, NULL, err));
    assert_true(page_matches(e, original, N, px, py));
    /* a raise across a page corner and a dig, written back; the held pages dropped */
    assert_st_ok(st_engine_paged_edit(e, true, 511, 513, 30, 40, NULL, err));
    assert_st_ok(st_level_raise(original, 511, 513, 30, 40, NULL, err));
    assert_st_ok(st_engine_paged_edit(e, false, 420, 380, 12, 200, NULL, err));
    assert_st_ok(st_level_dig(original, 420, 380, 12, 200, NULL, err));
    free(test_draw_depth(r, here, 32, 20));
    uint8_t h[64 * 64], m[64 * 64], hw[64 * 64], mw[64 * 64];
    st_rect rect = {480, 480, 544, 544};
    assert_st_ok(st_engine_paged_read_rect(e, rect, h, m, err));
    st_level_read_rect(original, rect, hw, mw);
    assert_memory_equal(h, hw, sizeof h);
    assert_memory_equal(m, mw, sizeof m);
    assert_st_ok(st_engine_paged_write_back(e, &written, err));
    assert_int_equal(written, 4); /* the raise met pages (1..2, 1..2); the dig page (1, 1) among them */
    st_error e2 = {0};
    assert_int_equal(st_engine_paged_edit(e, false, 5000, 10, 5, 5, NULL, &e2), ST_ERR_INVALID);
    assert_int_equal(st_engine_paged_edit(e, false, 10, 10, 2000, 5, NULL, &e2), ST_ERR_INVALID);
    st_renderer_destroy(r);
    test_engine_finish(e, NULL);
    st_store_close(store);
    /* the overlay alone opens as the world with its edits; it holds only the edited tiles */
    assert_st_ok(st_store_open(dir, &store, err));
    assert_string_equal(st_store_get_info(store)->overlay_of, spec);
    st_level *back = NULL;
    assert_st_ok(st_store_read_level(store, &back, err));
    for (uint32_t y = 0; y < back->height; y++) {
        assert_memory_equal(st_level_height_row(back, y), st_level_height_row(original, y), back->width);
        assert_memory_equal(st_level_meta_row(back, y), st_level_meta_row(original, y), back->width);
    }
    st_level_destroy(back);
    st_store_close(store);
    st_level_destroy(want);
    st_level_destroy(original);
}

typedef struct frame {
    uint8_t *rgba;
    float *depth;
} frame;

static frame draw(st_renderer *r, st_camera cam, uint32_t w, uint32_t h) {
    frame f = {malloc((size_t)w * h * 4), malloc((size_t)w * h * sizeof(float))};
    assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
    assert_st_ok(st_renderer_readback(r, f.rgba, f.depth, err));
    return f;
}

/* On a paged world r's per-page pyramids — the slot of every page resident now — and its levels held whole equal,
 * word for word, those of a voxel renderer made now, which bakes them from the pages resident now. */
static void expect_pyramid_as_fresh(st_engine *e, st_renderer *r, const char *method, const char *when) {
    const st_voxel_paged *P = st_voxel_renderer_paged(r);
    assert_non_null(P);
    st_renderer *fresh = test_renderer(e, method, 8, 8, NULL);
    uint64_t words = st_voxel_words(r), slot = P->slot_words;
    assert_int_equal(words, st_voxel_words(fresh));
    uint32_t *kept = malloc((words > slot ? words : slot) * 4), *whole = malloc((words > slot ? words : slot) * 4);
    assert_st_ok(st_voxel_read(r, kept, err));
    assert_st_ok(st_voxel_read(fresh, whole, err));
    uint64_t differ = 0;
    for (uint64_t i = 0; i < words; i++) differ += kept[i] != whole[i];
    if (differ)
        fail_msg("%s, %s: %llu of %llu words of its levels held whole differ from a fresh bake", method, when,
                 (unsigned long long)differ, (unsigned long long)words);
    uint32_t pages = 0;
    for (uint32_t py = 0; py < PAGES; py++)
        for (uint32_t px = 0; px < PAGES; px++) {
            bool in_kept, in_fresh;
            assert_st_ok(st_voxel_read_page(r, px, py, kept, &in_kept, err));
            assert_st_ok(st_voxel_read_page(fresh, px, py, whole, &in_fresh, err));
            assert_true(in_kept == in_fresh);
            if (!in_kept) continue;
            pages++;
            for (uint64_t i = 0; i < slot; i++) differ += kept[i] != whole[i];
            if (differ)
                fail_msg("%s, %s: page (%u, %u): %llu of %llu words of its pyramid differ from a fresh bake", method,
                         when, px, py, (unsigned long long)differ, (unsigned long long)slot);
        }
    assert_true(pages > 0);
    free(kept);
    free(whole);
    st_renderer_destroy(fresh);
}

/* What r derives from the terrain and keeps up to date where pages arrive and leave — ray-compute's and
 * slice-compute's air tables, voxel-compute's pyramids — equals, word for word, what a renderer of the same method
 * made now builds whole from the pages resident now. Other methods: nothing to check. */
static void expect_derived_as_fresh(st_engine *e, st_renderer *r, const char *method, int view) {
    if (st_voxel_renderer_layout(r)) {
        char when[32];
        snprintf(when, sizeof when, "view %d", view);
        expect_pyramid_as_fresh(e, r, method, when);
        return;
    }
    const st_air_tables *t = st_ray_compute_air(r) ? st_ray_compute_air(r) : st_slice_compute_air(r);
    if (!t) return;
    st_renderer *fresh = test_renderer(e, method, 8, 8, NULL);
    uint64_t words = st_air_tables_words(r);
    uint32_t *kept = malloc(words * 4), *whole = malloc(words * 4);
    const st_air_tables *ft = st_ray_compute_air(fresh) ? st_ray_compute_air(fresh) : st_slice_compute_air(fresh);
    assert_st_ok(st_air_tables_read(r, t, kept, err));
    assert_st_ok(st_air_tables_read(fresh, ft, whole, err));
    uint64_t differ = 0;
    for (uint64_t i = 0; i < words; i++) differ += kept[i] != whole[i];
    if (differ)
        fail_msg("%s, view %d: %llu of %llu words of its air tables differ from a whole build on the resident pages",
                 method, view, (unsigned long long)differ, (unsigned long long)words);
    free(kept);
    free(whole);
    st_renderer_destroy(fresh);
}

/* Each page's pyramid in r's slot (every page resident now) and its cells of the top level held whole equal the
 * pyramid of the whole level that `whole` (a voxel renderer of the same level in memory) holds there, bit for bit. */
static void expect_pages_as_whole(st_renderer *r, st_renderer *whole, int jump) {
    const st_voxel_paged *P = st_voxel_renderer_paged(r);
    const st_voxel_layout *L = st_voxel_renderer_layout(whole);
    assert_non_null(P);
    assert_null(st_voxel_renderer_paged(whole));
    uint32_t *slot = malloc(P->slot_words * 4), *held = malloc(st_voxel_words(r) * 4),
             *all = malloc(L->words * 4);
    assert_st_ok(st_voxel_read(r, held, err));
    assert_st_ok(st_voxel_read(whole, all, err));
    uint32_t top = P->top, checked = 0;
    for (uint32_t py = 0; py < PAGES; py++)
        for (uint32_t px = 0; px < PAGES; px++) {
            bool resident;
            assert_st_ok(st_voxel_read_page(r, px, py, slot, &resident, err));
            if (!resident) continue;
            checked++;
            for (uint32_t l = 0; l <= top; l++) {
                const uint32_t *n = P->page.dims[l];
                for (uint32_t z = 0; z < n[2]; z++)
                    for (uint32_t y = 0; y < n[1]; y++)
                        for (uint32_t x = 0; x < n[0]; x++) {
                            uint32_t gx = px * n[0] + x, gy = py * n[1] + y, bw, bp;
                            uint64_t ww = st_voxel_word(L, l, gx, gy, z, &bw);
                            bool want = (all[ww] >> bw) & 1u, got;
                            if (l < top) {
                                got = (slot[st_voxel_word(&P->page, l, x, y, z, &bp)] >> bp) & 1u;
                            } else {
                                uint64_t hw = st_voxel_word(L, l, gx, gy, z, &bp) - P->world_first;
                                got = (held[hw] >> bp) & 1u;
                            }
                            if (got != want)
                                fail_msg("jump %d: page (%u, %u), level %u, cell (%u, %u, %u): %d, the whole level's %d",
                                         jump, px, py, l, gx, gy, z, got, want);
                        }
            }
        }
    assert_true(checked > 0);
    free(slot);
    free(held);
    free(all);
}

/* After random camera jumps over a pool too small for the world (pages evicted, slots reused) and random digs and
 * raises (on resident pages and on pages far from the eye), each followed by one frame: voxel-compute's per-page
 * pyramids and its levels held whole equal a fresh bake of the pages resident then, word for word, and every
 * resident page's equals the pyramid of the whole edited level in memory there, bit for bit. */
static void test_voxel_pages_after_jumps_and_edits(void **state) {
    (void)state;
    enum { W = 32, H = 20 };
    st_level *level = world_level();
    st_store *store = world_store(level, "paged-voxel");
    st_engine *mem = test_engine(level);
    st_renderer *whole = test_renderer(mem, "voxel-compute", W, H, NULL);
    st_engine *e = NULL;
    st_engine_desc ed = {.validate = true};
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = POOL};
    assert_st_ok(st_engine_set_paged_level(e, level, store, &pd, err));
    st_renderer *r = test_renderer(e, "voxel-compute", W, H, NULL);
    srand(19);
    for (int jump = 0; jump < 8; jump++) {
        float x = (float)(rand() % SIDE), y = (float)(rand() % SIDE);
        st_camera cam = camera_at(x, y, (float)(rand() % 360));
        assert_st_ok(st_engine_paged_settle(e, &cam, 5000, NULL, err)); /* arrivals told, baked at the next frame */
        for (int k = 0; k < 2; k++) { /* one edit near the eye (resident pages), one anywhere */
            int cx = k ? rand() % (int)SIDE : ((int)x + rand() % 81 - 40 + (int)SIDE) % (int)SIDE;
            int cy = k ? rand() % (int)SIDE : ((int)y + rand() % 81 - 40 + (int)SIDE) % (int)SIDE;
            st_rect dirty;
            if (rand() % 2) assert_st_ok(st_level_dig(level, cx, cy, 3 + rand() % 20, 10 + rand() % 80, &dirty, err));
            else assert_st_ok(st_level_raise(level, cx, cy, 3 + rand() % 20, 10 + rand() % 80, &dirty, err));
            assert_st_ok(st_engine_update_level(e, dirty, err));
            assert_st_ok(st_engine_update_level(mem, dirty, err));
        }
        free(test_draw_depth(r, cam, W, H));
        free(test_draw_depth(whole, cam, W, H));
        char when[32];
        snprintf(when, sizeof when, "jump %d", jump);
        expect_pyramid_as_fresh(e, r, "voxel-compute", when);
        expect_pages_as_whole(r, whole, jump);
    }
    st_paged_stats ps;
    assert_st_ok(st_engine_paged_stats(e, &ps, err));
    assert_true(ps.residency.evictions > 0); /* slots were reused */
    st_renderer_destroy(r);
    st_renderer_destroy(whole);
    test_engine_finish(e, NULL);
    test_engine_finish(mem, NULL);
    st_store_close(store);
    st_level_destroy(level);
}

static void test_paged_render_equals_texture(void **state) {
    (void)state;
    /* slice-compute: its air tables are built through the pages too (and rebuilt where pages arrive) */
    const char *methods[] = {"ray-compute", "voxel-compute", "scatter", "slice-compute", "voxel"};
    enum { VIEWS = 3, W = 64, H = 40, METHODS = 5 };
    st_camera cams[VIEWS] = {camera_at(100, 120, 30), camera_at(700, 500, 200), camera_at(1000, 20, 300)};
    st_level *level = world_level();
    frame want[METHODS][VIEWS];
    st_engine *e = test_engine(level);
    for (int m = 0; m < METHODS; m++) {
        st_renderer *r = test_renderer(e, methods[m], W, H, NULL);
        for (int v = 0; v < VIEWS; v++) want[m][v] = draw(r, cams[v], W, H);
        st_renderer_destroy(r);
    }
    test_engine_finish(e, NULL);

    st_store *store = world_store(level, "paged-render");
    st_engine_desc ed = {.validate = true};
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = POOL};
    assert_st_ok(st_engine_set_paged_level(e, level, store, &pd, err));
    for (int m = 0; m < METHODS; m++) {
        /* the renderer is made before any page is resident: what it derives from the terrain follows the pages */
        st_renderer *r = test_renderer(e, methods[m], W, H, NULL);
        for (int v = 0; v < VIEWS; v++) {
            assert_st_ok(st_engine_paged_settle(e, &cams[v], 5000, NULL, err));
            frame got = draw(r, cams[v], W, H);
            if (memcmp(got.rgba, want[m][v].rgba, (size_t)W * H * 4))
                fail_msg("%s, view %d: the paged colour differs from the texture's", methods[m], v);
            if (memcmp(got.depth, want[m][v].depth, (size_t)W * H * sizeof(float)))
                fail_msg("%s, view %d: the paged depth differs from the texture's", methods[m], v);
            expect_derived_as_fresh(e, r, methods[m], v);
            free(got.rgba);
            free(got.depth);
            free(want[m][v].rgba);
            free(want[m][v].depth);
        }
        st_renderer_destroy(r);
    }
    test_engine_finish(e, NULL);
    st_store_close(store);
    st_level_destroy(level);
}

/* The same world as a paged world alone (st_engine_set_paged_world: no level in memory, the near-plane test and
 * everything else of the CPU reading through the pages): ray-compute and scatter draw the texture's bytes, a
 * method that keeps data of the whole level is refused, and so is an edit. One view stands in a cave, its near
 * plane in the rock, so the near-plane test reads texels through the pages. */
static void test_paged_world_without_level(void **state) {
    (void)state;
    const char *methods[] = {"ray-compute", "scatter", "voxel-compute"};
    enum { VIEWS = 3, W = 64, H = 40 };
    st_camera cams[VIEWS] = {camera_at(100, 120, 30), camera_at(700, 500, 200), camera_at(1000, 20, 300)};
    cams[2].position[2] = 1.0f; /* at the floor: its near plane meets solid somewhere around */
    st_level *level = world_level();
    frame want[3][VIEWS];
    st_engine *e = test_engine(level);
    for (int m = 0; m < 3; m++) {
        st_renderer *r = test_renderer(e, methods[m], W, H, NULL);
        for (int v = 0; v < VIEWS; v++) want[m][v] = draw(r, cams[v], W, H);
        st_renderer_destroy(r);
    }
    test_engine_finish(e, NULL);

    st_store *store = world_store(level, "paged-world");
    st_level_destroy(level); /* nothing of the level is kept: the store is the world */
    st_engine_desc ed = {.validate = true};
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = POOL};
    assert_st_ok(st_engine_set_paged_world(e, store, &pd, err));
    for (int m = 0; m < 3; m++) {
        /* voxel-compute's pyramid, made before any page is resident, follows the pages as they arrive */
        st_renderer *r = test_renderer(e, methods[m], W, H, NULL);
        for (int v = 0; v < VIEWS; v++) {
            assert_st_ok(st_engine_paged_settle(e, &cams[v], 5000, NULL, err));
            frame got = draw(r, cams[v], W, H);
            if (memcmp(got.rgba, want[m][v].rgba, (size_t)W * H * 4))
                fail_msg("%s, view %d: the paged world's colour differs from the texture's", methods[m], v);
            if (memcmp(got.depth, want[m][v].depth, (size_t)W * H * sizeof(float)))
                fail_msg("%s, view %d: the paged world's depth differs from the texture's", methods[m], v);
            expect_derived_as_fresh(e, r, methods[m], v);
            free(got.rgba);
            free(got.depth);
            free(want[m][v].rgba);
            free(want[m][v].depth);
        }
        st_renderer_destroy(r);
    }
    st_error e2 = {0};
    st_renderer *voxel = NULL;
    st_render_desc md = {.method = "mesh", .width = 8, .height = 8};
    assert_int_equal(st_renderer_create(e, &md, &voxel, &e2), ST_ERR_INVALID); /* its chunks need the level */
    assert_null(voxel);
    assert_int_equal(st_engine_update_level(e, (st_rect){0, 0, 8, 8}, &e2), ST_ERR_INVALID);
    test_engine_finish(e, NULL);
    st_store_close(store);
}

/* voxel-compute on a world whose pyramid of the whole world would take 2 GiB (65,536², the old limit was about
 * 16384²): its pages' pyramids and the levels held whole take a few MiB, and it draws, depth bit for bit, what
 * voxel-compute draws on a level of the world's texels around the eye held in memory (the window [0, 512)²: the
 * eye at (256, 256), so that the rays, within far + a margin of it, never reach the window's own wrap, and the
 * eye's coordinates are the same floats in both). */
static void test_voxel_beyond_whole_pyramid(void **state) {
    (void)state;
    enum { W = 64, H = 40, SIDE_W = 512 };
    st_camera cams[2] = {camera_at(256, 256, 30), camera_at(250, 270, 210)};
    st_store *store = NULL;
    assert_st_ok(st_store_open("gen:multi:3:65536x65536", &store, err));
    st_layer_pages *reader = NULL;
    st_level *window = NULL;
    assert_st_ok(st_layer_pages_create(store, 0, &reader, err));
    assert_st_ok(st_layer_pages_window(reader, 0, 0, SIDE_W, SIDE_W, &window, err));
    st_layer_pages_destroy(reader);
    float *want[2];
    st_engine *e = test_engine(window);
    st_renderer *r = test_renderer(e, "voxel-compute", W, H, NULL);
    for (int v = 0; v < 2; v++) want[v] = test_draw_depth(r, cams[v], W, H);
    st_renderer_destroy(r);
    test_engine_finish(e, window);

    st_engine_desc ed = {.validate = true};
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = POOL};
    assert_st_ok(st_engine_set_paged_world(e, store, &pd, err));
    r = test_renderer(e, "voxel-compute", W, H, NULL);
    const st_voxel_paged *P = st_voxel_renderer_paged(r);
    assert_non_null(P);
    uint64_t bytes = st_renderer_method_gpu_bytes(r);
    assert_true(P->world.bytes > (2000ull << 20)); /* what one pyramid of the whole world would take */
    assert_true(bytes < (4ull << 20));
    for (int v = 0; v < 2; v++) {
        assert_st_ok(st_engine_paged_settle(e, &cams[v], 5000, NULL, err));
        float *got = test_draw_depth(r, cams[v], W, H);
        uint32_t hits = 0;
        for (uint32_t i = 0; i < W * H; i++) hits += want[v][i] > 0.0f;
        assert_true(hits > W * H / 4); /* the view sees terrain */
        if (memcmp(got, want[v], (size_t)W * H * sizeof(float)))
            fail_msg("view %d: voxel-compute on the 65,536^2 world differs from the window's level in memory", v);
        free(got);
        free(want[v]);
    }
    st_renderer_destroy(r);
    test_engine_finish(e, NULL);
    st_store_close(store);
}

/* The far field: a paged world with full resolution only within 96 texels of the eye and two coarser levels out
 * to the far distance. After settling, each texel the GPU reads is its page's where level 0 has it mapped, else the
 * coarse texel over it from the finest coarser level that has its page, else its tile's floor: a level built by
 * that rule on the CPU (from st_level_coarsen of the whole world) renders bit for bit what the paged world renders
 * — ray-compute and scatter, colour and depth. */
/* The level the GPU should read for a settled far field over `level`: each page's texels from level 0 where it is
 * mapped, else the coarse texel over it from the finest coarser level that has its page (coarse[k], the levels of
 * st_level_coarsen), else its tile's floor. fine/far count the pages of each kind. */
static st_level *seen_level(st_engine *e, st_store *store, const st_level *level, st_level *const coarse[3],
                            uint32_t *fine_pages, uint32_t *far_pages) {
    st_level *seen = NULL;
    assert_st_ok(st_level_clone(level, &seen, err));
    uint8_t *heights, *meta;
    st_level_planes_mut(seen, &heights, &meta);
    uint32_t fine = 0, far = 0;
    for (uint32_t py = 0; py < PAGES; py++)
        for (uint32_t px = 0; px < PAGES; px++) {
            int k = 0;
            while (k < 3 && !st_engine_paged_level_mapped(e, (uint32_t)k, px >> k, py >> k)) k++;
            if (k == 0) {
                fine++;
                continue;
            }
            if (k < 3) far++;
            st_tile_meta m;
            assert_true(st_store_tile_meta(store, (st_tile_key){0, px, py}, &m));
            for (uint32_t y = py * PAGE; y < (py + 1) * PAGE; y++)
                for (uint32_t x = px * PAGE; x < (px + 1) * PAGE; x += 2) {
                    size_t at = (size_t)y * SIDE + x;
                    if (k == 3) {
                        heights[at] = heights[at + 1] = (uint8_t)m.min_m;
                        meta[at] = meta[at + 1] = 0;
                        continue;
                    }
                    const st_level *c = coarse[k];
                    uint32_t cx = x >> k, cy = y >> k;
                    size_t ce = (size_t)cy * c->width + (cx & ~1u);
                    const uint8_t *ch = st_level_height_row(c, 0), *cm = st_level_meta_row(c, 0);
                    uint8_t q[4] = {ch[ce], cm[ce], ch[ce + 1], cm[ce + 1]};
                    if (!(q[1] & ST_META_DUAL)) { /* a single coarse texel: the one over (x, y), in both halves */
                        if (cx & 1) q[0] = q[2], q[1] = q[3];
                        else q[2] = q[0], q[3] = q[1];
                    }
                    heights[at] = q[0], meta[at] = q[1], heights[at + 1] = q[2], meta[at + 1] = q[3];
                }
        }
    *fine_pages = fine;
    *far_pages = far;
    return seen;
}

/* Draws ray-compute, scatter and voxel-compute from engine e against the same methods drawing `seen` whole; and,
 * where `kept` is not NULL, that voxel-compute renderer of e, made earlier (its pyramids followed the pages that
 * arrived and the edits since), against voxel-compute drawing `seen`. */
static void assert_draws_level(st_engine *e, st_level *seen, st_camera cam, const char *what, st_renderer *kept) {
    enum { W = 64, H = 40, METHODS = 4 };
    /* voxel-compute: each coarse page's pyramid in that page's slot */
    const char *methods[] = {"ray-compute", "scatter", "voxel-compute", "voxel-compute"};
    frame got[METHODS];
    int count = kept ? METHODS : METHODS - 1;
    for (int m = 0; m < count; m++) {
        st_renderer *r = m == 3 ? kept : test_renderer(e, methods[m], W, H, NULL);
        frame first = draw(r, cam, W, H); /* the frame that sends what changed */
        free(first.rgba);
        free(first.depth);
        got[m] = draw(r, cam, W, H);
        if (r != kept) st_renderer_destroy(r);
    }
    st_engine *whole = test_engine(seen);
    for (int m = 0; m < count; m++) {
        st_renderer *r = test_renderer(whole, methods[m], W, H, NULL);
        frame want = draw(r, cam, W, H);
        if (memcmp(got[m].rgba, want.rgba, (size_t)W * H * 4))
            fail_msg("%s%s, %s: the far field's colour differs from the level the GPU should read", methods[m],
                     m == 3 ? " (made earlier)" : "", what);
        if (memcmp(got[m].depth, want.depth, (size_t)W * H * sizeof(float)))
            fail_msg("%s%s, %s: the far field's depth differs from the level the GPU should read", methods[m],
                     m == 3 ? " (made earlier)" : "", what);
        free(want.rgba);
        free(want.depth);
        free(got[m].rgba);
        free(got[m].depth);
        st_renderer_destroy(r);
    }
    test_engine_finish(whole, NULL);
}

static void test_far_field_levels(void **state) {
    (void)state;
    st_level *level = world_level();
    st_store *store = world_store(level, "paged-far");
    st_level *coarse[3] = {level, NULL, NULL};
    assert_st_ok(st_level_coarsen(level, &coarse[1], err));
    assert_st_ok(st_level_coarsen(coarse[1], &coarse[2], err));
    st_camera cam = camera_at(300, 400, 60);
    cam.far_dist = 700.0f;
    cam.pitch_deg = -8.0f;
    st_engine_desc ed = {.validate = true};
    st_engine *e = NULL;
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = 64, .far_levels = 2, .full_radius = 96.0f};
    assert_st_ok(st_engine_set_paged_world(e, store, &pd, err));
    st_renderer *kept = test_renderer(e, "voxel-compute", 64, 40, NULL); /* before any page of any level arrived */
    assert_st_ok(st_engine_paged_settle(e, &cam, 20000, NULL, err));
    st_paged_stats ps;
    assert_st_ok(st_engine_paged_stats(e, &ps, err));
    assert_int_equal(ps.levels, 3);
    assert_int_equal(ps.missing, 0);
    assert_true(ps.far_mapped > 0);
    uint32_t fine, far;
    st_level *seen = seen_level(e, store, level, coarse, &fine, &far);
    assert_true(fine > 0 && far > 0); /* both kinds of page in the picture's world (floors where nothing reaches) */
    assert_draws_level(e, seen, cam, "settled", kept);
    st_renderer_destroy(kept);
    test_engine_finish(e, seen);
    st_store_close(store);
    st_level_destroy(coarse[1]);
    st_level_destroy(coarse[2]);
    st_level_destroy(level);
}

/* Edits reach the far field: a crater dug (and a mound raised) far from the eye, where the coarse levels draw the
 * world, is drawn there in the next frame — the coarse levels of the edited world, bit for bit, as the rule above
 * gives them from st_level_coarsen of the whole level edited the same way — and the picture changed. Undone, the
 * far field is the unedited one's again. */
static void test_far_field_follows_edits(void **state) {
    (void)state;
    enum { W = 64, H = 40 };
    st_level *level = world_level();
    st_store *store = world_store(level, "paged-far-edit");
    st_camera cam = camera_at(300, 400, 60);
    cam.far_dist = 700.0f;
    cam.pitch_deg = -8.0f;
    st_engine_desc ed = {.validate = true};
    st_engine *e = NULL;
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = 64, .far_levels = 2, .full_radius = 96.0f};
    assert_st_ok(st_engine_set_paged_world(e, store, &pd, err));
    st_renderer *kept = test_renderer(e, "voxel-compute", W, H, NULL); /* it follows the arrivals and the edits */
    assert_st_ok(st_engine_paged_settle(e, &cam, 20000, NULL, err));
    free(test_draw_depth(kept, cam, W, H));
    st_renderer *r = test_renderer(e, "ray-compute", W, H, NULL);
    float *before = test_draw_depth(r, cam, W, H);
    /* 300 and 420 texels ahead (heading (sin 60°, cos 60°)): coarse levels 1 and 2 draw there */
    const int cx = 300 + 260, cy = 400 + 150, rx = 300 + 364, ry = 400 + 210;
    assert_false(st_engine_paged_level_mapped(e, 0, (uint32_t)cx / PAGE, (uint32_t)cy / PAGE));
    assert_st_ok(st_engine_paged_edit(e, false, cx, cy, 40, 120, NULL, err));
    assert_st_ok(st_engine_paged_edit(e, true, rx, ry, 30, 90, NULL, err));
    float *after = test_draw_depth(r, cam, W, H);
    assert_true(memcmp(before, after, (size_t)W * H * sizeof(float)) != 0); /* the far edits show */
    st_renderer_destroy(r);
    st_level *edited = NULL;
    assert_st_ok(st_level_clone(level, &edited, err));
    assert_st_ok(st_level_dig(edited, cx, cy, 40, 120, NULL, err));
    assert_st_ok(st_level_raise(edited, rx, ry, 30, 90, NULL, err));
    st_level *coarse[3] = {edited, NULL, NULL};
    assert_st_ok(st_level_coarsen(edited, &coarse[1], err));
    assert_st_ok(st_level_coarsen(coarse[1], &coarse[2], err));
    uint32_t fine, far;
    st_level *seen = seen_level(e, store, edited, coarse, &fine, &far);
    assert_draws_level(e, seen, cam, "edited", kept);
    st_level_destroy(seen);
    st_level_destroy(coarse[1]);
    st_level_destroy(coarse[2]);
    /* both undone: the unedited world's far field */
    bool undone = false;
    assert_st_ok(st_engine_paged_undo(e, &undone, NULL, err));
    assert_st_ok(st_engine_paged_undo(e, &undone, NULL, err));
    assert_true(undone);
    coarse[0] = level;
    assert_st_ok(st_level_coarsen(level, &coarse[1], err));
    assert_st_ok(st_level_coarsen(coarse[1], &coarse[2], err));
    seen = seen_level(e, store, level, coarse, &fine, &far);
    assert_draws_level(e, seen, cam, "undone", kept);
    st_renderer_destroy(kept);
    test_engine_finish(e, seen);
    st_store_close(store);
    st_level_destroy(coarse[1]);
    st_level_destroy(coarse[2]);
    st_level_destroy(edited);
    st_level_destroy(level);
    free(before);
    free(after);
}

/* Pages arriving after the shadow map was cast over their floors: the map is cast again where they arrive, as
 * where an edit lands, so a renderer that drew before its pages were resident draws, once they are, what a renderer
 * made afterwards draws (colour bit for bit, shadows included). */
static void test_shadow_follows_arrivals(void **state) {
    (void)state;
    enum { W = 64, H = 40 };
    st_level *level = world_level();
    st_store *store = world_store(level, "paged-shadow");
    st_level_destroy(level);
    st_engine_desc ed = {.validate = true};
    st_engine *e = NULL;
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = POOL};
    assert_st_ok(st_engine_set_paged_world(e, store, &pd, err));
    st_camera cam = camera_at(700, 500, 200);
    st_render_desc rd = {.method = "ray-compute", .width = W, .height = H, .shadows = true, .shadow_size = 256};
    st_renderer *early = NULL, *late = NULL;
    assert_st_ok(st_renderer_create(e, &rd, &early, err));
    frame first = draw(early, cam, W, H); /* the pages are still loading: the map is cast over their floors */
    st_paged_stats ps;
    assert_st_ok(st_engine_paged_stats(e, &ps, err));
    assert_true(ps.missing > 0);
    assert_st_ok(st_engine_paged_settle(e, &cam, 5000, NULL, err));
    frame got = draw(early, cam, W, H);
    assert_st_ok(st_renderer_create(e, &rd, &late, err));
    frame want = draw(late, cam, W, H);
    assert_true(memcmp(first.rgba, want.rgba, (size_t)W * H * 4) != 0); /* the pages changed the picture */
    if (memcmp(got.rgba, want.rgba, (size_t)W * H * 4))
        fail_msg("the renderer that drew before its pages arrived shades them otherwise (a stale shadow map)");
    free(first.rgba);
    free(first.depth);
    free(got.rgba);
    free(got.depth);
    free(want.rgba);
    free(want.depth);
    st_renderer_destroy(early);
    st_renderer_destroy(late);
    test_engine_finish(e, NULL);
    st_store_close(store);
}

/* One flight A → B → A with a renderer drawing every frame (shadows on, so each arrival is told to its passes),
 * pages evicted at B and their CPU copies kept, so that back at A they are all offered again at once. Returns the
 * most pages any frame mapped; *total gets them all, *settled whether every wanted page arrived. */
static uint32_t fly_arrivals(st_store *store, uint32_t bound, uint32_t *total, bool *settled) {
    enum { W = 32, H = 20 };
    st_engine_desc ed = {.validate = true};
    st_engine *e = NULL;
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = POOL, .cpu_tiles = PAGES * PAGES, .far_levels = 1, .full_radius = 96.0f,
                        .slow_load_ms = 5, .upload_pages = bound};
    assert_st_ok(st_engine_set_paged_world(e, store, &pd, err));
    st_render_desc rd = {.method = "ray-compute", .width = W, .height = H, .shadows = true, .shadow_size = 256};
    st_renderer *r = NULL;
    assert_st_ok(st_renderer_create(e, &rd, &r, err));
    const st_camera stops[3] = {camera_at(200, 200, 30), camera_at(700, 650, 30), camera_at(200, 200, 30)};
    uint32_t most = 0;
    *total = 0;
    *settled = true;
    for (int s = 0; s < 3; s++) {
        st_paged_stats ps = {0};
        uint32_t f = 0;
        do { /* until every wanted page is mapped: nothing stays queued for good */
            assert_st_ok(st_renderer_draw(r, &stops[s], NULL, err));
            assert_st_ok(st_engine_paged_stats(e, &ps, err));
            if (ps.arrivals > most) most = ps.arrivals;
            *total += ps.arrivals;
            struct timespec nap = {0, 1000000};
            nanosleep(&nap, NULL);
        } while ((ps.missing || f < 2) && ++f < 4000);
        *settled = *settled && !ps.missing;
    }
    st_renderer_destroy(r);
    test_engine_finish(e, NULL);
    return most;
}

/* The per-frame bound on pages mapped (st_paged_desc.upload_pages): with a bound of N no frame maps more than N
 * pages, every level together, and every page wanted still arrives; the same flight without the bound maps more
 * than N in some frame (the pages offered again at once), so the bound is what holds it. */
static void test_upload_bound(void **state) {
    (void)state;
    st_level *level = world_level();
    st_store *store = world_store(level, "paged-bound");
    st_level_destroy(level);
    for (uint32_t n = 1; n <= 2; n++) {
        uint32_t total, free_total;
        bool settled, free_settled;
        uint32_t most = fly_arrivals(store, n, &total, &settled);
        if (most > n) fail_msg("a frame mapped %u pages with a bound of %u", most, n);
        assert_true(settled);
        uint32_t free_most = fly_arrivals(store, 0, &free_total, &free_settled);
        assert_true(free_settled);
        if (free_most <= n) fail_msg("without a bound the flight maps at most %u pages a frame: it tests nothing", free_most);
        /* the bound delays pages, it drops none: as many arrive, over more frames */
        assert_true(total + 8 >= free_total && total > 0);
    }
    st_store_close(store);
}

/* The prefetch distance follows the pages' time to ready: a flight drawn quickly with slow loads asks for pages
 * farther ahead than its few lookahead frames of motion, since loads are measured in wall time, not frames (a
 * fixed count of frames was outrun when frames came many times faster than real time). */
static void test_lookahead_from_latency(void **state) {
    (void)state;
    enum { W = 32, H = 20, STEP = 4, FRAMES_AHEAD = 2 };
    st_level *level = world_level();
    st_store *store = world_store(level, "paged-ahead");
    st_level_destroy(level);
    st_engine_desc ed = {.validate = true};
    st_engine *e = NULL;
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_paged_desc pd = {.pool_pages = POOL, .cpu_tiles = PAGES * PAGES, .far_levels = 1, .full_radius = 96.0f,
                        .slow_load_ms = 50, .lookahead_frames = FRAMES_AHEAD};
    assert_st_ok(st_engine_set_paged_world(e, store, &pd, err));
    st_render_desc rd = {.method = "ray-compute", .width = W, .height = H};
    st_renderer *r = NULL;
    assert_st_ok(st_renderer_create(e, &rd, &r, err));
    st_camera cam = camera_at(200, 200, 0);
    assert_st_ok(st_engine_paged_settle(e, &cam, 4000, NULL, err)); /* its loads give the time to ready */
    st_paged_stats ps = {0};
    assert_st_ok(st_engine_paged_stats(e, &ps, err));
    assert_true(ps.residency.ready_ms_p90 >= 50);
    double most = 0;
    for (int f = 0; f < 20; f++) {
        cam.position[0] += STEP;
        assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
        assert_st_ok(st_engine_paged_stats(e, &ps, err));
        if (ps.ahead > most) most = ps.ahead;
    }
    /* the frames alone would ask FRAMES_AHEAD · STEP ahead; 50 ms of loads at this speed is far more, unless a
     * frame took longer than 1.5 · 50 / FRAMES_AHEAD ms */
    if (!(most > FRAMES_AHEAD * STEP + STEP))
        fail_msg("pages asked for %.1f texels ahead, no more than %d frames of motion", most, FRAMES_AHEAD);
    st_renderer_destroy(r);
    test_engine_finish(e, NULL);
    st_store_close(store);
}

static void test_paged_bad_input(void **state) {
    (void)state;
    st_level *level = world_level();
    st_engine *e = NULL;
    st_engine_desc ed = {.validate = true};
    assert_st_ok(st_engine_create(&ed, &e, err));
    st_error e2 = {0};
    st_store *other = NULL;
    assert_st_ok(st_store_open("gen:multi:3:512x512", &other, err)); /* another size */
    assert_int_equal(st_engine_set_paged_level(e, level, other, NULL, &e2), ST_ERR_INVALID);
    st_store_close(other);
    assert_st_ok(st_store_open("gen:1:257x257", &other, err)); /* a DEM */
    assert_int_equal(st_engine_set_paged_level(e, level, other, NULL, &e2), ST_ERR_INVALID);
    st_store_close(other);
    st_paged_stats ps;
    assert_int_equal(st_engine_paged_stats(e, &ps, &e2), ST_ERR_INVALID);
    test_engine_finish(e, level);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_table_after_jumps),
        cmocka_unit_test(test_paged_render_equals_texture),
        cmocka_unit_test(test_edits_across_eviction),
        cmocka_unit_test(test_edits_without_level),
        cmocka_unit_test(test_paged_world_without_level),
        cmocka_unit_test(test_voxel_beyond_whole_pyramid),
        cmocka_unit_test(test_voxel_pages_after_jumps_and_edits),
        cmocka_unit_test(test_far_field_levels),
        cmocka_unit_test(test_far_field_follows_edits),
        cmocka_unit_test(test_shadow_follows_arrivals),
        cmocka_unit_test(test_upload_bound),
        cmocka_unit_test(test_lookahead_from_latency),
        cmocka_unit_test(test_paged_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
