/* The 16-bit grey PNG that the single-layer DEM commands read (strata tin, bench mesh): judged by its header before
 * a pixel is decoded, so a small file whose header claims gigabytes of samples costs nothing. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "strata/file.h"
#include "strata/image.h"

#define DEM_PNG_MAX_FILE ((size_t)1 << 31) /* more than any 16-bit PNG of ST_PNG_MAX_PIXELS can need */

int cli_read_grey16_png(const char *cmd, const char *path, uint32_t min_side, uint32_t max_side, uint32_t *w,
                        uint32_t *h, void **samples) {
    *samples = NULL;
    st_error err = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    st_png_info info;
    if (st_file_read_all(path, DEM_PNG_MAX_FILE, &data, &size, &err) || st_png_probe(data, size, path, &info, &err)) {
        free(data);
        return cli_fail(cmd, &err);
    }
    if (info.channels != 1 || info.bit_depth != 16 || info.width < min_side || info.height < min_side ||
        info.width > max_side || info.height > max_side) {
        free(data);
        return cli_usage_error(cmd, "%s: want a 16-bit grey PNG of %u..%u samples a side (it has %ux%u, %d channel(s) "
                               "of %d bits)", path, min_side, max_side, info.width, info.height, info.channels,
                               info.bit_depth);
    }
    st_result r = st_png_decode(data, size, path, 0, &info, samples, &err);
    free(data);
    if (r) return cli_fail(cmd, &err);
    *w = info.width;
    *h = info.height;
    return CLI_EXIT_OK;
}
