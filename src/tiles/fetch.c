/* Fetching a store's files: from a folder with open/read (regular files only, bounded sizes), or over HTTP with
 * libcurl — one connection kept alive per thread, timeouts, the status code checked and the body bounded — so
 * that a store is plain static files any web server or CDN can serve. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tiles/tiles_internal.h"

bool st_fetch_is_url(const char *where) {
    return where && (!strncmp(where, "http://", 7) || !strncmp(where, "https://", 8));
}

static st_result fetch_file(const char *path, size_t max, uint8_t **data, size_t *size, st_error *err) {
    /* O_NONBLOCK: opening a named pipe must not wait for a writer; the type check then refuses it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return st_error_set(err, ST_ERR_IO, "%s: no such file", path);
        return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        close(fd);
        return st_error_set(err, ST_ERR_IO, "%s: not a regular file", path);
    }
    if ((uint64_t)sb.st_size > max) {
        close(fd);
        return st_error_set(err, ST_ERR_FORMAT, "%s: %lld bytes is more than the %zu it may hold", path,
                            (long long)sb.st_size, max);
    }
    size_t n = (size_t)sb.st_size;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        close(fd);
        return st_error_set(err, ST_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, n);
    }
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fd);
    if (got != n) {
        free(buf);
        return st_error_set(err, ST_ERR_IO, "%s: read %zu of %zu bytes", path, got, n);
    }
    *data = buf;
    *size = n;
    return ST_OK;
}

/* ---- HTTP ------------------------------------------------------------------------------------------------ */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

/* One easy handle per thread: curl reuses its connection, so a loader thread fetching tile after tile keeps one
 * TCP connection open. Freed when the thread exits. */
static pthread_key_t curl_key;
static pthread_once_t curl_key_once = PTHREAD_ONCE_INIT;
static void curl_handle_free(void *h) { curl_easy_cleanup(h); }
static void curl_key_init(void) { pthread_key_create(&curl_key, curl_handle_free); }

typedef struct body {
    uint8_t *data;
    size_t size, cap, max;
    bool too_big;
} body;

static size_t body_write(char *ptr, size_t one, size_t n, void *user) {
    body *b = user;
    size_t add = one * n;
    if (b->size + add > b->max) {
        b->too_big = true;
        return 0; /* aborts the transfer */
    }
    if (b->size + add > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->size + add) cap *= 2;
        if (cap > b->max) cap = b->max;
        uint8_t *p = realloc(b->data, cap);
        if (!p) return 0;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->size, ptr, add);
    b->size += add;
    return add;
}

static st_result fetch_url(const char *url, size_t max, uint8_t **data, size_t *size, st_error *err) {
    pthread_once(&curl_once, curl_init);
    pthread_once(&curl_key_once, curl_key_init);
    CURL *h = pthread_getspecific(curl_key);
    if (!h) {
        h = curl_easy_init();
        if (!h) return st_error_set(err, ST_ERR_NOMEM, "%s: cannot start an HTTP client", url);
        pthread_setspecific(curl_key, h);
    }
    curl_easy_reset(h);
    body b = {.max = max};
    char curl_msg[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, body_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curl_msg);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);           /* worker threads: no SIGALRM for timeouts */
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L); /* a stalled server fails the tile, it never hangs */
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 20L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "strata-tiles/1");
    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (rc != CURLE_OK || status != 200) {
        free(b.data);
        if (b.too_big) return st_error_set(err, ST_ERR_FORMAT, "%s: more than the %zu bytes it may hold", url, max);
        if (rc == CURLE_OK && status == 404) return st_error_set(err, ST_ERR_IO, "%s: no such file (HTTP 404)", url);
        if (rc == CURLE_OK) return st_error_set(err, ST_ERR_IO, "%s: HTTP status %ld", url, status);
        return st_error_set(err, ST_ERR_IO, "%s: %s", url, curl_msg[0] ? curl_msg : curl_easy_strerror(rc));
    }
    *data = b.data ? b.data : malloc(1);
    *size = b.size;
    if (!*data) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    return ST_OK;
}

st_result st_fetch(const char *base, const char *rel, size_t max, uint8_t **data, size_t *size, st_error *err) {
    *data = NULL;
    *size = 0;
    char where[2048];
    size_t n = strlen(base);
    const char *sep = n && base[n - 1] == '/' ? "" : "/";
    if (snprintf(where, sizeof where, "%s%s%s", base, sep, rel) >= (int)sizeof where)
        return st_error_set(err, ST_ERR_INVALID, "%s: location too long", base);
    return st_fetch_is_url(base) ? fetch_url(where, max, data, size, err) : fetch_file(where, max, data, size, err);
}
