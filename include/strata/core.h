/* strata core: result codes and errors with messages, logging, timers, the job system.
 * The library never exits or aborts: every failure comes back as an st_result with a message. */
#ifndef STRATA_CORE_H
#define STRATA_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum st_result {
    ST_OK = 0,
    ST_ERR_INVALID,     /* bad argument or bad input data (the caller's fault): CLI exit 2 */
    ST_ERR_IO,          /* a file could not be opened, read or written */
    ST_ERR_FORMAT,      /* a file's content is corrupt, truncated or unsupported */
    ST_ERR_NOMEM,       /* an allocation failed or a size is past a sane bound */
    ST_ERR_GPU,         /* Vulkan failed: no device, device lost, out of device memory */
    ST_ERR_UNSUPPORTED, /* the device or build lacks a needed feature */
    ST_ERR_CANCELLED,   /* the caller asked a long run to stop (the CLI on SIGINT) */
    ST_ERR_NO_SPACE,    /* a write found no room: a full disk, a quota or a file-size limit (the machine's fault) */
} st_result;

typedef struct st_error {
    st_result code;
    char message[512];
} st_error;

/* Records a formatted message in err (when err is non-NULL) and returns code. */
st_result st_error_set(st_error *err, st_result code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixes an existing message with context ("reading x.vmc: ..."). Returns err->code. */
st_result st_error_prefix(st_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A short lower-case name of a result code ("invalid input", "i/o error"), for messages. */
const char *st_result_name(st_result r);
/* The code for a failed write with errno e: ST_ERR_NO_SPACE when there was no room for it (ENOSPC, EFBIG,
 * EDQUOT), ST_ERR_IO otherwise. */
st_result st_write_failure(int e);

/* ---- logging ---------------------------------------------------------------------------------------- */
typedef enum st_log_level { ST_LOG_DEBUG, ST_LOG_INFO, ST_LOG_WARN, ST_LOG_ERROR } st_log_level;
/* Messages below level are dropped from now on (the initial level is STRATA_LOG's, else warn). */
void st_log_set_level(st_log_level level);
/* One line "strata: LEVEL: message" on stderr when level passes the filter. Thread-safe. */
void st_log(st_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define ST_INFO(...) st_log(ST_LOG_INFO, __VA_ARGS__)
#define ST_WARN(...) st_log(ST_LOG_WARN, __VA_ARGS__)
#define ST_DEBUG(...) st_log(ST_LOG_DEBUG, __VA_ARGS__)

/* ---- checksums -------------------------------------------------------------------------------------- */
/* CRC-32 (IEEE, as zlib) of a buffer: the checksum of every strata file and fingerprint. */
uint32_t st_crc32(const void *data, size_t size);
/* The CRC-32 of what crc covered followed by data (crc 0 starts): st_crc32(a ++ b) = update(st_crc32(a), b). */
uint32_t st_crc32_update(uint32_t crc, const void *data, size_t size);

/* ---- timers ----------------------------------------------------------------------------------------- */
double st_time_ms(void); /* monotonic clock, milliseconds */

/* ---- statistics helpers ----------------------------------------------------------------------------- */
typedef struct st_stats {
    double mean, median, min, max, stddev;
    size_t count;
} st_stats;
/* Mean, median (of the middle two for an even count), min, max and sample standard deviation of count values;
 * all zero (count kept) for no values or when out of memory. */
st_stats st_stats_of(const double *values, size_t count);

/* ---- job system: a fixed pool of worker threads -----------------------------------------------------
 * One process-wide pool, created on first use with one worker per core (STRATA_THREADS overrides).
 * st_parallel_for splits [0, count) into chunks and blocks until all ran; the caller's thread helps. */
typedef void (*st_range_fn)(void *user, size_t begin, size_t end);
/* Runs fn(user, begin, end) over chunks of grain indices (0: about four chunks per thread) covering [0, count),
 * in parallel, and returns when every chunk ran; runs it once over everything on this thread when the pool has
 * one thread or no memory. */
void st_parallel_for(size_t count, size_t grain, st_range_fn fn, void *user);
/* The pool's thread count (the caller's thread included), starting the pool on first use. */
unsigned st_job_threads(void);

/* Futures: a job that runs in the pool while the caller does other work. */
typedef struct st_future st_future;
typedef void (*st_task_fn)(void *user);
st_future *st_async(st_task_fn fn, void *user); /* NULL only when out of memory: then fn ran inline */
void st_future_wait(st_future *f);              /* waits and frees the future (runs it here if still queued) */

/* Fire and forget: queues fn(user) to run once on a worker thread, never on the caller's (a pool of one
 * thread starts one background worker for these). Nothing waits for it: fn signals its own completion, and
 * whoever owns user must wait for that before freeing it. False, without running fn, when out of memory or
 * no thread could be started. */
bool st_job_submit(st_task_fn fn, void *user);

/* Small helpers used everywhere. Whether v is a power of two (0 is not). */
static inline bool st_is_pow2(uint32_t v) { return v && !(v & (v - 1)); }
/* v taken into [0, size) as a wrapping coordinate (negative v too); size > 0. */
static inline int st_wrap(int v, int size) { return ((v % size) + size) % size; }

#endif
