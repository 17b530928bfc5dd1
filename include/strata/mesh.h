/* Fitted triangle meshes of the multi-layer surface: exact integer grid predicates, a greedy Delaunay TIN
 * fitter over a sample grid with up to three layers (st_tin_*), and the chunked three-LOD mesh of a level
 * with compact GPU-ready buffers and exact refits after edits (st_mesh_*). See docs/mesh.md. */
#ifndef STRATA_MESH_H
#define STRATA_MESH_H

#include "strata/camera.h"
#include "strata/level.h"

/* ---- exact predicates on integer grid coordinates ------------------------------------------------------
 * Exact in int64 while every coordinate lies in [0, ST_TIN_MAX_COORD]. */
#define ST_TIN_MAX_COORD 16384
/* +1 when a, b, c turn counter-clockwise (y up), -1 clockwise, 0 collinear. */
int st_tin_orient(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy);
/* For a counter-clockwise a, b, c: +1 when d lies strictly inside their circumcircle, 0 on it, -1 outside. */
int st_tin_incircle(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy, int32_t dx,
                    int32_t dy);

/* ---- the TIN fitter -------------------------------------------------------------------------------------
 * Greedy insertion after Garland and Heckbert: every triangle caches its worst sample, a max-heap pops the
 * worst, the sample is inserted and the Delaunay property restored by edge flips, until every sample is
 * within tolerance. The four sides are simplified first by Douglas-Peucker (ties to the lowest index), also
 * against the rows beside them, and never refined afterwards, so two grids sharing a side (and each given
 * the other's row beside it) get the same side vertices. The result is a pure
 * function of the inputs: the same samples give the same triangulation, bit for bit. */
#define ST_TIN_MAX_SIDE 4097u
#define ST_TIN_NONE 0xFFFFFFFFu
#define ST_TIN_MAX_SNAPSHOTS 4

typedef enum st_tin_driver {
    ST_TIN_DRIVER_FLOOR,   /* the low layer had the largest error */
    ST_TIN_DRIVER_SLAB,    /* mid or high, inside the dual region (all corners and the sample dual) */
    ST_TIN_DRIVER_OUTLINE, /* the single/dual region boundary: mid/high across it, or an outline sample */
    ST_TIN_DRIVER_BORDER,  /* a side vertex kept by Douglas-Peucker */
    ST_TIN_DRIVER_COUNT
} st_tin_driver;

typedef struct st_tin_stats {
    uint32_t insertions[ST_TIN_DRIVER_COUNT];
    double max_error;         /* largest remaining error under the metric, height units */
    uint64_t samples_scanned; /* work done re-evaluating candidates */
} st_tin_stats;

typedef struct st_tin_vertex {
    uint16_t x, y; /* grid coordinates */
} st_tin_vertex;

typedef struct st_tin_triangle {
    uint32_t v[3];   /* counter-clockwise (y up) */
    uint32_t adj[3]; /* adj[i]: the triangle across the edge opposite v[i]; ST_TIN_NONE on the hull */
} st_tin_triangle;

struct st_tin;
typedef void (*st_tin_snapshot_fn)(void *user, const struct st_tin *tin, uint32_t index);

/* The samples just across one side of the grid (what a neighbouring grid holds there), one per side sample
 * in the side's grid direction, with the grid's layers: mid and high when it has them, dual when it has it. */
typedef struct st_tin_outside {
    const uint16_t *low;        /* NULL = nothing is known across this side */
    const uint16_t *mid, *high;
    const uint8_t *dual;
} st_tin_outside;

typedef struct st_tin_desc {
    uint32_t width, height;     /* samples, 2..ST_TIN_MAX_SIDE each; sample (x, y) at index y*width + x */
    const uint16_t *low;        /* required */
    const uint16_t *mid, *high; /* both or neither; NULL = a single-layer grid */
    const uint8_t *dual;        /* nonzero = a two-layer sample; NULL = none. A single sample must carry
                                 * mid = high = low (what st_level_texel decodes) */
    double tolerance;           /* stop once every sample's error is ≤ tolerance (> 0) */
    double border_tolerance;    /* Douglas-Peucker tolerance of the four sides; 0 = tolerance */
    /* Coarser stops, descending, each ≥ tolerance, 0 = unused: snapshot(user, tin, i) runs when the worst
     * error first drops to snapshot_tolerances[i]. Greedy insertion does not depend on the tolerance, so a
     * fit at a coarser tolerance is a prefix of this one: one fit gives every level of detail. */
    double snapshot_tolerances[ST_TIN_MAX_SNAPSHOTS];
    st_tin_snapshot_fn snapshot;
    void *user;
    /* The outline metric: mid and high are fitted only inside the dual region (triangles with three dual
     * corners); a single sample inside such a triangle farther than a texel from its edges, or a dual
     * sample of any other triangle not on an edge joining two dual corners, is an outline sample, and the
     * deepest one is inserted first: the slab covers every dual sample. Without it, single samples count
     * mid = high = low (the paper's metric). */
    bool outline;
    /* Sides 0 (y = −1, along +x), 1 (x = width, along +y), 2 (y = height, along +x), 3 (x = −1, along +y).
     * A side also keeps a vertex where the row beside it (just inside the grid, and this one when given)
     * departs from the side's line by an amount that varies along a segment by more than the border
     * tolerance: a triangle on a side whose third corner lies on that row holds no sample but its corners.
     * Two grids sharing a side, each given the other's row, get the same side vertices. */
    st_tin_outside outside[4];
    /* The sides simplified against their own samples alone, not the rows beside them (outside is unused): every
     * sample still ends within the tolerance, but the surface between a side and the row beside it is not
     * bounded. Two grids sharing a side still get the same side vertices. For a single-layer DEM, whose bound
     * is at its samples (st_dem_tin). */
    bool sides_alone;
    uint32_t max_insertions; /* 0 = unlimited; stop after this many interior insertions (tests) */
    /* Scan with the 64-bit scalar loop even where the 8-lane vector one applies (grids of at most 129 a side on
     * CPUs with AVX2); both give the same fit bit for bit (tests, comparisons). */
    bool scalar_scan;
} st_tin_desc;

typedef struct st_tin {
    uint32_t width, height;
    uint32_t vertex_count, triangle_count;
    st_tin_vertex *vertices;     /* in insertion order: a coarser snapshot uses a prefix */
    st_tin_triangle *triangles;
    st_tin_stats stats;
    struct st_tin_work *work;    /* scratch reused between fits */
} st_tin;

/* A workspace; fit it as often as needed (one per thread). */
st_result st_tin_create(st_tin **out, st_error *err);
void st_tin_destroy(st_tin *tin);
/* Fits desc's grid by greedy insertion until every sample is within tolerance (or max_insertions), replacing
 * the previous fit's vertices and triangles; snapshots run on the way. ST_ERR_INVALID for a bad desc. */
st_result st_tin_fit(st_tin *tin, const st_tin_desc *desc, st_error *err);
/* Checks adjacency, orientation and the empty-circumcircle property over every interior edge, exactly. */
bool st_tin_check_delaunay(const st_tin *tin, st_error *err);

/* ---- the TIN of a single-layer DEM ----------------------------------------------------------------------
 * A DEM of up to ST_DEM_TIN_MAX_SIDE samples a side fitted in tiles that share their sides, one st_tin fit each
 * on the job system, stitched into one triangulation: two tiles sharing a side simplify it from the same
 * samples by the same rule (its own samples; with sides_beside also the rows on both of its sides), so they keep
 * the same vertices on it and the stitched TIN has no crack and no T-junction. Every sample ends within the tolerance of the triangle it lies in (error ≤ tolerance: a
 * sample exactly at it stays uninserted). The result does not depend on the thread count: tiles are fitted
 * alone and stitched in row-major order. */
#define ST_DEM_TIN_MAX_SIDE 16385u

typedef struct st_dem_tin_desc {
    uint32_t width, height;   /* samples, 2..ST_DEM_TIN_MAX_SIDE each; sample (x, y) at index y*width + x */
    const uint16_t *samples;  /* required */
    double tolerance;         /* height units, > 0: every sample's error ≤ tolerance */
    /* A tile's size in sample steps (tiles share their sides). Both 0 = the default, 64 × 64; one 0 = square tiles
     * of the other; a size past the grid's is the grid's (both: one tile, the single fit). */
    uint32_t tile_x, tile_y;
    /* Also bound the surface between each side and the rows beside it, as the chunked mesh does (more vertices
     * on the sides; st_tin_desc.sides_alone off); by default the sides are simplified alone, as the bound is at
     * the samples. */
    bool sides_beside;
} st_dem_tin_desc;

typedef struct st_dem_tin {
    uint32_t width, height;
    uint32_t tile_x, tile_y, tiles; /* the tile size used and the number of tiles */
    uint32_t vertex_count, triangle_count;
    st_tin_vertex *vertices;        /* tile by tile in row-major order, each tile's in insertion order */
    uint32_t *triangles;            /* three vertex indices each, counter-clockwise (y up) */
    double max_error;               /* the largest error the tile fits report, height units */
} st_dem_tin;

/* Fits desc's DEM (see above) into *out. ST_ERR_INVALID for a bad desc, ST_ERR_NOMEM. */
st_result st_dem_tin_fit(const st_dem_tin_desc *desc, st_dem_tin **out, st_error *err);
void st_dem_tin_destroy(st_dem_tin *tin);

/* A 64-bit digest of the TIN's vertices and triangles in their order (equal TINs, equal digests; for comparing
 * fits, e.g. on different thread counts). */
uint64_t st_dem_tin_digest(const st_dem_tin *tin);

/* What st_dem_tin_check found. */
typedef struct st_dem_tin_report {
    uint64_t samples_checked;  /* every sample of the grid, each tested in every triangle it lies in */
    uint64_t over_tolerance;   /* samples whose error exceeds the tolerance (0 for a correct fit) */
    uint64_t at_tolerance;     /* samples whose error equals it exactly (integer tolerances only) */
    double max_error;          /* the largest error found, height units */
    uint64_t interior_edges, border_edges;
} st_dem_tin_report;

/* Checks tin against the samples it was fitted to, exactly: the triangles tile the grid's rectangle (counter-
 * clockwise, one vertex per sample at most, every edge shared by two triangles or on the rectangle's boundary,
 * which they cover once: no crack, no T-junction), and every sample's error against the closed triangles it lies
 * in, |z·A − Σ w·z| against tolerance·A in integers when the tolerance is an integer. The counts go to *out; the
 * bound itself is out->over_tolerance == 0. ST_ERR_INVALID with a message when the tiling fails. */
st_result st_dem_tin_check(const st_dem_tin *tin, const uint16_t *samples, double tolerance, st_dem_tin_report *out,
                           st_error *err);

/* ---- the chunked mesh of a level -----------------------------------------------------------------------
 * 128×128-texel chunks (129² samples; sample (i, j) is texel (cx·128 + i, cy·128 + j), wrapped), three
 * LODs at τ, 2τ, 4τ with the sides always at τ, so neighbours at any two LODs share their side vertices.
 * Each chunk is fitted as fit tiles (64×64 by default, 2×2 per chunk), each an independent TIN whose sides
 * are simplified like the chunk's: an edit refits only the tiles whose samples changed and re-emits the
 * chunk from the others' previous triangles, so the refit costs a quarter of a chunk fit per touched tile.
 * A chunk's mesh is a function of its own samples and of the ring of samples around them (their heights
 * for the simplification of its sides, st_tin_desc.outside; their dual flags for the shifts of
 * st_mesh_vertex). */
#define ST_MESH_CHUNK 128u
#define ST_MESH_LODS 3u
#define ST_MESH_MAX_TILES 16u /* fit tiles per chunk: the tile is at least a quarter of the chunk's side */

typedef enum st_mesh_layer { ST_MESH_LAYER_FLOOR = 0, ST_MESH_LAYER_CEILING = 1, ST_MESH_LAYER_TOP = 2 } st_mesh_layer;
typedef enum st_mesh_part {
    ST_MESH_PART_FLOOR,   /* every triangle at low, counter-clockwise from above */
    ST_MESH_PART_TOP,     /* slab triangles at high, counter-clockwise from above */
    ST_MESH_PART_CEILING, /* slab triangles at mid, reversed (facing down) */
    ST_MESH_PART_WALL,    /* mid→high quads on slab edges whose neighbour is no slab, facing out */
    ST_MESH_PART_COUNT
} st_mesh_part;

/* 4 bytes, VK_FORMAT_R8G8B8A8_UINT: chunk-local sample position, height, layer (material lookup) and, for
 * slab vertices, a half-texel shift. A sample stands for its texel's centre, but a dual texel's slab fills
 * the whole texel square (SOLID): a slab vertex whose texel ends the dual region along an axis (the
 * neighbour on one side single, on the other dual) moves half a texel toward the single one, so the slab's
 * outline lies on texel edges instead of texel centres. */
typedef struct st_mesh_vertex {
    uint8_t x, y; /* 0..chunk size; world position = chunk origin + (x, y) + 0.5 + shift (texel centres) */
    uint8_t z;    /* height 0..255 */
    uint8_t layer;/* st_mesh_layer in the bits of ST_MESH_LAYER_MASK, ST_MESH_SHIFT_* above them */
} st_mesh_vertex;

#define ST_MESH_LAYER_MASK 3u
#define ST_MESH_SHIFT_X_NEG 4u  /* x − 0.5 */
#define ST_MESH_SHIFT_X_POS 8u  /* x + 0.5 */
#define ST_MESH_SHIFT_Y_NEG 16u /* y − 0.5 */
#define ST_MESH_SHIFT_Y_POS 32u /* y + 0.5 */

/* The vertex's st_mesh_layer. */
static inline st_mesh_layer st_mesh_vertex_layer(const st_mesh_vertex *v) {
    return (st_mesh_layer)(v->layer & ST_MESH_LAYER_MASK);
}

/* The vertex's position relative to the chunk origin (sample (0, 0) is at 0.5, 0.5): texel centre plus
 * its shift, and height. */
static inline void st_mesh_vertex_local(const st_mesh_vertex *v, float out[3]) {
    out[0] = (float)v->x + 0.5f - ((v->layer & ST_MESH_SHIFT_X_NEG) ? 0.5f : 0.0f) +
             ((v->layer & ST_MESH_SHIFT_X_POS) ? 0.5f : 0.0f);
    out[1] = (float)v->y + 0.5f - ((v->layer & ST_MESH_SHIFT_Y_NEG) ? 0.5f : 0.0f) +
             ((v->layer & ST_MESH_SHIFT_Y_POS) ? 0.5f : 0.0f);
    out[2] = (float)v->z;
}

typedef struct st_mesh_lod {
    uint32_t first_index;                    /* into the chunk's u16 index buffer */
    uint32_t triangle_count;                 /* parts stored one after the other in st_mesh_part order */
    uint32_t part_triangles[ST_MESH_PART_COUNT];
    uint32_t vertex_count;                   /* the LOD only references vertices [0, vertex_count) */
    uint32_t tin_vertices, tin_triangles;    /* the planar triangulations (tin_triangles = floor); tile sides
                                              * counted in both tiles */
} st_mesh_lod;

/* What a chunk keeps of one fit tile: enough to find its triangles in the chunk's buffers (within each
 * LOD and part, tiles follow each other in row-major order) and to skip its refit while its samples stay. */
typedef struct st_mesh_tile {
    uint64_t sample_hash;                          /* of the tile's samples and of the rows just outside its
                                                    * sides (64-bit: a false match is 2^-64) */
    uint32_t part_triangles[ST_MESH_LODS][ST_MESH_PART_COUNT];
    uint32_t tin_vertices[ST_MESH_LODS];
    uint32_t insertions[ST_TIN_DRIVER_COUNT];      /* LOD 0 fit (sides counted in both tiles) */
    float max_error;
} st_mesh_tile;

typedef struct st_mesh_chunk {
    uint32_t cx, cy;
    float aabb_min[3], aabb_max[3]; /* world units (texels, heights), over all LODs */
    st_mesh_vertex *vertices;       /* shared by the three LODs, ordered by first use from LOD 2 down */
    uint16_t *indices;
    uint32_t vertex_count, index_count;
    st_mesh_lod lods[ST_MESH_LODS];
    st_mesh_tile *tiles;                      /* tiles_x² fit tiles, row-major */
    float fit_ms;                             /* CPU time of the last fit (or of the check that skipped it) */
    uint32_t tiles_fitted;                    /* by the last fit; the others were re-emitted as they were */
    uint32_t version;                         /* bumped whenever the buffers change: what a renderer uploads */
    uint64_t ring_hash;                       /* of the dual flags of the samples just outside the chunk's,
                                               * which decide the shifts of its slab vertices on its sides */
} st_mesh_chunk;

typedef struct st_mesh_desc {
    double tolerance;    /* LOD 0 tolerance in height units; 0 = st_mesh_tolerance(0.5) = 4 */
    uint32_t chunk_size; /* 0 = ST_MESH_CHUNK; a power of two ≤ 128 (small levels in tests) */
    uint32_t fit_tile;   /* 0 = half the chunk; a power of two from a quarter of the chunk to all of it */
    bool no_outline;     /* the paper's metric instead of the outline metric */
} st_mesh_desc;

typedef struct st_mesh {
    uint32_t width, height;       /* of the level */
    uint32_t chunk_size, chunks_x, chunks_y;
    uint32_t fit_tile, tiles_x;   /* fit tile side in texels; tiles per chunk side */
    double tolerance;
    bool outline;
    bool refit_unchanged;         /* refit tiles that meet the dirty rectangle even when their samples hash
                                   * as before (benchmarks repeating one edit) */
    st_mesh_chunk *chunks;        /* chunks_x * chunks_y, row-major */
} st_mesh;

/* Totals the way the paper counts them (spec §4.8): GPU = Σ chunk VB + IB over the three LODs; CPU = what
 * the mesh retains besides that payload (the chunk and tile tables: nothing else is needed to refit but
 * the level). */
typedef struct st_mesh_totals {
    uint64_t vertices;                            /* VB entries */
    uint64_t tin_vertices;                        /* LOD 0 planar vertices (tile sides counted once) */
    uint64_t tin_triangles[ST_MESH_LODS];
    uint64_t part_triangles[ST_MESH_LODS][ST_MESH_PART_COUNT];
    uint64_t triangles;                           /* stored over all LODs and parts */
    uint64_t insertions[ST_TIN_DRIVER_COUNT];     /* tile sides counted once */
    uint64_t gpu_bytes, cpu_bytes;
    double max_error;
    double fit_ms_sum;                            /* CPU time of the chunk fits */
} st_mesh_totals;

/* τ = 2^(4(1−q)) height units: q = 0 → 16, 0.5 → 4, 1 → 1. */
double st_mesh_tolerance(double quality);
/* Fits every chunk on the job system. */
st_result st_mesh_create(const st_level *level, const st_mesh_desc *desc, st_mesh **out, st_error *err);
void st_mesh_destroy(st_mesh *mesh);
/* Refits every chunk whose samples, or the ring of samples just outside them (they decide the chunk's side
 * vertices and the shifts of its slab vertices there), intersect the dirty rectangle (a side's samples
 * belong to both of its chunks, so a changed side refits both), on the job system: within a chunk only the
 * fit tiles whose samples or the rows just outside their sides changed are fitted again, the others are
 * re-emitted from the chunk's buffers. The result
 * equals a fresh st_mesh_create of the edited level. Chunks whose buffers changed get a new `version`. */
st_result st_mesh_refit(st_mesh *mesh, const st_level *level, st_rect dirty, uint32_t *chunks_refit,
                        st_error *err);
/* The chunks st_mesh_refit refits for `dirty`, in the order it fits them: writes up to cap indices into
 * list (may be NULL) and returns how many there are. */
uint32_t st_mesh_chunks_in_rect(const st_mesh *mesh, st_rect dirty, uint32_t *list, uint32_t cap);
/* The mesh's totals over every chunk (see st_mesh_totals). */
st_mesh_totals st_mesh_compute_totals(const st_mesh *mesh);
/* LOD = min(2, ⌊log2(max(dist/256, 1))⌋): LOD 0 below 512, LOD 1 below 1024, LOD 2 beyond. */
uint32_t st_mesh_lod_for_distance(float dist);
/* Where a method keeps chunk i in its vertex and index buffers, in elements (vertices, indices): a slot with a
 * little room to grow in place (16 vertices, 96 indices), and past every slot a shared tail that a chunk
 * outgrowing its slot moves to; a full tail means laying every chunk out again. */
typedef struct st_mesh_slot {
    uint32_t vb_off, vb_cap, ib_off, ib_cap;
} st_mesh_slot;
/* Lays every chunk of mesh out from its current counts into slots[chunks_x·chunks_y], one after the other;
 * *vertices and *indices get where the slots end (where the tail starts). */
void st_mesh_slots_lay_out(const st_mesh *mesh, st_mesh_slot *slots, uint64_t *vertices, uint64_t *indices);
/* The buffer size for `used` elements of slots with the shared tail after them (an eighth more, and 4 Ki). */
uint64_t st_mesh_slots_with_tail(uint64_t used);
/* Chunk `chunk`'s current counts into its slot: in place where they fit, else at the tails *vb_tail / *ib_tail of
 * buffers of vb_size / ib_size elements (advanced past it); false when a tail has no room left. */
bool st_mesh_slot_place(const st_mesh *mesh, uint32_t chunk, st_mesh_slot *slots, uint32_t vb_size, uint32_t ib_size,
                        uint32_t *vb_tail, uint32_t *ib_tail);
/* A chunk copy a view draws (st_mesh_select_draws): the chunk, its LOD for dist, the copy's chunk origin in level
 * units (the wrapped copy's offset plus the chunk's first texel centre) and dist, the distance in xy from the eye
 * to the middle of the chunk's box. */
typedef struct st_mesh_draw {
    float dist;
    uint32_t chunk, lod;
    float origin[2];
} st_mesh_draw;
/* The chunk copies of mesh (fitted on level) that view draws, near to far (ties by chunk index), into out (at
 * most cap: the nearest are kept); returns how many. A copy is drawn where its box meets the view's frustum and
 * the disc that bounds the frustum (the radius of a corner ray cut at the far plane: the far plane lies along the
 * view axis, so the frustum reaches past the far distance toward its corners); where the level wraps, every copy
 * of it that disc reaches (at most 64 a side, around the eye's), along an axis that does not, the level alone.
 * The culling of the native and the web mesh methods. */
uint32_t st_mesh_select_draws(const st_mesh *mesh, const st_level *level, const st_view *view,
                              st_mesh_draw *out, uint32_t cap);
/* The chunk's LOD for a camera at (x, y): distance from the chunk centre, shortest way round the wrap. */
uint32_t st_mesh_select_lod(const st_mesh *mesh, const st_mesh_chunk *chunk, float cam_x, float cam_y);
/* Whether st_mesh_export can write `path`: it ends in .obj or .ply (any case). */
bool st_mesh_export_format_known(const char *path);
/* Writes one LOD as .obj (groups floor, top, ceiling, wall) or binary .ply (a per-face part index), in
 * world units, atomically. The format follows the extension. */
st_result st_mesh_export(const st_mesh *mesh, uint32_t lod, const char *path, st_error *err);

#endif
