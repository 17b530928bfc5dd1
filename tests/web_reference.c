/* The native side of the web test (tests/test_web.py): the CPU reference of one scene as one JSON line on
 * stdout — the level's CRC-32 (heights, then metadata, as the page computes it), coverage, mean colour over
 * every pixel and the hit mask (base64, one byte a pixel, rows top first) — without shadows, as the WebGL2
 * backend draws (it has no shadow map yet).
 * usage: web_reference SEED WxH x,y,z,yaw,pitch WIDTHxHEIGHT [dig PX,PY]  (SEED WxH: the generated world) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/gen.h"
#include "strata/reference.h"
#include "strata/view.h"

static void base64(const uint8_t *p, size_t n) {
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        putchar(t[v >> 18 & 63]);
        putchar(t[v >> 12 & 63]);
        putchar(i + 1 < n ? t[v >> 6 & 63] : '=');
        putchar(i + 2 < n ? t[v & 63] : '=');
    }
}

int main(int argc, char **argv) {
    st_gen_desc g = {0};
    st_camera cam = {0};
    unsigned w = 0, h = 0, lw = 0, lh = 0;
    unsigned long long seed = 0;
    float dig[2];
    bool digging = argc == 7 && !strcmp(argv[5], "dig") && sscanf(argv[6], "%f,%f", &dig[0], &dig[1]) == 2;
    if ((argc != 5 && !digging) || sscanf(argv[1], "%llu", &seed) != 1 || sscanf(argv[2], "%ux%u", &lw, &lh) != 2 ||
        !st_camera_parse(argv[3], &cam) || sscanf(argv[4], "%ux%u", &w, &h) != 2 || !w || !h || w > 4096 || h > 4096) {
        fprintf(stderr, "usage: web_reference SEED WxH x,y,z,yaw,pitch WIDTHxHEIGHT [dig PX,PY]\n");
        return 2;
    }
    g.seed = seed;
    g.width = lw;
    g.height = lh;
    st_error err = {0};
    st_level *level = NULL;
    st_reference *ref = NULL;
    st_ref_image img = {0};
    st_result r = st_gen_world(&g, &level, &err);
    if (!r && digging) { /* the page's dig: radius 24, depth 40 at the texel under the pixel */
        float hit[3];
        st_rect dirty;
        if (!st_viewer_pick(level, &cam, w, h, dig[0], dig[1], hit)) r = st_error_set(&err, ST_ERR_INVALID, "no hit");
        else r = st_level_dig(level, (int)floorf(hit[0]), (int)floorf(hit[1]), 24, 40, &dirty, &err);
    }
    if (!r) r = st_reference_create(level, &ref, &err);
    if (!r) st_reference_set_shadows(ref, false);
    if (!r) r = st_ref_image_create(w, h, &img, &err);
    if (!r) r = st_reference_cast(ref, &cam, &img, &err);
    if (r) {
        fprintf(stderr, "web_reference: %s\n", err.message);
        return r == ST_ERR_INVALID ? 2 : 1;
    }
    size_t n = (size_t)w * h;
    uint8_t *mask = malloc(n);
    double sum[3] = {0, 0, 0};
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        mask[i] = isnan(img.distance[i]) ? 0 : 1;
        hits += mask[i];
        for (int k = 0; k < 3; k++) sum[k] += img.rgba[i * 4 + (size_t)k];
    }
    const uint8_t *hp, *mp;
    st_level_planes(level, &hp, &mp);
    size_t texels = (size_t)level->width * level->height;
    printf("{\"level_crc\":%u,\"width\":%u,\"height\":%u,\"coverage\":%.6f,\"mean\":[%.3f,%.3f,%.3f],\"mask\":\"",
           st_crc32_update(st_crc32(hp, texels), mp, texels), w, h, (double)hits / (double)n, sum[0] / (double)n,
           sum[1] / (double)n, sum[2] / (double)n);
    base64(mask, n);
    printf("\"}\n");
    free(mask);
    st_ref_image_free(&img);
    st_reference_destroy(ref);
    st_level_destroy(level);
    return 0;
}
