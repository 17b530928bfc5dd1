/* Monotonic time and summary statistics over samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata/core.h"

double st_time_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

st_stats st_stats_of(const double *values, size_t count) {
    st_stats s = {0};
    s.count = count;
    if (!count) return s;
    double *sorted = malloc(count * sizeof *sorted);
    if (!sorted) return s;
    memcpy(sorted, values, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < count; i++) sum += sorted[i];
    s.mean = sum / (double)count;
    s.min = sorted[0];
    s.max = sorted[count - 1];
    s.median = count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
    double var = 0;
    for (size_t i = 0; i < count; i++) var += (sorted[i] - s.mean) * (sorted[i] - s.mean);
    s.stddev = count > 1 ? sqrt(var / (double)(count - 1)) : 0;
    free(sorted);
    return s;
}
