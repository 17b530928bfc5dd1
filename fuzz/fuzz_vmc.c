/* libFuzzer target: the .vmc decoder (row table, trees, row streams) on arbitrary bytes. */
#include <stdlib.h>

#include "fuzz_common.h"
#include "strata/vangers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint32_t w, h;
    if (!fuzz_take_size(&data, &size, &w, &h)) return 0;
    uint8_t *hh = malloc((size_t)w * h), *mm = malloc((size_t)w * h);
    st_error err = {0};
    st_vmc_decode(data, size, w, h, hh, mm, "fuzz.vmc", &err);
    free(hh);
    free(mm);
    return 0;
}
