/* The job system: parallel_for covers every index once, nests without deadlock (helpers blocked in inner loops
 * must not wait for helper tasks no thread can start), and futures run their task. */
#include <stdatomic.h>
#include <stdlib.h>

#include "strata/core.h"
#include "support.h"

typedef struct counts {
    atomic_int hits[4096];
    int depth;
} counts;

static void mark(void *user, size_t begin, size_t end) {
    counts *c = user;
    for (size_t i = begin; i < end; i++) atomic_fetch_add(&c->hits[i], 1);
}

static void test_covers_once(void **state) {
    (void)state;
    counts *c = calloc(1, sizeof *c);
    st_parallel_for(4096, 7, mark, c);
    for (int i = 0; i < 4096; i++) assert_int_equal(atomic_load(&c->hits[i]), 1);
    free(c);
}

/* Four levels of four-way nesting, as the tile store builder recurses into a quadtree. */
typedef struct nest {
    atomic_int *leaves;
    int depth;
} nest;

static void nested(void *user, size_t begin, size_t end) {
    const nest *n = user;
    for (size_t i = begin; i < end; i++) {
        if (n->depth == 0) {
            atomic_fetch_add(n->leaves, 1);
            continue;
        }
        nest inner = {n->leaves, n->depth - 1};
        st_parallel_for(4, 1, nested, &inner);
    }
}

static void test_nested_does_not_deadlock(void **state) {
    (void)state;
    for (int round = 0; round < 50; round++) {
        atomic_int leaves = 0;
        nest n = {&leaves, 4};
        st_parallel_for(4, 1, nested, &n);
        assert_int_equal(atomic_load(&leaves), 4 * 4 * 4 * 4 * 4);
    }
}

static void bump(void *user) { atomic_fetch_add((atomic_int *)user, 1); }

static void test_futures(void **state) {
    (void)state;
    atomic_int v = 0;
    st_future *f[8];
    for (int i = 0; i < 8; i++) f[i] = st_async(bump, &v);
    for (int i = 0; i < 8; i++) st_future_wait(f[i]);
    assert_int_equal(atomic_load(&v), 8);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_covers_once),
        cmocka_unit_test(test_nested_does_not_deadlock),
        cmocka_unit_test(test_futures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
