/* libFuzzer target: the .pal decoder and its round trip (a decoded palette must re-encode to the input). */
#include <string.h>

#include "strata/vangers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    st_rgb8 pal[256];
    st_error err = {0};
    if (st_pal_decode(data, size, pal, "fuzz.pal", &err) == ST_OK) {
        uint8_t back[ST_PAL_SIZE];
        st_pal_encode(pal, back);
        if (memcmp(back, data, ST_PAL_SIZE) != 0) __builtin_trap();
    }
    return 0;
}
