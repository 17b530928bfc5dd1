/* The job system: parallel_for covers every index once, nests without deadlock (helpers blocked in inner loops
 * must not wait for helper tasks no thread can start), and futures run their task; fire-and-forget jobs run
 * once each, on a worker and never on the caller's thread (also in a pool of one thread); and a caller that
 * waits (parallel_for, a future) never waits behind jobs that are busy elsewhere. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* ---- fire and forget ------------------------------------------------------------------------------------ */

#define SUBMITS 64

typedef struct submit_state {
    pthread_mutex_t lock;
    pthread_cond_t done;
    pthread_t caller;
    int ran[SUBMITS];
    int finished, on_caller;
} submit_state;

typedef struct submit_arg {
    submit_state *s;
    int index;
} submit_arg;

static void submit_job(void *user) {
    submit_arg *a = user;
    pthread_mutex_lock(&a->s->lock);
    a->s->ran[a->index]++;
    if (pthread_equal(pthread_self(), a->s->caller)) a->s->on_caller++;
    a->s->finished++;
    pthread_cond_signal(&a->s->done);
    pthread_mutex_unlock(&a->s->lock);
}

/* Submits SUBMITS jobs and waits for their own signal; returns how many ran on the caller's thread, or -1
 * when one ran other than once. */
static int submit_and_wait(void) {
    submit_state s = {.caller = pthread_self()};
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.done, NULL);
    submit_arg args[SUBMITS];
    for (int i = 0; i < SUBMITS; i++) {
        args[i] = (submit_arg){&s, i};
        if (!st_job_submit(submit_job, &args[i])) return -1;
    }
    pthread_mutex_lock(&s.lock);
    while (s.finished < SUBMITS) pthread_cond_wait(&s.done, &s.lock);
    pthread_mutex_unlock(&s.lock);
    for (int i = 0; i < SUBMITS; i++)
        if (s.ran[i] != 1) return -1;
    pthread_mutex_destroy(&s.lock);
    pthread_cond_destroy(&s.done);
    return s.on_caller;
}

static void test_submit_runs_each_job_once_off_the_caller(void **state) {
    (void)state;
    assert_int_equal(submit_and_wait(), 0);
}

/* The same in a process whose pool has one thread: there the submitted jobs get a worker of their own. */
static void test_submit_in_a_pool_of_one_thread(void **state) {
    (void)state;
    char self[4096], cmd[4200];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(k > 0);
    self[k] = 0;
    snprintf(cmd, sizeof cmd, "STRATA_THREADS=1 '%s' --submit", self);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int threads = -1, on_caller = -1;
    int got = fscanf(p, "%d %d", &threads, &on_caller);
    pclose(p);
    assert_int_equal(got, 2);
    assert_int_equal(threads, 1);
    assert_int_equal(on_caller, 0);
}

/* ---- waiting never waits behind busy workers ------------------------------------------------------------- */

/* Jobs that hold every worker until released (or until a timeout, so that a broken pool fails instead of
 * hanging). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool release;
    int started, finished;
} blockers = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, 0};

static void blocker_job(void *user) {
    (void)user;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 3;
    pthread_mutex_lock(&blockers.lock);
    blockers.started++;
    pthread_cond_broadcast(&blockers.cond);
    while (!blockers.release)
        if (pthread_cond_timedwait(&blockers.cond, &blockers.lock, &until)) break;
    blockers.finished++;
    pthread_cond_broadcast(&blockers.cond);
    pthread_mutex_unlock(&blockers.lock);
}

/* Occupies every worker with a blocker (and waits until each has started). */
static int block_workers(void) {
    int workers = (int)st_job_threads() - 1;
    blockers.release = false;
    blockers.started = blockers.finished = 0;
    for (int i = 0; i < workers; i++) assert_true(st_job_submit(blocker_job, NULL));
    pthread_mutex_lock(&blockers.lock);
    while (blockers.started < workers) pthread_cond_wait(&blockers.cond, &blockers.lock);
    pthread_mutex_unlock(&blockers.lock);
    return workers;
}

/* Returns how many blockers had finished when called, then releases them and waits for all. */
static int release_workers(int workers) {
    pthread_mutex_lock(&blockers.lock);
    int finished_before = blockers.finished;
    blockers.release = true;
    pthread_cond_broadcast(&blockers.cond);
    while (blockers.finished < workers) pthread_cond_wait(&blockers.cond, &blockers.lock);
    pthread_mutex_unlock(&blockers.lock);
    return finished_before;
}

static void sum_range(void *user, size_t begin, size_t end) {
    atomic_size_t *sum = user;
    for (size_t i = begin; i < end; i++) atomic_fetch_add(sum, i);
}

static void test_parallel_for_does_not_wait_behind_busy_workers(void **state) {
    (void)state;
    int workers = block_workers();
    atomic_size_t sum;
    atomic_init(&sum, 0);
    st_parallel_for(1000, 10, sum_range, &sum);
    /* It returned while every worker was still held: its helpers never had to run. */
    assert_int_equal(release_workers(workers), 0);
    assert_int_equal(atomic_load(&sum), 999 * 1000 / 2);
}

static void set_flag(void *user) { *(int *)user = 1; }

static void test_future_wait_runs_a_queued_future_itself(void **state) {
    (void)state;
    int workers = block_workers();
    int flag = 0;
    st_future *f = st_async(set_flag, &flag);
    st_future_wait(f);
    assert_int_equal(flag, 1);
    assert_int_equal(release_workers(workers), 0);
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--submit")) { /* helper mode for the one-thread test */
        int on_caller = submit_and_wait();
        printf("%u %d\n", st_job_threads(), on_caller);
        return on_caller == 0 ? 0 : 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_covers_once),
        cmocka_unit_test(test_nested_does_not_deadlock),
        cmocka_unit_test(test_futures),
        cmocka_unit_test(test_submit_runs_each_job_once_off_the_caller),
        cmocka_unit_test(test_submit_in_a_pool_of_one_thread),
        cmocka_unit_test(test_parallel_for_does_not_wait_behind_busy_workers),
        cmocka_unit_test(test_future_wait_runs_a_queued_future_itself),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
