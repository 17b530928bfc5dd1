// A tile store on the GPU (src/render/large_world.c): the tile slots, what each slot holds (the slot table),
// which slot holds each tile (the page table), and the frame's view of the world (CdlodFrame, filled by the
// methods, src/render/methods/store_method.c). Heights are read exactly (texelFetch, bilinear in float). Positions are
// relative to the eye; finest-sample indices are relative to the frame's anchor, the eye's sample, so that every
// node computes a shared vertex from the same integers (watertight seams). Requires globals.glsl.

#define CDLOD_MAX_LEVELS 24

struct CdlodSlot {
    float scale, offset; // metres = offset + scale · v
    float min_m, max_m;
    uint level, x, y, valid;
};

layout(set = 1, binding = 0) uniform sampler2DArray tile_slots;
layout(set = 1, binding = 1, std430) readonly buffer SlotTable { CdlodSlot slot_info[]; };
layout(set = 1, binding = 2, std430) readonly buffer PageTable { uint page_table[]; };

// Mirror of st_store_frame_gpu in src/render/methods/store_method.h
layout(set = 1, binding = 3, std140) uniform CdlodFrame {
    vec4 bands[CDLOD_MAX_LEVELS];    // morph start, morph end, 1 / (end − start) (0: no morph), unused
    uvec4 pages[CDLOD_MAX_LEVELS];   // page table level: offset, tiles across, down, present
    vec4 anchor_tile[CDLOD_MAX_LEVELS]; // per level: the anchor's tile (x, y) and its sample offset in it (x, y)
    uvec4 info;      // levels, grid N, samples are u16 (1) or f32 (0), tile intervals s
    vec4 spacing;    // metres between finest samples (x, y); the eye minus the anchor in metres (z, w)
    vec4 extent;     // the world's last finest sample relative to the anchor (x, y); sea level; highest point
    vec4 eye_world;  // the eye's height in metres (x); shadows on (y); wireframe (z); skirt pass (w)
    uvec4 counts;    // patch instances, skirt instances, triangles per patch instance, per skirt instance
    uvec4 instance_base; // cdlod: the first skirt instance (x)
} frame;

// One sample of a slot, in metres relative to the eye's height.
float slot_sample(uint slot, ivec2 ij) {
    float v = texelFetch(tile_slots, ivec3(ij, int(slot)), 0).r;
    if (frame.info.z != 0u) v = round(v * 65535.0); // R16_UNORM back to the stored integer
    CdlodSlot s = slot_info[slot];
    precise float m = (s.offset + s.scale * v) - frame.eye_world.x; // precise: a vertex's height (slot_height_exact)
    return m;
}

// The bilinear surface of a slot's tile at sample coordinates uv (clamped to the tile), relative to the eye's
// height; grad gets its slope in metres per sample.
float slot_height(uint slot, vec2 uv, out vec2 grad) {
    float last = float(frame.info.w);
    uv = clamp(uv, vec2(0.0), vec2(last));
    vec2 c = min(floor(uv), vec2(last - 1.0));
    vec2 t = uv - c;
    ivec2 i = ivec2(c);
    float h00 = slot_sample(slot, i), h10 = slot_sample(slot, i + ivec2(1, 0));
    float h01 = slot_sample(slot, i + ivec2(0, 1)), h11 = slot_sample(slot, i + ivec2(1, 1));
    // weights rather than a + t·(b − a): a sample is then returned exactly at t = 0 and t = 1, so neighbouring
    // tiles give a shared edge vertex the same height to the bit
    float a = h00 * (1.0 - t.x) + h10 * t.x, b = h01 * (1.0 - t.x) + h11 * t.x;
    grad = vec2((h10 - h00) * (1.0 - t.y) + (h11 - h01) * t.y, b - a);
    return a * (1.0 - t.y) + b * t.y;
}

// slot_height without the slope, every step `precise` (no fused operations): for vertex positions, which must be
// the same bits wherever they are computed (shaders/common/cdlod_vertex.glsl).
float slot_height_exact(uint slot, vec2 uv) {
    float last = float(frame.info.w);
    uv = clamp(uv, vec2(0.0), vec2(last));
    vec2 c = min(floor(uv), vec2(last - 1.0));
    precise vec2 t = uv - c;
    ivec2 i = ivec2(c);
    float h00 = slot_sample(slot, i), h10 = slot_sample(slot, i + ivec2(1, 0));
    float h01 = slot_sample(slot, i + ivec2(0, 1)), h11 = slot_sample(slot, i + ivec2(1, 1));
    precise float a = h00 * (1.0 - t.x) + h10 * t.x, b = h01 * (1.0 - t.x) + h11 * t.x;
    precise float h = a * (1.0 - t.y) + b * t.y;
    return h;
}

// The finest tile on the GPU under a point p (relative to the eye), at or above level `from`: its slot, level
// and the point's sample coordinates in it. False where none is (off the world, nothing loaded).
bool world_tile(vec3 p, uint from, out uint slot, out uint level, out vec2 uv) {
    vec2 idx = (p.xy + frame.spacing.zw) / frame.spacing.xy; // finest samples from the anchor
    float s = float(frame.info.w);
    for (uint l = from; l < frame.info.x; l++) {
        uvec4 pg = frame.pages[l];
        if (pg.w == 0u) continue;
        vec4 at = frame.anchor_tile[l];
        vec2 q = (at.zw + idx / exp2(float(l))) / s;         // tiles from the anchor's tile, fractional
        vec2 tf = floor(q);
        ivec2 t = ivec2(at.xy + tf);
        if (any(lessThan(t, ivec2(0))) || t.x >= int(pg.y) || t.y >= int(pg.z)) return false;
        uint e = page_table[pg.x + uint(t.y) * pg.y + uint(t.x)];
        if (e != 0u) {
            slot = e - 1u;
            level = l;
            uv = (q - tf) * s;
            return true;
        }
    }
    return false;
}

// The sun's visibility at p (relative to the eye) with unit normal n: a march toward the sun over the finest
// heights on the GPU, one sample a step, skipping whole tiles the ray passes above (their highest point) and
// stopping above the world's highest point. 1 = lit.
float world_sun_visibility(vec3 p, vec3 n) {
    if (frame.eye_world.y == 0.0) return 1.0;
    vec3 L = g.light.xyz;
    float flat_len = length(L.xy);
    uint slot, level;
    vec2 uv, grad;
    // start on (or above) the finest surface there: the drawn level may lie below it by its error
    vec3 q = p;
    if (world_tile(q, 0u, slot, level, uv)) q.z = max(q.z, slot_height(slot, uv, grad));
    float step0 = max(frame.spacing.x, frame.spacing.y);
    q += n * (0.5 * step0) + L * (0.5 * step0);
    float top = frame.extent.w - frame.eye_world.x;
    for (int it = 0; it < 256; it++) {
        if (q.z > top) return 1.0;
        if (!world_tile(q, 0u, slot, level, uv)) return 1.0;
        CdlodSlot si = slot_info[slot];
        float cell = exp2(float(level));
        if (q.z + frame.eye_world.x > si.max_m) {
            // above the whole tile: go straight to where the ray leaves it
            float s = float(frame.info.w);
            vec2 exit_uv = mix(vec2(0.0), vec2(s), greaterThan(L.xy, vec2(0.0)));
            vec2 tt = (exit_uv - uv) * cell * frame.spacing.xy / (L.xy + vec2(1e-20));
            float t = min(L.x != 0.0 ? tt.x : 1e30, L.y != 0.0 ? tt.y : 1e30);
            q += L * (max(t, 0.0) + 0.25 * step0);
            continue;
        }
        if (q.z < slot_height(slot, uv, grad)) return 0.0;
        q += L * (cell * step0 / flat_len);
    }
    return 1.0;
}
