#version 460
#extension GL_GOOGLE_include_directive : require
// The air tables (air_tables.glsl): rebuilds a region of one table — table 0 from the terrain (each cell over its
// 4×4 texels grown by one), table 1 from table 0 and table 2 from table 1 (a cell grown by one is exactly the
// grown cells it holds) — at creation and after an edit (src/render/methods/air_tables.c).
#include "globals.glsl"
#include "surface.glsl"
#define AIR_TABLES_SET 1
#define AIR_TABLES_BINDING 0
#include "air_tables.glsl"

// Mirror of air_push in src/render/methods/air_tables.c
layout(push_constant) uniform AirPush {
    ivec4 region; // the cells to rebuild: x0, y0, width, height
    ivec4 level;  // .x: the table (0, 1, 2)
} pc;

layout(local_size_x = 8, local_size_y = 8) in;

void main() {
    ivec2 id = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(id, pc.region.zw))) return;
    int level = pc.level.x;
    ivec2 cell = pc.region.xy + id, size = air_table_size(level);
    if (any(greaterThanEqual(cell, size))) return;
    uint top = 0u, floor_top = 0u, ceiling = 256u;
    if (level == 0) {
        ivec2 level_size = ivec2(g.level_info.xy);
        int side = air_cell_side(0);
        // the pair texels holding texels [side·c − 1, side·c + side + 1), wrapped (decoded as surface_at does)
        for (int y = cell.y * side - 1; y <= cell.y * side + side; y++)
            for (int x = (cell.x * side - 2) >> 1; x <= (cell.x * side + side) >> 1; x++) {
                ivec2 t = ivec2(2 * x, y) & (level_size - 1);
                uvec4 pair = terrain_pair(t); // the level's texture, or its pages where the terrain is paged
                top = max(top, max(pair.x, pair.z));
                if ((pair.y & 0x40u) != 0u) { // dual: a floor at low and a cave ceiling at mid
                    uint d = ((pair.y & 3u) << 2) | (pair.w & 3u);
                    floor_top = max(floor_top, pair.x);
                    ceiling = min(ceiling, min(pair.x + (d << 3), pair.z));
                } else {
                    floor_top = max(floor_top, max(pair.x, pair.z));
                }
            }
    } else {
        int ratio = air_cell_side(level) / air_cell_side(level - 1);
        ivec2 below = air_table_size(level - 1);
        for (int y = 0; y < ratio; y++)
            for (int x = 0; x < ratio; x++) {
                ivec2 c = min(cell * ratio + ivec2(x, y), below - 1);
                vec3 v = air_cell(c, level - 1);
                top = max(top, uint(v.x));
                floor_top = max(floor_top, uint(v.y));
                ceiling = min(ceiling, uint(v.z));
            }
    }
    air_table[air_table_base(level) + cell.y * size.x + cell.x] = air_pack(top, floor_top, ceiling);
}
