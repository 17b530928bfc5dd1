/* strata gen: generates the procedural multi-layer world (seed, size, dual share) and writes it as a
 * Vangers world directory. Options are all checked before anything is generated or written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/gen.h"
#include "strata/world.h"

static const char *cmd = "gen";

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata gen [--seed N] [--size WxH] [--dual PCT] -o DIR\n\n"
           "Generates the procedural world (terraces with vertical cliffs, rivers and basins at height 0,\n"
           "slabs over caves, bridges, a tunnel, a hangar; see docs/default-world.md) and writes world.ini,\n"
           "output.vmc, harmony.pal and output.vpr into DIR (created when missing; files replaced atomically).\n\n"
           "options:\n");
    cli_options_usage(opts, count);
    printf("defaults: --seed %u --size %ux%u --dual %g\n", ST_GEN_DEFAULT_SEED, ST_GEN_DEFAULT_WIDTH,
           ST_GEN_DEFAULT_HEIGHT, (double)ST_GEN_DEFAULT_DUAL_PERCENT);
}

/* --seed: any integer from 1 to 2^64 - 1. */
static bool parse_seed(const char *value, void *target) {
    if (!*value || *value == '-' || *value == '+') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(value, &end, 10);
    if (*end || v == 0 || errno == ERANGE) return false;
    *(uint64_t *)target = v;
    return true;
}

/* --size: powers of two, each at least 256 (the texel limit is checked after, with its own message). */
static bool parse_gen_size(const char *value, void *target) {
    uint32_t w, h, *wh = target;
    if (!cli_parse_size(value, &w, &h) || !st_is_pow2(w) || !st_is_pow2(h) || w < 256 || h < 256) return false;
    wh[0] = w;
    wh[1] = h;
    return true;
}

/* --dual: a percentage above 0 and at most 30, or none (-1). */
static bool parse_dual(const char *value, void *target) {
    float v;
    if (!strcmp(value, "none")) v = -1.0f;
    else if (!cli_parse_float(value, 0.0f, 30.0f, &v) || v <= 0.0f) return false;
    *(float *)target = v;
    return true;
}

int cmd_gen(int argc, char **argv) {
    st_gen_desc desc = {0};
    const char *out = NULL;
    uint32_t size[2] = {0, 0};
    bool help = false;
    const cli_opt opts[] = {
        {.name = "seed", .kind = CLI_OPT_PARSE, .target = &desc.seed, .parse = parse_seed, .arg = "N",
         .bad = "bad --seed '%s' (an integer from 1 to 2^64-1)",
         .help = "any non-zero 64-bit integer; the same seed gives the same bytes"},
        {.name = "size", .kind = CLI_OPT_PARSE, .target = size, .parse = parse_gen_size, .arg = "WxH",
         .bad = "bad --size '%s' (powers of two, each at least 256, like 2048x16384)",
         .help = "powers of two, each at least 256, at most 2^30 texels in all; landmarks and\n"
                 "views scale with it up to the default size and repeat in cells of it beyond\n"
                 "(gen:multi:SEED:WxH makes any size tile by tile: strata tile, info)"},
        {.name = "dual", .kind = CLI_OPT_PARSE, .target = &desc.dual_percent, .parse = parse_dual, .arg = "PCT",
         .bad = "bad --dual '%s' (a percentage above 0 and at most 30, or none)",
         .help = "share of texels with two layers, 0 < PCT <= 30, or 'none';\n"
                 "the result lands within 1 point of it"},
        CLI_OPT_OUT(&out, "DIR", "the output directory"),
    };
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    if (size[0]) {
        if ((uint64_t)size[0] * size[1] > ST_LEVEL_MAX_TEXELS)
            return cli_usage_error(cmd, "--size %ux%u is past the 2^30-texel limit of a level (like 32768x32768)",
                                   size[0], size[1]);
        desc.width = size[0];
        desc.height = size[1];
    }
    if (!out || !*out) return cli_usage_error(cmd, "missing -o DIR");
    st_error err = {0};
    st_level *level = NULL;
    double t0 = st_time_ms();
    if (st_gen_world(&desc, &level, &err)) return cli_fail(cmd, &err);
    double t1 = st_time_ms();
    st_result r = st_world_save(level, out, &err);
    double t2 = st_time_ms();
    if (r) {
        st_level_destroy(level);
        return cli_fail(cmd, &err);
    }
    st_level_stats s = st_level_compute_stats(level);
    printf("wrote %s: %ux%u world '%s', %.2f%% dual, heights %u..%u, generated in %.0f ms on %u threads "
           "(saved in %.0f ms)\n",
           out, level->width, level->height, level->name, s.dual_fraction * 100.0, s.min_height, s.max_height,
           t1 - t0, st_job_threads(), t2 - t1);
    st_level_destroy(level);
    return CLI_EXIT_OK;
}
