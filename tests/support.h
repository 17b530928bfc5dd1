/* Helpers shared by the tests: analytic levels, a GPU engine with validation on, temp directories. */
#ifndef STRATA_TEST_SUPPORT_H
#define STRATA_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "strata/level.h"

/* A level of the given size, flat at `floor` height with material 1. Fails the test on error. */
st_level *test_flat_level(uint32_t w, uint32_t h, uint8_t floor);
/* A fresh empty directory under $TMPDIR (removed by the OS, not the test). */
const char *test_temp_dir(const char *tag);
/* Asserts a call returned ST_OK and prints its message otherwise. */
#define assert_st_ok(expr)                                                                             \
    do {                                                                                               \
        st_error err_ = {0};                                                                           \
        st_error *err = &err_;                                                                         \
        (void)err;                                                                                     \
        st_result r_ = (expr);                                                                         \
        if (r_ != ST_OK) fail_msg("%s failed: %s", #expr, err_.message);                               \
    } while (0)

#endif
