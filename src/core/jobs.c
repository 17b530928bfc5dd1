/* The job system: one fixed pool of pthreads fed by a FIFO of tasks. parallel_for hands out chunks
 * through an atomic counter and the calling thread works too, so nested use never deadlocks; a future's
 * waiter runs its task itself when no worker has started it, so it never waits behind long unrelated jobs. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "strata/core.h"

typedef struct task {
    void (*run)(void *);
    void *arg;
    struct task *next;
} task;

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    task *head, *tail;
    unsigned threads; /* workers + the caller */
    bool background;  /* a worker started for st_job_submit in a pool of one thread */
} pool = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static void *worker_main(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&pool.lock);
        while (!pool.head) pthread_cond_wait(&pool.wake, &pool.lock);
        task *t = pool.head;
        pool.head = t->next;
        if (!pool.head) pool.tail = NULL;
        pthread_mutex_unlock(&pool.lock);
        t->run(t->arg);
        free(t);
    }
    return NULL;
}

/* Workers are detached and live for the process: the pool is process-wide like the heap. */
static bool worker_start(void) {
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    bool ok = pthread_create(&th, &attr, worker_main, NULL) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

static void pool_init(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("STRATA_THREADS");
    if (env && atoi(env) > 0) cores = atoi(env);
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
    /* The web build's one-thread mode: wasm without shared memory has no threads, so parallel_for and futures
     * run on the caller and st_job_submit refuses (its callers then do the work themselves). */
    cores = 1;
#endif
    if (cores < 1) cores = 1;
    if (cores > 256) cores = 256;
    pool.threads = 1;
    for (long i = 1; i < cores; i++)
        if (worker_start()) pool.threads++;
}

unsigned st_job_threads(void) {
    pthread_once(&pool.once, pool_init);
    return pool.threads;
}

static bool pool_push(void (*run)(void *), void *arg) {
    task *t = malloc(sizeof *t);
    if (!t) return false;
    t->run = run;
    t->arg = arg;
    t->next = NULL;
    pthread_mutex_lock(&pool.lock);
    if (pool.tail) pool.tail->next = t;
    else pool.head = t;
    pool.tail = t;
    pthread_cond_signal(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    return true;
}

/* Takes a task that no worker has started yet back out of the FIFO; false when it has started (or ran). */
static bool pool_withdraw(void (*run)(void *), void *arg) {
    pthread_mutex_lock(&pool.lock);
    task *prev = NULL, *t = pool.head;
    while (t && !(t->run == run && t->arg == arg)) prev = t, t = t->next;
    if (t) {
        if (prev) prev->next = t->next;
        else pool.head = t->next;
        if (pool.tail == t) pool.tail = prev;
    }
    pthread_mutex_unlock(&pool.lock);
    free(t);
    return t != NULL;
}

/* ---- parallel for ------------------------------------------------------------------------------------
 * The job lives on the heap with a reference per helper task: the caller waits only until every item is done,
 * never for helper tasks to start. A helper that starts late (after the caller's own thread finished all the
 * chunks) finds nothing left and just drops its reference. Waiting for helpers to start would deadlock nested
 * use: an outer helper blocked in an inner parallel_for holds a worker that the inner helper task needs. */
typedef struct {
    st_range_fn fn;
    void *user;
    size_t count, grain;
    atomic_size_t next, done;
    atomic_int refs;
    pthread_mutex_t lock;
    pthread_cond_t finished;
} range_job;

static void range_release(range_job *j) {
    if (atomic_fetch_sub(&j->refs, 1) != 1) return;
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->finished);
    free(j);
}

static void range_work(range_job *j) {
    for (;;) {
        size_t begin = atomic_fetch_add(&j->next, j->grain);
        if (begin >= j->count) break;
        size_t end = begin + j->grain < j->count ? begin + j->grain : j->count;
        j->fn(j->user, begin, end);
        if (atomic_fetch_add(&j->done, end - begin) + (end - begin) == j->count) {
            pthread_mutex_lock(&j->lock);
            pthread_cond_signal(&j->finished);
            pthread_mutex_unlock(&j->lock);
        }
    }
}

static void range_help(void *arg) {
    range_job *j = arg;
    range_work(j);
    range_release(j);
}

void st_parallel_for(size_t count, size_t grain, st_range_fn fn, void *user) {
    if (!count) return;
    unsigned threads = st_job_threads();
    if (!grain) grain = (count + threads * 4 - 1) / (threads * 4);
    if (!grain) grain = 1;
    size_t chunks = (count + grain - 1) / grain;
    range_job *j = threads > 1 && chunks > 1 ? calloc(1, sizeof *j) : NULL;
    if (!j) {
        fn(user, 0, count);
        return;
    }
    j->fn = fn;
    j->user = user;
    j->count = count;
    j->grain = grain;
    atomic_init(&j->next, 0);
    atomic_init(&j->done, 0);
    atomic_init(&j->refs, 1);
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->finished, NULL);
    unsigned helpers = threads - 1;
    if (helpers > chunks - 1) helpers = (unsigned)(chunks - 1);
    for (unsigned i = 0; i < helpers; i++) {
        atomic_fetch_add(&j->refs, 1);
        if (!pool_push(range_help, j)) {
            atomic_fetch_sub(&j->refs, 1);
            break;
        }
    }
    range_work(j);
    pthread_mutex_lock(&j->lock);
    while (atomic_load(&j->done) < count) pthread_cond_wait(&j->finished, &j->lock);
    pthread_mutex_unlock(&j->lock);
    range_release(j);
}

/* ---- futures ----------------------------------------------------------------------------------------- */
struct st_future {
    st_task_fn fn;
    void *user;
    bool finished;
    pthread_mutex_t lock;
    pthread_cond_t done;
};

static void future_run(void *arg) {
    st_future *f = arg;
    f->fn(f->user);
    pthread_mutex_lock(&f->lock);
    f->finished = true;
    pthread_cond_broadcast(&f->done);
    pthread_mutex_unlock(&f->lock);
}

st_future *st_async(st_task_fn fn, void *user) {
    st_job_threads();
    st_future *f = calloc(1, sizeof *f);
    if (!f) {
        fn(user);
        return NULL;
    }
    f->fn = fn;
    f->user = user;
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->done, NULL);
    if (pool.threads == 1 || !pool_push(future_run, f)) future_run(f);
    return f;
}

void st_future_wait(st_future *f) {
    if (!f) return;
    /* Still queued: run it here rather than wait for a worker to reach it. */
    if (pool_withdraw(future_run, f)) future_run(f);
    pthread_mutex_lock(&f->lock);
    while (!f->finished) pthread_cond_wait(&f->done, &f->lock);
    pthread_mutex_unlock(&f->lock);
    pthread_mutex_destroy(&f->lock);
    pthread_cond_destroy(&f->done);
    free(f);
}

/* ---- fire and forget ----------------------------------------------------------------------------------- */
bool st_job_submit(st_task_fn fn, void *user) {
    st_job_threads();
    if (pool.threads == 1) {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
        return false; /* no thread to start */
#endif
        pthread_mutex_lock(&pool.lock);
        if (!pool.background) pool.background = worker_start();
        bool have_worker = pool.background;
        pthread_mutex_unlock(&pool.lock);
        if (!have_worker) return false;
    }
    return pool_push(fn, user);
}
