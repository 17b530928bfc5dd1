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

static int usage(void) {
    printf("usage: strata gen [--seed N] [--size WxH] [--dual PCT] -o DIR\n\n"
           "Generates the procedural world (terraces with vertical cliffs, rivers and basins at height 0,\n"
           "slabs over caves, bridges, a tunnel, a hangar; see docs/default-world.md) and writes world.ini,\n"
           "output.vmc, harmony.pal and output.vpr into DIR (created when missing; files replaced atomically).\n\n"
           "options:\n"
           "  --seed N      any non-zero 64-bit integer (default %u); the same seed gives the same bytes\n"
           "  --size WxH    powers of two, each at least 256, at most 2^30 texels in all (default %ux%u);\n"
           "                landmarks and views scale with it up to the default size and repeat in cells of\n"
           "                it beyond (gen:multi:SEED:WxH makes any size tile by tile: strata tile, info)\n"
           "  --dual PCT    share of texels with two layers, 0 < PCT <= 30, or 'none' (default %g);\n"
           "                the result lands within 1 point of it\n"
           "  -o, --out DIR the output directory\n",
           ST_GEN_DEFAULT_SEED, ST_GEN_DEFAULT_WIDTH, ST_GEN_DEFAULT_HEIGHT, (double)ST_GEN_DEFAULT_DUAL_PERCENT);
    return CLI_EXIT_OK;
}

int cmd_gen(int argc, char **argv) {
    st_gen_desc desc = {0};
    const char *out = NULL;
    static const struct option opts[] = {{"seed", required_argument, 0, 's'}, {"size", required_argument, 0, 'z'},
                                         {"dual", required_argument, 0, 'd'}, {"out", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 's': {
            char *end;
            if (!*optarg || *optarg == '-' || *optarg == '+')
                return cli_usage_error(cmd, "bad --seed '%s' (an integer from 1 to 2^64-1)", optarg);
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (*end || v == 0 || errno == ERANGE)
                return cli_usage_error(cmd, "bad --seed '%s' (an integer from 1 to 2^64-1)", optarg);
            desc.seed = v;
            break;
        }
        case 'z':
            if (!cli_parse_size(optarg, &desc.width, &desc.height) || !st_is_pow2(desc.width) ||
                !st_is_pow2(desc.height) || desc.width < 256 || desc.height < 256)
                return cli_usage_error(cmd, "bad --size '%s' (powers of two, each at least 256, like 2048x16384)",
                                       optarg);
            if ((uint64_t)desc.width * desc.height > ST_LEVEL_MAX_TEXELS)
                return cli_usage_error(cmd, "--size %s is past the 2^30-texel limit of a level (like 32768x32768)",
                                       optarg);
            break;
        case 'd':
            if (!strcmp(optarg, "none")) desc.dual_percent = -1.0f;
            else if (!cli_parse_float(optarg, 0.0f, 30.0f, &desc.dual_percent) || desc.dual_percent <= 0.0f)
                return cli_usage_error(cmd, "bad --dual '%s' (a percentage above 0 and at most 30, or none)", optarg);
            break;
        case 'o': out = optarg; break;
        case 'h': return usage();
        case ':': return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
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
