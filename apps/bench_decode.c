/* strata bench decode: decoding a world's .vmc (rows in parallel, table-driven) from memory, repeated,
 * against the target of ≤ 150 ms for a 2048×16384 world. Without a path the default world is generated
 * and saved into a temporary directory once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "strata/file.h"
#include "strata/gen.h"
#include "strata/vangers.h"
#include "strata/world.h"

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata bench decode [--world W | W] [--repeat N] [--identity]\n\n"
           "Decodes W's .vmc (a world directory or world.ini with Compressed Format Using = 1) N times\n"
           "(default 10) from memory and prints the median, min and max in ms and the verdict on the target\n"
           "(median <= 150 ms for a 2048x16384 world). Without W (or with 'default') the default world is\n"
           "generated and saved (Huffman-coded; --identity: the identity code) into a temporary directory\n"
           "first. Threads: STRATA_THREADS (default: one per core).\n\noptions:\n");
    cli_options_usage(opts, count);
}

int bench_decode(int argc, char **argv) {
    const char *cmd = "bench decode";
    uint32_t repeat = 10;
    bool identity = false;
    const char *world = NULL;
    bool help = false;
    int first;
    const cli_opt opts[] = {
        CLI_OPT_WORLD(&world),
        CLI_OPT_REPEAT(&repeat, 1000, "decodes timed (default 10)"),
        {.name = "identity", .kind = CLI_OPT_FLAG, .target = &identity,
         .help = "save the generated world with the identity code instead of Huffman"},
    };
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), 1, &first, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    if (first < argc && world) return cli_usage_error(cmd, "give the world once (--world W or W)");
    if (first < argc) world = argv[first];
    if (world && !strcmp(world, "default")) world = NULL;
    st_error err = {0};
    char dir[512], path[600];
    bool temp = false;
    if (world) {
        snprintf(dir, sizeof dir, "%s", world);
        size_t n = strlen(dir);
        if (n > 10 && !strcmp(dir + n - 10, "/world.ini")) dir[n - 10] = 0;
    } else {
        const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(dir, sizeof dir, "%s/strata-bench-decode-XXXXXX", base);
        if (!mkdtemp(dir)) return cli_usage_error(cmd, "cannot create a temporary directory under %s", base);
        temp = true;
        st_level *level = NULL;
        double t0 = st_time_ms();
        if (st_gen_world(NULL, &level, &err)) return cli_fail(cmd, &err);
        double t1 = st_time_ms();
        st_world_save_desc d = {.identity = identity};
        st_vmc_encode_info info;
        st_result r = st_world_save_ex(level, dir, &d, &info, &err);
        double t2 = st_time_ms();
        st_level_destroy(level);
        if (r) return cli_fail(cmd, &err);
        printf("generated the default world in %.0f ms, saved in %.0f ms: .vmc %llu bytes, %.3f of the identity "
               "code's %llu (code length limit %u)\n",
               t1 - t0, t2 - t1, (unsigned long long)info.bytes, (double)info.bytes / (double)info.identity_bytes,
               (unsigned long long)info.identity_bytes, info.code_len_limit);
    }
    /* Read the ini for the size, then the .vmc itself, so the timing covers decoding only. */
    snprintf(path, sizeof path, "%s/world.ini", dir);
    uint8_t *text = NULL, *data = NULL;
    size_t text_size = 0, size = 0;
    st_world_ini ini;
    int status = CLI_EXIT_OK;
    uint8_t *heights = NULL, *meta = NULL;
    double *ms = calloc(repeat, sizeof *ms);
    if (st_file_read_all(path, 1u << 20, &text, &text_size, &err) ||
        st_world_ini_parse((const char *)text, text_size, path, &ini, &err)) {
        status = cli_fail(cmd, &err);
        goto done;
    }
    if (!ini.compressed) {
        status = cli_usage_error(cmd, "%s stores a .vmp, not a .vmc", path);
        goto done;
    }
    snprintf(path, sizeof path, "%s/%s.vmc", dir, ini.file_name);
    uint32_t w = 1u << ini.map_power_x, h = 1u << ini.map_power_y;
    if (st_level_check_size(w, h, &err) || st_file_read_all(path, SIZE_MAX, &data, &size, &err)) {
        status = cli_fail(cmd, &err);
        goto done;
    }
    heights = malloc((size_t)w * h);
    meta = malloc((size_t)w * h);
    if (!heights || !meta || !ms) {
        st_error_set(&err, ST_ERR_NOMEM, "out of memory");
        status = cli_fail(cmd, &err);
        goto done;
    }
    /* One untimed run warms the pages and the thread pool. */
    if (st_vmc_decode(data, size, w, h, heights, meta, path, &err)) {
        status = cli_fail(cmd, &err);
        goto done;
    }
    for (uint32_t i = 0; i < repeat; i++) {
        double t0 = st_time_ms();
        st_vmc_decode(data, size, w, h, heights, meta, path, &err);
        ms[i] = st_time_ms() - t0;
    }
    st_stats s = st_stats_of(ms, repeat);
    printf("decode %ux%u .vmc (%zu bytes, %u threads): median %.1f ms, min %.1f, max %.1f over %u runs "
           "(%.0f Mtexel/s)\n",
           w, h, size, st_job_threads(), s.median, s.min, s.max, repeat,
           (double)w * h / (s.median * 1e3));
    cli_bench_verdict("median decode of a 2048x16384 .vmc", "<=", 150, "ms", s.median,
                      w == 2048 && h == 16384 ? NULL : "the target is for 2048x16384 worlds");
done:
    if (temp) {
        const char *names[4] = {"world.ini", "output.vmc", "harmony.pal", "output.vpr"};
        for (int i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            unlink(path);
        }
        rmdir(dir);
    }
    free(text);
    free(data);
    free(heights);
    free(meta);
    free(ms);
    return status;
}
