/* Logging to stderr with a level filter; STRATA_LOG=debug|info|warn|error sets the initial level. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/core.h"

static atomic_int log_level = -1;

static int initial_level(void) {
    const char *env = getenv("STRATA_LOG");
    if (!env) return ST_LOG_WARN;
    if (!strcmp(env, "debug")) return ST_LOG_DEBUG;
    if (!strcmp(env, "info")) return ST_LOG_INFO;
    if (!strcmp(env, "error")) return ST_LOG_ERROR;
    return ST_LOG_WARN;
}

void st_log_set_level(st_log_level level) { atomic_store(&log_level, (int)level); }

void st_log(st_log_level level, const char *fmt, ...) {
    int current = atomic_load(&log_level);
    if (current < 0) {
        current = initial_level();
        atomic_store(&log_level, current);
    }
    if ((int)level < current) return;
    static const char *names[] = {"debug", "info", "warning", "error"};
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "strata: %s: %s\n", names[level], line);
}
