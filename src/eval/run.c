/* The start and the process figures of every measurement run (compare, tune, soak): the engine and the
 * adapter's results folder, and the process's peak and current resident memory. */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "eval/eval_internal.h"
#include "strata/eval.h"
#include "strata/file.h"

st_result st_eval_open_run(const st_engine_desc *ed, const st_level *level, const char *out_root,
                           st_engine **engine, st_device_info *info, char *slug, size_t slug_cap, char *out_dir,
                           size_t out_dir_cap, st_error *err) {
    st_result res = st_engine_create(ed, engine, err);
    if (res) return res;
    *info = st_engine_device(*engine);
    st_eval_slug(info->name, slug, slug_cap);
    snprintf(out_dir, out_dir_cap, "%s/%s", out_root, slug);
    if ((res = st_make_dirs(out_dir, err))) return res;
    return level ? st_engine_set_level(*engine, level, err) : ST_OK;
}

uint64_t st_eval_peak_rss_bytes(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (uint64_t)ru.ru_maxrss * 1024u; /* Linux reports KiB */
}

uint64_t st_eval_current_rss_bytes(void) {
    FILE *fp = fopen("/proc/self/statm", "r");
    if (!fp) return 0;
    unsigned long long size = 0, resident = 0;
    int n = fscanf(fp, "%llu %llu", &size, &resident);
    fclose(fp);
    long page = sysconf(_SC_PAGESIZE);
    return n == 2 && page > 0 ? (uint64_t)resident * (uint64_t)page : 0;
}
