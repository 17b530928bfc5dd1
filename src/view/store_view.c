/* The tile-store viewer's switches and HUD (strata/view.h): the keys that change τ, freeze the level of detail,
 * toggle the wireframe, skirts, shadows and HUD, and the HUD's text with the level of detail and the residency.
 * Kept out of the window code so the headless viewer and the tests share them. */
#include <stdio.h>
#include <string.h>

#include "strata/view.h"

bool st_store_view_apply(st_store_view_state *s, st_store_view_key key) {
    float tau = s->tau_px > 0 ? s->tau_px : 1.0f;
    switch (key) {
    case ST_STORE_KEY_TAU_UP: s->tau_px = tau * 2 > ST_STORE_VIEW_MAX_TAU ? ST_STORE_VIEW_MAX_TAU : tau * 2; break;
    case ST_STORE_KEY_TAU_DOWN: s->tau_px = tau / 2 < ST_STORE_VIEW_MIN_TAU ? ST_STORE_VIEW_MIN_TAU : tau / 2; break;
    case ST_STORE_KEY_FREEZE: s->freeze = !s->freeze; break;
    case ST_STORE_KEY_WIREFRAME: s->wireframe = !s->wireframe; break;
    case ST_STORE_KEY_SKIRTS: s->skirts = !s->skirts; break;
    case ST_STORE_KEY_SHADOWS: s->shadows = !s->shadows; break;
    case ST_STORE_KEY_HUD: s->hud = !s->hud; return false;
    }
    return true;
}

bool st_store_view_key_of(char c, st_store_view_key *key) {
    switch (c) {
    case ']': *key = ST_STORE_KEY_TAU_UP; return true;
    case '[': *key = ST_STORE_KEY_TAU_DOWN; return true;
    case 'f': *key = ST_STORE_KEY_FREEZE; return true;
    case 'x': *key = ST_STORE_KEY_WIREFRAME; return true;
    case 'k': *key = ST_STORE_KEY_SKIRTS; return true;
    case 'h': *key = ST_STORE_KEY_SHADOWS; return true;
    case 'i': *key = ST_STORE_KEY_HUD; return true;
    default: return false;
    }
}

void st_store_view_hud_text(const st_store_view_state *s, const char *method, const st_lod_frame_stats *lod,
                            const st_world_stats *ws, const double eye[3], float yaw, float pitch, double frame_ms,
                            char *out, size_t cap) {
    if (!cap) return;
    char levels[160] = "";
    size_t used = 0;
    for (uint32_t l = 0; l < lod->levels && used < sizeof levels; l++) {
        if (!lod->per_level[l]) continue;
        int k = snprintf(levels + used, sizeof levels - used, "%sL%u %u", used ? " " : "", l, lod->per_level[l]);
        if (k < 0) break;
        used += (size_t)k;
    }
    const st_residency_stats *rs = &ws->residency;
    snprintf(out, cap,
             "%s  tau %g px%s%s%s%s  frame %.1f ms  selection %.3f ms\n"
             "%u nodes  %.2f M triangles  quadrants %s\n"
             "%u from ancestors  %u missing  holes %llu px\n"
             "tiles: %u resident  %u queued  %u loading  %u evictable  %llu evictions  upload %.2f ms\n"
             "eye %.1f %.1f %.1f m  yaw %.0f pitch %.0f",
             method, (double)(s->tau_px > 0 ? s->tau_px : 1.0f), s->freeze ? "  LOD FROZEN" : "",
             s->skirts ? "  skirts" : "", s->wireframe ? "  wireframe" : "", s->shadows ? "" : "  no shadows",
             frame_ms, lod->select_ms, lod->nodes, (double)lod->triangles / 1e6, used ? levels : "none",
             lod->fallback, lod->missing + lod->undrawn,
             (unsigned long long)(lod->hole_px == UINT64_MAX ? 0 : lod->hole_px), rs->resident, rs->queued,
             rs->loading, rs->evictable, (unsigned long long)rs->evictions, rs->upload_ms_frame, eye[0], eye[1], eye[2],
             (double)yaw, (double)pitch);
}
