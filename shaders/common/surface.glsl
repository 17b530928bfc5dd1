// Decoding a texel of the level and the SOLID predicate: the GLSL twin of st_level_texel/st_texel_solid
// (src/terrain/level.c), tested against each other. Requires globals.glsl.
struct Surface {
    float low, mid, high;
    uint low_type, high_type;
    bool dual;
};

uint terrain_type(uint meta) {
    return g.knobs.y == 16u ? (meta >> 2) & 15u : (meta >> 3) & 7u;
}

Surface surface_at(ivec2 cell) {
    ivec2 size = ivec2(g.level_info.xy);
    ivec2 c = cell & (size - 1); // power-of-two wrap (two's complement handles negatives)
    uvec4 pair = texelFetch(terrain, ivec2(c.x >> 1, c.y), 0);
    Surface s;
    if ((pair.y & 0x40u) != 0u) { // the even texel's flag decides
        uint d = ((pair.y & 3u) << 2) | (pair.w & 3u);
        s.low = float(pair.x);
        s.high = float(pair.z);
        s.mid = min(float(pair.x + (d << 3)), s.high);
        s.low_type = terrain_type(pair.y);
        s.high_type = terrain_type(pair.w);
        s.dual = true;
    } else {
        bool odd = (c.x & 1) != 0;
        float h = float(odd ? pair.z : pair.x);
        s.low = h;
        s.mid = h;
        s.high = h;
        s.low_type = terrain_type(odd ? pair.w : pair.y);
        s.high_type = s.low_type;
        s.dual = false;
    }
    return s;
}

bool surface_solid(Surface s, float z) {
    return z <= s.low || (s.dual && s.mid <= z && z <= s.high);
}

// SOLID(p) := z <= low || (dual && mid <= z && z <= high); height 0 is hittable.
bool solid(vec3 p) {
    return surface_solid(surface_at(ivec2(floor(p.xy))), p.z);
}
