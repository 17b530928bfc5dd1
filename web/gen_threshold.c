/* The dual threshold of the default world, for the page (web/build.py runs this under node at build time and
 * writes default_threshold.json): the page makes the rows in sight first and finishes them with this threshold,
 * which is a quantile of every pair's opened score in the world and so cannot be had before the whole world is
 * made. The whole world is made here as the page makes it (gen_world_begin, its terrain, then the opening and the
 * exact quantile as gen_world_finish takes them), so the number is the generator's own; the page checks the rows
 * it made first against the finished world (web_bands_region_matches). */
#include <stdio.h>

#include "strata/gen.h"
#include "terrain/gen_internal.h"

int main(void) {
    st_error err = {0};
    gen_world *j;
    if (gen_world_begin(NULL, &j, &err)) {
        fprintf(stderr, "gen_threshold: %s\n", err.message);
        return 2;
    }
    const st_gen_desc *d = &j->g.d;
    if (!gen_world_terrain(j, 0, j->g.h) || !j->hist || !j->eroded) {
        fprintf(stderr, "gen_threshold: out of memory, or the default world takes no exact threshold\n");
        return 2;
    }
    size_t pw = j->g.w / 2, pairs = pw * j->g.h;
    gen_erode(j->planes.score, j->eroded, pw, j->g.h, true, 0, j->g.h, 0, pw);
    gen_dilate(j->planes.score, j->eroded, pw, j->g.h, true, 0, j->g.h, 0, pw);
    for (size_t i = 0; i < pairs; i++) j->hist[j->planes.score[i]]++;
    uint32_t t = gen_pick_threshold(j->hist, (double)d->dual_percent / 100.0 * (double)pairs);
    printf("{\"seed\": %llu, \"width\": %u, \"height\": %u, \"dual_percent\": %g, \"threshold\": %u}\n",
           (unsigned long long)d->seed, d->width, d->height, (double)d->dual_percent, t);
    gen_world_abort(j);
    return 0;
}
