// Decoding a texel of the level and the SOLID predicate: the GLSL twin of st_level_texel/st_texel_solid
// (src/terrain/level.c), tested against each other, and its interval form along a ray within one column
// (column_entry, shared by the exact column walks). Requires globals.glsl.
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

// The first t in [u0, u1] at which the ray (height oz + dz*t) is SOLID in column s, or -1: the interval
// form of surface_solid (z <= low, or dual and mid <= z <= high), so a column is never stepped over.
float column_entry(Surface s, float oz, float dz, float u0, float u1) {
    float z0 = oz + dz * u0;
    if (surface_solid(s, z0)) return u0;
    float best = -1.0;
    if (dz < 0.0) { // descending: reaches the floor top, or the slab top from above
        float th = (s.low - oz) / dz;
        if (th <= u1) best = max(th, u0);
        if (s.dual && z0 > s.high) {
            th = (s.high - oz) / dz;
            if (th <= u1 && (best < 0.0 || th < best)) best = max(th, u0);
        }
    } else if (dz > 0.0 && s.dual && z0 < s.mid) { // rising under a slab: reaches its ceiling
        float th = (s.mid - oz) / dz;
        if (th <= u1) best = max(th, u0);
    }
    return best;
}
