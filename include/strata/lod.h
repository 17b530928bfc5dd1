/* The CDLOD quadtree selection (Strugar's continuous distance-dependent LOD) over a tile store, on the CPU and
 * without any GPU: distance ranges per level that meet the screen-space error threshold τ and grow at least by
 * the LOD ratio, the morph band of each level, the selection of nodes and quadrants from the coarsest roots
 * with frustum culling, the one-level rule's check, and the vertex morph itself (the C twin of
 * shaders/common/cdlod_vertex.glsl). docs/large-world.md states every rule. */
#ifndef STRATA_LOD_H
#define STRATA_LOD_H

#include "strata/camera.h"
#include "strata/tiles.h"

#define ST_LOD_MAX_LEVELS ST_STORE_MAX_LEVELS
#define ST_LOD_DEFAULT_GRID 32u       /* N: quads per node side */
#define ST_LOD_DEFAULT_RATIO 2.0      /* r: the least ratio of one level's range to the next finer one's */
#define ST_LOD_DEFAULT_MORPH 0.66     /* m: where the morph band starts between the previous start and the range */

/* Knobs of the selection; zero = default. */
typedef struct st_lod_params {
    double tau_px;      /* the screen-space error threshold τ in pixels (0 = 1) */
    double lod_ratio;   /* r, 1.5..16 (0 = 2) */
    double morph_ratio; /* m, 0.05..0.95 (0 = 0.66) */
    bool skirts;        /* hang a skirt under every drawn quadrant edge that meets other geometry */
    bool no_cull;       /* keep nodes outside the frustum (tests and diagnostics) */
} st_lod_params;

/* The quadtree's geometry and data, from a store (st_lod_world_of_store) or made up by a test. Node (l, x, y)
 * covers finest samples [x·N·2^l, (x + 1)·N·2^l] × [y·N·2^l, (y + 1)·N·2^l] (clamped to the world) and draws
 * the samples of level l: it maps to tile (l, x/(s/N), y/(s/N)) of a store with s intervals per tile. */
typedef struct st_lod_world st_lod_world;
struct st_lod_world {
    uint32_t levels;          /* node levels 0..levels − 1 (the store's); the roots are the level levels − 1 */
    uint32_t tile_intervals;  /* s (a power of two) */
    uint32_t grid;            /* N: quads per node side, a power of two from 4 to s */
    uint64_t width, height;   /* finest samples */
    double spacing_x, spacing_y; /* metres between finest samples */
    double delta[ST_LOD_MAX_LEVELS];  /* each level's geometric error against the finest data, metres, monotone:
                                         what the ranges use */
    double delta_bound[ST_LOD_MAX_LEVELS]; /* a store's index bound: its tiles' largest δ per level, monotone */
    bool delta_measured;      /* delta is the measured quantile (st_lod_world_of_store), not the bound */
    /* min/max of the finest data inside node (l, x, y), metres; false when unknown (the node is skipped) */
    bool (*bounds)(const st_lod_world *w, uint32_t level, uint64_t x, uint64_t y, float *min_m, float *max_m);
    /* the tile to draw `tile` with: itself when drawable, else its nearest drawable ancestor; false: none
     * (then *drawn is untouched). NULL: every tile is drawable. */
    bool (*drawable)(const st_lod_world *w, st_tile_key tile, st_tile_key *drawn);
    /* optional: the tile a visited node needs, at a priority (larger first) */
    void (*request)(const st_lod_world *w, st_tile_key tile, float priority);
    /* optional: min/max of the finest data under `tile` (metres), bounding a fallback node's heights */
    bool (*tile_bounds)(const st_lod_world *w, st_tile_key tile, float *min_m, float *max_m);
    void *user;               /* for callbacks of the caller's own */
    st_store *store;          /* the store binding (st_lod_world_of_store) */
    st_residency *residency;
};

/* The camera as the selection needs it, in double precision and world metres. */
typedef struct st_lod_view {
    double eye[3];
    double forward[3], right[3], up[3]; /* unit: view direction, screen right, screen up */
    double focal_px, width_px, height_px;
    double near_m, far_m;               /* view depths of the near and far planes */
} st_lod_view;

/* The view of a camera (st_camera_view), its eye in double (origin + position). */
st_lod_view st_lod_view_of(const st_view *v);

/* One level's distances, metres from the eye. */
typedef struct st_lod_band {
    double range;       /* the level is drawn only where its box reaches inside this distance */
    double morph_start; /* vertices start morphing toward the next coarser grid here */
    double morph_end;   /* and are on it from here (the range pulled 1 % toward the start) */
} st_lod_band;

/* Every level's band for a focal length (pixels) and far distance, under the rule of docs/large-world.md:
 * range_0 = max(K·δ_1/τ, base), range_l = max(K·δ_{l+1}/τ, r·range_{l−1}), the coarsest range at least the far
 * distance, with K the focal length and base the least range_0 for which the one-level rule holds by
 * construction (range_l + 1.5 × the diagonal of a level-l node ≤ morph_start_{l+1}); morph_start as in CDLOD;
 * the coarsest level does not morph (start = end = ∞). */
void st_lod_bands(const st_lod_world *w, const st_lod_params *p, double focal_px, double far_m,
                  st_lod_band bands[ST_LOD_MAX_LEVELS]);

/* How often st_lod_select may widen the ranges of one view to keep the one-level rule. */
#define ST_LOD_ONE_LEVEL_RETRIES 8
/* The bands of each of st_lod_select's attempts at one view: bands[0] those of st_lod_bands, bands[a + 1] those
 * with range_0 at least 1.25 × bands[a]'s range_0 (a GPU selection picks among them as the CPU's widening does). */
void st_lod_widening_bands(const st_lod_world *w, const st_lod_params *p, double focal_px, double far_m,
                           st_lod_band bands[ST_LOD_ONE_LEVEL_RETRIES + 1][ST_LOD_MAX_LEVELS]);
/* The six planes the selection culls with (inward: n·p + d ≥ 0): the four through the eye and the image's edges
 * (left, right, bottom, top), the near and the far plane, from the view's own basis. */
void st_lod_frustum(const st_lod_view *v, double planes[6][4]);

/* The morph factor of a vertex at distance d (metres, from the eye to the unmorphed vertex) on a level-l
 * node: clamp((d − start)/(end − start), 0, 1). 0 inside the band's start, 1 from its end on. */
double st_lod_morph_k(const st_lod_band *band, double d);

/* Quadrants of a node: 0 = low x low y, 1 = high x low y, 2 = low x high y, 3 = high x high y. */
#define ST_LOD_QUADRANTS 4u

typedef struct st_lod_node {
    uint32_t level;
    uint64_t x, y;
    uint8_t quadrants;   /* bit q set: quadrant q is drawn by this node (the others by finer nodes or none) */
    uint16_t skirts;     /* with skirts: bit 4·q + side hangs one under that side of quadrant q (side 0: low y,
                            1: high x, 2: high y, 3: low x): every side but those facing another quadrant the node
                            draws itself and those on the world's edge */
    bool fallback;       /* its own tile is not drawable: heights come from `tile`, an ancestor's */
    st_tile_key tile;    /* the tile its heights are read from */
    double lo[3], hi[3]; /* its box (world metres), padded for skirts and a fallback's heights */
    double distance;     /* from the eye to the box */
} st_lod_node;

/* A box in world metres. */
typedef struct st_lod_box {
    double lo[3], hi[3];
} st_lod_box;

typedef struct st_lod_selection {
    st_lod_node *nodes;
    uint32_t count, cap;
    st_lod_box *missing_boxes; /* the drawn quadrants' boxes of the nodes counted in `missing` (first
                                  missing_kept of them) */
    uint32_t missing_kept, missing_cap;
    uint32_t levels, grid;
    st_lod_band bands[ST_LOD_MAX_LEVELS];
    uint32_t per_level[ST_LOD_MAX_LEVELS]; /* drawn quadrants per level */
    uint64_t quadrants;          /* drawn quadrants */
    uint64_t triangles;          /* of the drawn quadrants: 2·(N/2)² each, plus skirts */
    uint64_t skirt_triangles;    /* of those, in skirts: 2·N/2 per skirt side */
    uint32_t fallback;           /* nodes drawn from an ancestor's tile */
    uint32_t missing;            /* nodes that could not be drawn at all (no drawable ancestor yet) */
    uint32_t culled;             /* nodes dropped by the frustum */
    uint32_t visits;
    uint32_t one_level_violations; /* drawn nodes whose box reaches beyond the next level's morph start: a
                                      neighbour two levels coarser is then possible (a crack) */
    double worst_violation_m;    /* the largest such overshoot */
    uint32_t widened;            /* times the ranges were widened for this view to keep the one-level rule (the
                                    violations above are what is left after the last, 0 unless it ran out) */
} st_lod_selection;

/* Checks p against w (grid a power of two within the tile, ratios in range, τ finite and positive). */
st_result st_lod_check(const st_lod_world *w, const st_lod_params *p, st_error *err);

/* The selection of Strugar's CDLOD, from every root of level levels − 1, for a view:
 *  1. a node wholly outside the frustum is handled and draws nothing (unless no_cull);
 *  2. a node whose box does not reach inside its level's range is not handled: its parent draws its quadrant;
 *  3. a level-0 node, or one whose box does not reach inside the next finer level's range, is drawn whole;
 *  4. otherwise its children are visited and it draws the quadrants of those that were not handled.
 * Every visited node requests its tile; a drawn node whose tile is not drawable draws its nearest drawable
 * ancestor's heights (fallback) or, when there is none, nothing (missing). Fills sel (its arrays reused). */
st_result st_lod_select(const st_lod_world *w, const st_lod_params *p, const st_lod_view *v, st_lod_selection *sel,
                        st_error *err);
void st_lod_selection_free(st_lod_selection *sel);
/* ---- the coarse levels for a GPU walk of the fine ones ------------------------------------------------------ */

/* A node the coarse walk hands over (st_lod_select_coarse). */
typedef struct st_lod_coarse_node {
    uint32_t level, x, y;
    uint8_t quadrants; /* draws: the quadrants it draws */
    int8_t frustum;    /* its frustum state for the culls that follow (1: wholly inside, 0: crossing) */
    uint32_t parent;   /* candidates: their parent's index in `parents` */
} st_lod_coarse_node;

/* Where st_lod_select_coarse stopped. */
typedef struct st_lod_frontier {
    uint32_t first;               /* the level of the candidates: the finest one the coarse walk did not visit */
    st_lod_coarse_node *draws;    /* nodes of the levels above `first + 1` (or any above `first` drawn whole, and
                                     roots beyond their range) to draw: what emit gets in st_lod_select */
    st_lod_coarse_node *parents;  /* level first + 1 nodes that split: they draw the quadrants whose child is not
                                     handled, once the candidates are visited */
    st_lod_coarse_node *cands;    /* level `first` nodes to visit, in the children's order of their parents */
    uint32_t draw_count, parent_count, cand_count, draw_cap, parent_cap, cand_cap;
    uint32_t visits, culled;      /* of the coarse walk, as st_lod_select counts them */
} st_lod_frontier;

/* The first `cpu_levels` levels (from the roots; at least 1, at most levels − 1) of st_lod_select's walk with the
 * bands `bands` (its first attempt's: st_lod_widening_bands[0]): every node of those levels visited exactly as
 * st_lod_select visits it, its requests made, and the walk stopped at level first = levels − 1 − cpu_levels: a
 * walk of the levels from `first` down that visits f's candidates (a not-handled one gives its quadrant to its
 * parent), draws f's draws and then the parents' quadrants selects what st_lod_select's first attempt does. Fills
 * f (its arrays reused); ST_ERR_NOMEM, or ST_ERR_INVALID for a bad view or cpu_levels out of range. */
st_result st_lod_select_coarse(const st_lod_world *w, const st_lod_params *p, const st_lod_view *v,
                               const st_lod_band bands[ST_LOD_MAX_LEVELS], uint32_t cpu_levels, st_lod_frontier *f,
                               st_error *err);
void st_lod_frontier_free(st_lod_frontier *f);

/* How many pixels of the view's width_px × height_px image may show a hole where `boxes` (the boxes of nodes
 * that were not drawn: the selection's missing_boxes, and any a renderer could not draw) are: the union of their
 * screen rectangles, clipped at the near plane. An upper bound of the pixels where terrain is absent for want of
 * a tile: a box holds its node's surface, and terrain in front of it is not subtracted. 0 for no boxes.
 * ST_ERR_NOMEM when the image's mask cannot be allocated (*pixels is then 0). */
st_result st_lod_hole_pixels(const st_lod_box *boxes, uint32_t count, const st_lod_view *v, uint64_t *pixels,
                             st_error *err);

/* The grid a node's quadrant spans: vertices (i, j) with i, j in [qx·N/2, (qx + 1)·N/2] etc. The node's corner
 * in world metres and the size of one grid step. */
void st_lod_node_corner(const st_lod_world *w, const st_lod_node *n, double corner[2], double *cell_x, double *cell_y);
/* The skirt depth of a level: twice the next coarser level's δ plus one grid step (metres). */
double st_lod_skirt_depth(const st_lod_world *w, uint32_t level);

/* ---- the vertex (the C twin of shaders/common/cdlod_vertex.glsl) ----------------------------------------- */

/* Heights of the tile a node draws from, by sample coordinate of that tile (bilinear between samples). */
typedef double (*st_lod_height_fn)(void *user, double u, double v);

/* The position (world metres) of grid vertex (i, j) of a node: unmorphed at corner + (i, j)·cell, its height
 * sampled there; its distance d to the eye gives k = st_lod_morph_k; odd coordinates move by k toward their even
 * neighbour below (g − frac(g/2)·2·k) and the height is sampled again there. tex0 and tex_step map grid
 * coordinates to the sample coordinates of the tile the heights come from; limit clamps grid coordinates
 * where the world ends. */
void st_lod_vertex(const double eye[3], const st_lod_band *band, const double corner[2], double cell_x,
                   double cell_y, const double tex0[2], double tex_step, const double limit[2], double i, double j,
                   st_lod_height_fn height, void *user, double out[3], double *morph_k);

/* ---- a store as a quadtree --------------------------------------------------------------------------------- */

#define ST_LOD_ERROR_QUANTILE 0.99 /* the share of the finest samples a level's δ must bound */
#define ST_LOD_ERROR_LATTICE 8u    /* level-0 tiles sampled per world side for it */
#define ST_LOD_ERROR_LATTICE_GEN 3u /* the same for generated stores, whose tiles are made on demand (slow) */

/* The quadtree of a DEM store: its levels, spacing, δ per level — the measured error of the level's triangulated
 * surface that ST_LOD_ERROR_QUANTILE of the finest samples stay within, the largest over a lattice of
 * ST_LOD_ERROR_LATTICE² level-0 tiles (ST_LOD_ERROR_LATTICE_GEN² for a generated store; st_store_surface_error),
 * made monotone — beside delta_bound (the largest δ of each level's tiles in the index, a generated store's
 * analytic bound), node bounds from the index (node (l, x, y) has the footprint of tile (l − log2(s/N), x, y) for
 * l ≥ log2(s/N); finer nodes take their level-0 tile's), and, with r, drawable tiles and requests through the
 * residency manager. The store (and r) must outlive *out's use. */
st_result st_lod_world_of_store(st_store *store, st_residency *r, uint32_t grid, st_lod_world *out, st_error *err);
/* Makes w's ranges use the index's bound (delta = delta_bound): the worst case of every tile anywhere. */
void st_lod_world_use_bound(st_lod_world *w);
/* The node that maps to tile `tile`'s sub-rectangle: its first node (x, y) at the same level, and the sample
 * offset of node (l, x, y) inside its tile. Nodes per tile side: */
static inline uint32_t st_lod_nodes_per_tile(const st_lod_world *w) { return w->tile_intervals / w->grid; }
/* The tile (of the same level) that holds node (level, x, y)'s samples. */
static inline st_tile_key st_lod_node_tile(const st_lod_world *w, uint32_t level, uint64_t x, uint64_t y) {
    uint32_t k = st_lod_nodes_per_tile(w);
    return (st_tile_key){level, (uint32_t)(x / k), (uint32_t)(y / k)};
}

#endif
