/* GPU tests of the tile pool: tiles of every encoding read back bit-exact from their slots, many uploads
 * wrapping the staging ring, the frame budget refusing uploads that then succeed next frame, tickets that
 * complete only after the GPU has run their batch (held back by a gate on the queue), slots overwritten in
 * place, and the uploader interface refusing tiles that do not fit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/render_internal.h"
#include "strata/tile_pool.h"
#include "support.h"

static st_engine *engine_without_level(void) {
    st_engine *e = NULL;
    st_engine_desc d = {.validate = true};
    assert_st_ok(st_engine_create(&d, &e, err));
    return e;
}

static st_tile_kind kind_of(st_tile_encoding enc) { return enc == ST_TILE_PAIRS ? ST_TILE_LAYERS : ST_TILE_DEM; }

/* A tile whose every byte depends on `seed` and its position (so no two test tiles agree anywhere). */
static st_tile *pattern_tile(st_tile_encoding enc, uint32_t size, uint32_t seed) {
    st_tile *t = NULL;
    assert_st_ok(st_tile_create(kind_of(enc), enc, size, &t, err));
    t->key = (st_tile_key){0, seed, 0};
    uint32_t h = seed * 2654435761u + 12345u;
    if (enc == ST_TILE_F32) {
        float *f = t->data;
        size_t n = t->data_bytes / 4;
        for (size_t i = 0; i < n; i++) {
            h = h * 1664525u + 1013904223u;
            f[i] = (float)(h >> 8) * 0.001f - 5000.0f;
        }
        /* values a conversion would change: the copy must carry bits, not numbers */
        uint32_t odd[4] = {0x80000000u /* -0 */, 0x00000001u /* denormal */, 0x7F800000u /* inf */,
                           0x7FC01234u /* NaN with a payload */};
        memcpy(f, odd, sizeof odd);
    } else {
        uint8_t *b = t->data;
        for (size_t i = 0; i < t->data_bytes; i++) {
            h = h * 1664525u + 1013904223u;
            b[i] = (uint8_t)(h >> 24);
        }
    }
    return t;
}

static void expect_slot(st_tile_pool *p, uint32_t slot, const st_tile *t) {
    size_t n = (size_t)st_tile_pool_tile_bytes(p);
    uint8_t *got = malloc(n);
    assert_st_ok(st_tile_pool_read_slot(p, slot, got, n, err));
    if (t) {
        if (memcmp(got, t->data, n)) {
            size_t i = 0;
            while (got[i] == ((const uint8_t *)t->data)[i]) i++;
            fail_msg("slot %u: byte %zu is %u, the tile's %u", slot, i, got[i], ((const uint8_t *)t->data)[i]);
        }
    } else {
        for (size_t i = 0; i < n; i++)
            if (got[i]) fail_msg("slot %u never uploaded: byte %zu is %u, not 0", slot, i, got[i]);
    }
    free(got);
}

/* Small frame budgets keep the rings (3 budgets by default) small on lavapipe. */
static st_tile_pool *make_pool(st_engine *e, st_tile_pool_desc d) {
    if (!d.frame_budget_bytes) d.frame_budget_bytes = 1u << 20;
    st_tile_pool *p = NULL;
    assert_st_ok(st_tile_pool_create(e, &d, &p, err));
    return p;
}

static void test_each_encoding_reads_back_exact(void **state) {
    (void)state;
    st_engine *e = engine_without_level();
    struct {
        st_tile_encoding enc;
        uint32_t size;
        bool uint;
        const char *format;
        uint64_t bytes;
    } cases[] = {{ST_TILE_U16, 17, false, "R16_UNORM", 17 * 17 * 2},
                 {ST_TILE_U16, 17, true, "R16_UINT", 17 * 17 * 2},
                 {ST_TILE_F32, 33, false, "R32_SFLOAT", 33 * 33 * 4},
                 {ST_TILE_PAIRS, 16, false, "RGBA8_UINT", 8 * 16 * 4}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        st_tile_pool *p = make_pool(e, (st_tile_pool_desc){.encoding = cases[c].enc, .tile_size = cases[c].size,
                                                           .slots = 4, .u16_uint = cases[c].uint});
        st_tile_pool_stats s = st_tile_pool_get_stats(p);
        assert_string_equal(s.format, cases[c].format);
        assert_int_equal(st_tile_pool_tile_bytes(p), cases[c].bytes);
        st_tile *t[3];
        uint64_t ticket = 0;
        for (uint32_t i = 0; i < 3; i++) {
            t[i] = pattern_tile(cases[c].enc, cases[c].size, (uint32_t)(10 * c + i + 1));
            assert_true(st_tile_pool_upload(p, i, t[i], &ticket));
        }
        assert_false(st_tile_pool_complete(p, ticket)); /* not flushed: cannot be done */
        assert_st_ok(st_tile_pool_flush(p, err));
        assert_st_ok(st_tile_pool_wait(p, ticket, err));
        assert_true(st_tile_pool_complete(p, ticket));
        for (uint32_t i = 0; i < 3; i++) expect_slot(p, i, t[i]);
        expect_slot(p, 3, NULL); /* slots start zeroed */
        s = st_tile_pool_get_stats(p);
        assert_int_equal(s.uploads, 3);
        assert_int_equal(s.bytes_uploaded, 3 * cases[c].bytes);
        assert_int_equal(s.batches_submitted, 1);
        assert_int_equal(s.batches_done, 1);
        assert_int_equal(s.ring_used, 0);
        assert_non_null(s.memory);
        for (uint32_t i = 0; i < 3; i++) st_tile_destroy(t[i]);
        st_tile_pool_destroy(p);
    }
    test_engine_finish(e, NULL);
}

static void test_budget_refuses_then_next_frame(void **state) {
    (void)state;
    st_engine *e = engine_without_level();
    const uint64_t tile = 17 * 17 * 2;
    st_tile_pool *p = make_pool(e, (st_tile_pool_desc){.encoding = ST_TILE_U16, .tile_size = 17, .slots = 4,
                                                       .frame_budget_bytes = 2 * tile + 100});
    st_tile *t[3];
    uint64_t k[3] = {0};
    for (uint32_t i = 0; i < 3; i++) t[i] = pattern_tile(ST_TILE_U16, 17, 100 + i);
    assert_true(st_tile_pool_upload(p, 0, t[0], &k[0]));
    assert_true(st_tile_pool_upload(p, 1, t[1], &k[1]));
    assert_false(st_tile_pool_upload(p, 2, t[2], &k[2])); /* the frame's budget is spent */
    assert_int_equal(st_tile_pool_get_stats(p).refused_budget, 1);
    assert_st_ok(st_tile_pool_flush(p, err));
    assert_true(st_tile_pool_upload(p, 2, t[2], &k[2])); /* the next frame has a fresh budget */
    assert_true(k[2] > k[1]);
    assert_st_ok(st_tile_pool_flush(p, err));
    assert_st_ok(st_tile_pool_wait(p, k[2], err));
    assert_true(st_tile_pool_complete(p, k[0]) && st_tile_pool_complete(p, k[1]));
    for (uint32_t i = 0; i < 3; i++) expect_slot(p, i, t[i]);
    assert_int_equal(st_tile_pool_get_stats(p).uploads, 3);
    for (uint32_t i = 0; i < 3; i++) st_tile_destroy(t[i]);
    st_tile_pool_destroy(p);
    test_engine_finish(e, NULL);
}

/* Frames of two uploads each through a ring of a little over three tiles: the ring wraps again and again, an
 * upload refused for ring space succeeds once an older batch is done, and every slot ends with its last tile. */
static void test_many_uploads_wrap_the_ring(void **state) {
    (void)state;
    st_engine *e = engine_without_level();
    const uint32_t size = 65, slots = 5;
    const uint64_t tile = (uint64_t)size * size * 2;
    st_tile_pool *p = make_pool(e, (st_tile_pool_desc){.encoding = ST_TILE_U16, .tile_size = size, .slots = slots,
                                                       .ring_bytes = 3 * tile});
    st_tile *last[5] = {0};
    uint64_t pending = 0;
    uint32_t refused = 0;
    for (uint32_t frame = 0; frame < 40; frame++) {
        for (uint32_t j = 0; j < 2; j++) {
            uint32_t slot = (frame * 2 + j) % slots;
            st_tile *t = pattern_tile(ST_TILE_U16, size, 1000 + frame * 2 + j);
            uint64_t k;
            if (!st_tile_pool_upload(p, slot, t, &k)) {
                refused++;
                /* no room: the bytes are the older batches' until they finish */
                assert_true(pending > 0);
                assert_st_ok(st_tile_pool_wait(p, pending, err));
                assert_true(st_tile_pool_upload(p, slot, t, &k));
            }
            st_tile_destroy(last[slot]);
            last[slot] = t;
            pending = k;
        }
        assert_st_ok(st_tile_pool_flush(p, err));
    }
    assert_st_ok(st_tile_pool_wait(p, pending, err));
    for (uint32_t s = 0; s < slots; s++) expect_slot(p, s, last[s]);
    st_tile_pool_stats st = st_tile_pool_get_stats(p);
    assert_int_equal(st.uploads, 80);
    assert_true(st.ring_wraps >= 20);
    assert_int_equal(st.refused_ring, refused);
    assert_int_equal(st.ring_used, 0);
    for (uint32_t s = 0; s < slots; s++) st_tile_destroy(last[s]);
    st_tile_pool_destroy(p);
    test_engine_finish(e, NULL);
}

static void sleep_ms(long ms) {
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* A gate on the queue: a submission whose command waits until the test signals `value` from the host.
 * Everything submitted after it runs only once the gate opens (the pool's first barrier waits for all earlier
 * commands), so a batch behind a gate keeps its tickets incomplete and its ring bytes taken. */
typedef struct gate {
    VkSemaphore semaphore;
    st_gpu_buffer scratch;
    VkCommandBuffer cmd[2];
} gate;

static void gate_create(st_gpu *gpu, gate *g) {
    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
    assert_int_equal(vkCreateSemaphore(gpu->device, &si, NULL, &g->semaphore), VK_SUCCESS);
    assert_st_ok(st_gpu_buffer_create(gpu, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, false, &g->scratch, err));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = gpu->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 2};
    assert_int_equal(vkAllocateCommandBuffers(gpu->device, &ai, g->cmd), VK_SUCCESS);
}

/* Submits the gate's waiter for `value` (1 or 2). */
static void gate_submit(st_gpu *gpu, gate *g, uint64_t value) {
    VkCommandBuffer cmd = g->cmd[value - 1];
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cmd, &bi);
    vkCmdFillBuffer(cmd, g->scratch.buffer, 0, 256, (uint32_t)value);
    vkEndCommandBuffer(cmd);
    VkCommandBufferSubmitInfo ci = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd};
    VkSemaphoreSubmitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                  .semaphore = g->semaphore,
                                  .value = value,
                                  .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkSubmitInfo2 sub = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                         .waitSemaphoreInfoCount = 1,
                         .pWaitSemaphoreInfos = &wait,
                         .commandBufferInfoCount = 1,
                         .pCommandBufferInfos = &ci};
    assert_int_equal(vkQueueSubmit2(gpu->queue, 1, &sub, VK_NULL_HANDLE), VK_SUCCESS);
}

static void gate_open(st_gpu *gpu, gate *g, uint64_t value) {
    VkSemaphoreSignalInfo open = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, .semaphore = g->semaphore,
                                  .value = value};
    assert_int_equal(vkSignalSemaphore(gpu->device, &open), VK_SUCCESS);
}

static void gate_destroy(st_gpu *gpu, gate *g) {
    vkQueueWaitIdle(gpu->queue);
    vkFreeCommandBuffers(gpu->device, gpu->pool, 2, g->cmd);
    vkDestroySemaphore(gpu->device, g->semaphore, NULL);
    st_gpu_buffer_destroy(gpu, &g->scratch);
}

/* Two batches, each behind a gate, through a ring of three tiles: tickets stay incomplete until their own batch
 * has run, and the ring hands out again exactly the bytes of the batch that finished — never those of the one
 * still held, whose tile must still arrive intact. */
static void test_tickets_complete_only_after_the_gpu(void **state) {
    (void)state;
    st_engine *e = engine_without_level();
    st_gpu *gpu = e->gpu;
    const uint32_t size = 65;
    const uint64_t tile = (uint64_t)size * size * 2, footprint = (tile + 15) / 16 * 16;
    st_tile_pool *p = make_pool(e, (st_tile_pool_desc){.encoding = ST_TILE_U16, .tile_size = size, .slots = 3,
                                                       .ring_bytes = 3 * footprint});
    assert_true(st_tile_pool_get_stats(p).ring_bytes < 4 * footprint);
    st_tile *t[6];
    for (uint32_t i = 0; i < 6; i++) t[i] = pattern_tile(ST_TILE_U16, size, 50 + i);
    gate g;
    gate_create(gpu, &g);
    uint64_t k[6];
    gate_submit(gpu, &g, 1);
    assert_true(st_tile_pool_upload(p, 0, t[0], &k[0]));
    assert_true(st_tile_pool_upload(p, 1, t[1], &k[1]));
    assert_int_equal(k[0], k[1]); /* one frame, one batch */
    assert_st_ok(st_tile_pool_flush(p, err));
    gate_submit(gpu, &g, 2);
    assert_true(st_tile_pool_upload(p, 2, t[2], &k[2]));
    assert_st_ok(st_tile_pool_flush(p, err));
    for (int i = 0; i < 5; i++) {
        sleep_ms(20);
        assert_false(st_tile_pool_complete(p, k[0]));
        assert_false(st_tile_pool_complete(p, k[2]));
    }
    /* three tiles in a ring of three, all still to be read: no room, however long we wait */
    assert_false(st_tile_pool_upload(p, 0, t[3], &k[3]));
    assert_int_equal(st_tile_pool_get_stats(p).refused_ring, 1);
    assert_int_equal(st_tile_pool_get_stats(p).batches_done, 0);

    gate_open(gpu, &g, 1);
    assert_st_ok(st_tile_pool_wait(p, k[0], err));
    assert_true(st_tile_pool_complete(p, k[0]));
    sleep_ms(20);
    assert_false(st_tile_pool_complete(p, k[2])); /* its own gate is still shut */
    /* the first batch's two tiles are free again; the third tile's bytes are not */
    assert_true(st_tile_pool_upload(p, 0, t[3], &k[3]));
    assert_true(st_tile_pool_upload(p, 1, t[4], &k[4]));
    assert_false(st_tile_pool_upload(p, 2, t[5], &k[5]));
    assert_int_equal(st_tile_pool_get_stats(p).refused_ring, 2);

    gate_open(gpu, &g, 2);
    assert_st_ok(st_tile_pool_wait(p, k[2], err));
    expect_slot(p, 2, t[2]); /* arrived intact */
    assert_st_ok(st_tile_pool_wait(p, k[3], err)); /* flushes the current frame's batch first */
    assert_true(st_tile_pool_upload(p, 2, t[5], &k[5]));
    assert_true(k[5] > k[3]);
    assert_st_ok(st_tile_pool_wait(p, k[5], err));
    expect_slot(p, 0, t[3]);
    expect_slot(p, 1, t[4]);
    expect_slot(p, 2, t[5]);
    gate_destroy(gpu, &g);
    for (uint32_t i = 0; i < 6; i++) st_tile_destroy(t[i]);
    st_tile_pool_destroy(p);
    test_engine_finish(e, NULL);
}

static void test_slots_overwritten_in_place(void **state) {
    (void)state;
    st_engine *e = engine_without_level();
    st_tile_pool *p = make_pool(e, (st_tile_pool_desc){.encoding = ST_TILE_F32, .tile_size = 9, .slots = 3});
    st_tile *x = pattern_tile(ST_TILE_F32, 9, 21), *y = pattern_tile(ST_TILE_F32, 9, 22),
            *z = pattern_tile(ST_TILE_F32, 9, 23), *q = pattern_tile(ST_TILE_F32, 9, 24);
    uint64_t k;
    assert_true(st_tile_pool_upload(p, 1, x, &k));
    assert_true(st_tile_pool_upload(p, 2, y, &k));
    assert_st_ok(st_tile_pool_wait(p, k, err));
    expect_slot(p, 1, x);
    assert_true(st_tile_pool_upload(p, 1, z, &k)); /* a later frame */
    assert_st_ok(st_tile_pool_wait(p, k, err));
    expect_slot(p, 1, z);
    expect_slot(p, 2, y);
    expect_slot(p, 0, NULL);
    /* twice in one frame: the later tile wins */
    uint64_t k1, k2;
    assert_true(st_tile_pool_upload(p, 0, q, &k1));
    assert_true(st_tile_pool_upload(p, 0, x, &k2));
    assert_int_equal(k1, k2);
    assert_st_ok(st_tile_pool_wait(p, k2, err));
    assert_int_equal(st_tile_pool_get_stats(p).last_batch_bytes, 9 * 9 * 4); /* one copy, not two */
    expect_slot(p, 0, x);
    expect_slot(p, 1, z);
    st_tile_pool_stats s = st_tile_pool_get_stats(p);
    assert_int_equal(s.uploads, 5);
    assert_int_equal(s.batches_done, 3);
    st_tile_destroy(x);
    st_tile_destroy(y);
    st_tile_destroy(z);
    st_tile_destroy(q);
    st_tile_pool_destroy(p);
    test_engine_finish(e, NULL);
}

static void test_uploader_interface_and_rejects(void **state) {
    (void)state;
    st_engine *e = engine_without_level();
    st_tile_pool *p = make_pool(e, (st_tile_pool_desc){.encoding = ST_TILE_PAIRS, .tile_size = 8, .slots = 2,
                                                       .memory = ST_STAGING_UNCACHED});
    st_tile_uploader up = st_tile_pool_uploader(p);
    st_tile *good = pattern_tile(ST_TILE_PAIRS, 8, 31), *small = pattern_tile(ST_TILE_PAIRS, 4, 32),
            *dem = pattern_tile(ST_TILE_U16, 9, 33);
    uint64_t k = 0;
    st_error why = {0};
    assert_true(st_tile_pool_accepts(p, good, &why));
    assert_false(st_tile_pool_accepts(p, small, &why));
    assert_non_null(strstr(why.message, "4 a side"));
    assert_false(st_tile_pool_accepts(p, dem, &why));
    assert_false(up.upload(up.user, 0, small, &k));
    assert_false(up.upload(up.user, 0, dem, &k));
    assert_false(up.upload(up.user, 2, good, &k)); /* no slot 2 */
    size_t bytes = good->data_bytes;
    good->data_bytes = bytes - 4;
    assert_false(st_tile_pool_accepts(p, good, &why));
    assert_non_null(strstr(why.message, "bytes"));
    good->data_bytes = bytes;
    assert_int_equal(st_tile_pool_get_stats(p).rejected, 3);
    assert_true(up.upload(up.user, 1, good, &k));
    assert_false(up.complete(up.user, k));
    assert_st_ok(st_tile_pool_flush(p, err));
    for (int i = 0; i < 2000 && !up.complete(up.user, k); i++) sleep_ms(1); /* polls, as the residency does */
    assert_true(up.complete(up.user, k));
    expect_slot(p, 1, good);
    assert_int_equal(st_tile_pool_get_stats(p).uploads, 1);
    st_tile_destroy(good);
    st_tile_destroy(small);
    st_tile_destroy(dem);
    st_tile_pool_destroy(p);
    test_engine_finish(e, NULL);
}

static void test_bad_descriptions(void **state) {
    (void)state;
    st_engine *e = engine_without_level();
    struct {
        st_tile_pool_desc d;
        st_result want;
        const char *says;
    } cases[] = {
        {{.tile_size = 17, .slots = 1}, ST_ERR_INVALID, "encoding"},
        {{.encoding = ST_TILE_U16, .slots = 1}, ST_ERR_INVALID, "tile size"},
        {{.encoding = ST_TILE_U16, .tile_size = 2000, .slots = 1}, ST_ERR_INVALID, "tile size"},
        {{.encoding = ST_TILE_PAIRS, .tile_size = 15, .slots = 1}, ST_ERR_INVALID, "even"},
        {{.encoding = ST_TILE_U16, .tile_size = 17}, ST_ERR_INVALID, "slots"},
        {{.encoding = ST_TILE_F32, .tile_size = 17, .slots = 1, .frame_budget_bytes = 100}, ST_ERR_INVALID, "budget"},
        {{.encoding = ST_TILE_F32, .tile_size = 17, .slots = 1, .ring_bytes = 1000}, ST_ERR_INVALID, "ring"},
        {{.encoding = ST_TILE_U16, .tile_size = 17, .slots = 1u << 24}, ST_ERR_UNSUPPORTED, "layers"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        st_tile_pool *p = (st_tile_pool *)1;
        st_error why = {0};
        st_result r = st_tile_pool_create(e, &cases[i].d, &p, &why);
        if (r != cases[i].want || !strstr(why.message, cases[i].says))
            fail_msg("case %zu: result %d, message '%s'", i, (int)r, why.message);
        assert_null(p);
    }
    test_engine_finish(e, NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_encoding_reads_back_exact),
        cmocka_unit_test(test_budget_refuses_then_next_frame),
        cmocka_unit_test(test_many_uploads_wrap_the_ring),
        cmocka_unit_test(test_tickets_complete_only_after_the_gpu),
        cmocka_unit_test(test_slots_overwritten_in_place),
        cmocka_unit_test(test_uploader_interface_and_rejects),
        cmocka_unit_test(test_bad_descriptions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
