/* Result codes and error messages. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "strata/core.h"

st_result st_error_set(st_error *err, st_result code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

st_result st_error_prefix(st_error *err, const char *fmt, ...) {
    if (!err) return ST_ERR_INVALID;
    char prefix[256], old[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof old);
    snprintf(err->message, sizeof err->message, "%s: %s", prefix, old);
    return err->code;
}

const char *st_result_name(st_result r) {
    switch (r) {
    case ST_OK: return "ok";
    case ST_ERR_INVALID: return "invalid input";
    case ST_ERR_IO: return "i/o error";
    case ST_ERR_FORMAT: return "bad format";
    case ST_ERR_NOMEM: return "out of memory";
    case ST_ERR_GPU: return "gpu error";
    case ST_ERR_UNSUPPORTED: return "unsupported";
    case ST_ERR_CANCELLED: return "interrupted";
    case ST_ERR_NO_SPACE: return "no space left";
    }
    return "unknown";
}

st_result st_write_failure(int e) {
    return e == ENOSPC || e == EFBIG || e == EDQUOT ? ST_ERR_NO_SPACE : ST_ERR_IO;
}
