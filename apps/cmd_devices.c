/* strata devices: the Vulkan adapters, by index for --device. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "strata/render.h"

int cmd_devices(int argc, char **argv) {
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: strata devices\n\nLists the Vulkan adapters; pass an index to --device.\n");
        return CLI_EXIT_OK;
    }
    if (argc > 1) return cli_usage_error("devices", "unexpected argument '%s'", argv[1]);
    char buf[4096];
    st_error err = {0};
    if (st_engine_list_devices(buf, sizeof buf, &err)) return cli_fail("devices", &err);
    fputs(buf, stdout);
    return CLI_EXIT_OK;
}
