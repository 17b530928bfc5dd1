/* strata info STORE: a tile store's size, spacing, levels, tiles and bytes per level, height range, encoding,
 * georeferencing and source, as text or JSON; --preview writes a hillshaded picture of one level. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "strata/image.h"
#include "strata/tiles.h"

/* A folder holding store.json. */
static bool store_folder(const char *where) {
    char manifest[1100];
    struct stat sb;
    snprintf(manifest, sizeof manifest, "%s/store.json", where);
    return stat(where, &sb) == 0 && S_ISDIR(sb.st_mode) && stat(manifest, &sb) == 0;
}

bool cli_is_store(const char *where) {
    if (!where) return false;
    /* the generated multi-layer world is drawn as a level (layer stores have no store renderer): info and tile
     * take it as a store themselves */
    if (!strncmp(where, "gen:multi:", 10)) return false;
    if (!strncmp(where, "gen:", 4) || !strncmp(where, "http://", 7) || !strncmp(where, "https://", 8)) return true;
    return store_folder(where) && !cli_is_layer_store(where);
}

bool cli_is_layer_store(const char *where) {
    if (!where || !store_folder(where)) return false;
    st_store *s = NULL;
    st_error err = {0};
    if (st_store_open(where, &s, &err)) return false; /* a damaged store: the DEM path names what is wrong */
    bool layers = st_store_get_info(s)->kind == ST_TILE_LAYERS;
    st_store_close(s);
    return layers;
}

static const char *encoding_name(st_tile_encoding e) {
    return e == ST_TILE_U16 ? "u16" : e == ST_TILE_F32 ? "f32" : "pairs";
}

/* The coarsest level whose picture fits `side` pixels a side. */
static uint32_t preview_level(const st_store_info *in, uint32_t side) {
    uint32_t l = 0;
    while (l + 1 < in->levels && ((in->width - 1) >> l) + 1 > side) l++;
    return l;
}

int cli_info_store(const char *cmd, const char *where, bool json, const char *preview, int level,
                   const uint64_t *region) {
    st_error err = {0};
    st_store *s = NULL;
    if (st_store_open(where, &s, &err)) return cli_fail(cmd, &err);
    const st_store_info *in = st_store_get_info(s);
    int status = CLI_EXIT_OK;
    if (preview) {
        uint32_t l = level >= 0 ? (uint32_t)level : region ? 0 : preview_level(in, 2048);
        uint8_t *rgb = NULL;
        uint32_t w = 0, h = 0;
        if (st_store_preview(s, l, region, &rgb, &w, &h, &err) || st_png_write(preview, w, h, 3, 8, rgb, &err)) {
            free(rgb);
            st_store_close(s);
            return cli_fail(cmd, &err);
        }
        free(rgb);
        fprintf(stderr, "wrote %s: level %u, %ux%u\n", preview, l, w, h);
    }
    const char *kind = in->kind == ST_TILE_DEM ? "dem" : "layers";
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "store", where);
        cJSON_AddStringToObject(o, "kind", kind);
        cJSON_AddBoolToObject(o, "generated", in->generated);
        cJSON_AddNumberToObject(o, "width", (double)in->width);
        cJSON_AddNumberToObject(o, "height", (double)in->height);
        double sp[2] = {in->spacing_x_m, in->spacing_y_m};
        cJSON_AddItemToObject(o, "spacing_m", cJSON_CreateDoubleArray(sp, 2));
        cJSON_AddNumberToObject(o, "tile_size", in->tile_size);
        cJSON_AddNumberToObject(o, "levels", in->levels);
        cJSON_AddNumberToObject(o, "tiles", (double)in->tiles);
        cJSON_AddNumberToObject(o, "bytes", (double)in->bytes);
        cJSON_AddStringToObject(o, "encoding", encoding_name(in->encoding));
        cJSON_AddStringToObject(o, "compression", in->compression == ST_TILE_ZSTD ? "zstd" : "none");
        if (in->encoding == ST_TILE_U16) {
            cJSON_AddNumberToObject(o, "scale", in->scale);
            cJSON_AddNumberToObject(o, "offset", in->offset);
        }
        cJSON_AddNumberToObject(o, "min_m", in->min_m);
        cJSON_AddNumberToObject(o, "max_m", in->max_m);
        cJSON_AddNumberToObject(o, "sea_level_m", in->sea_level_m);
        cJSON_AddStringToObject(o, "source", in->source);
        if (in->georeferenced) cJSON_AddStringToObject(o, "crs", in->crs);
        cJSON *lv = cJSON_AddArrayToObject(o, "per_level");
        for (uint32_t l = 0; l < in->levels; l++) {
            uint32_t nx, ny;
            st_store_level_tiles(s, l, &nx, &ny);
            st_tile_meta m;
            double delta = 0;
            if (st_store_tile_meta(s, (st_tile_key){l, 0, 0}, &m)) delta = m.delta_m;
            cJSON *e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "level", l);
            cJSON_AddNumberToObject(e, "tiles_x", nx);
            cJSON_AddNumberToObject(e, "tiles_y", ny);
            cJSON_AddNumberToObject(e, "spacing_m", in->spacing_x_m * (double)(1u << l));
            cJSON_AddNumberToObject(e, "delta_m_first_tile", delta);
            cJSON_AddItemToArray(lv, e);
        }
        char *text = cJSON_Print(o);
        cJSON_Delete(o);
        if (text) printf("%s\n", text);
        else status = CLI_EXIT_RUNTIME;
        free(text);
    } else {
        printf("store      %s (%s%s)\n", where, kind, in->generated ? ", generated on demand: no disk" : "");
        if (in->kind == ST_TILE_DEM)
            printf("size       %llu x %llu samples, %g x %g m apart (%.1f x %.1f km)\n", (unsigned long long)in->width,
                   (unsigned long long)in->height, in->spacing_x_m, in->spacing_y_m,
                   (double)(in->width - 1) * in->spacing_x_m / 1000.0,
                   (double)(in->height - 1) * in->spacing_y_m / 1000.0);
        else /* a level's own units: one a texel horizontally, one a height step vertically */
            printf("size       %llu x %llu texels (%.1f M texels), world '%s'\n", (unsigned long long)in->width,
                   (unsigned long long)in->height, (double)in->width * (double)in->height / 1e6, in->name);
        printf("tiles      %llu of %u² in %u levels, %.1f MB%s\n", (unsigned long long)in->tiles, in->tile_size,
               in->levels, (double)in->bytes / 1e6, in->generated ? " (none on disk)" : "");
        if (in->encoding == ST_TILE_U16)
            printf("samples    u16: metres = %g + %g v%s\n", in->offset, in->scale,
                   in->compression == ST_TILE_ZSTD ? ", delta-coded + zstd" : ", raw");
        else
            printf("samples    %s%s\n", in->encoding == ST_TILE_F32 ? "f32 metres" : "texel pairs",
                   in->compression == ST_TILE_ZSTD ? ", delta-coded + zstd" : ", raw");
        if (in->kind == ST_TILE_DEM)
            printf("heights    %.2f .. %.2f m%s, sea level %g m\n", in->min_m, in->max_m,
                   in->generated ? " (a bound)" : "", in->sea_level_m);
        else
            printf("heights    %.0f .. %.0f height steps%s\n", in->min_m, in->max_m, in->generated ? " (a bound)" : "");
        printf("source     %s\n", in->source);
        if (in->georeferenced) printf("crs        %s\n", in->crs);
        printf("levels     level  tiles      spacing    δ of tile (0,0)\n");
        for (uint32_t l = 0; l < in->levels; l++) {
            uint32_t nx, ny;
            st_store_level_tiles(s, l, &nx, &ny);
            st_tile_meta m;
            bool have = st_store_tile_meta(s, (st_tile_key){l, 0, 0}, &m);
            printf("           %5u  %4ux%-4u  %8g m  %10.3f m\n", l, nx, ny, in->spacing_x_m * (double)(1u << l),
                   have ? m.delta_m : 0.0);
        }
    }
    st_store_close(s);
    return status;
}
