// Scattered: the packed screen-buffer word, the method's buffers (set 2) and the exact splat of one
// axis-aligned terrain face. A face whose pixel rectangle is larger than SCATTER_TILE² is queued for
// scatter_tiles.comp (one workgroup per face); when the queue is full it is splatted in place.
// The word is (24-bit depth key << 8) | 8-bit material; the key is 0xFFFFFF − round(depth·0xFFFFFF) of the
// reverse-Z depth, so atomicMin keeps the nearest sample and the cleared 0xFFFFFFFF reads as a miss.
// C twin: st_scatter_pack / st_scatter_unpack (src/render/methods/scatter.c), tested against each other.
// Requires globals.glsl and camera.glsl.

const uint SCATTER_CLEAR = 0xFFFFFFFFu;
const uint SCATTER_KEY_MISS = 0xFFFFFFu;

// Material byte: type (bits 0..3), upper layer (bit 4), face (bits 5..7: SCATTER_FACE_*).
const uint SCATTER_FACE_TOP = 0u;     // horizontal, seen from above
const uint SCATTER_FACE_BOTTOM = 1u;  // horizontal, seen from below (a cave ceiling)
const uint SCATTER_FACE_XNEG = 2u;    // wall on the column's −x side (its cell lies toward +x)
const uint SCATTER_FACE_XPOS = 3u;
const uint SCATTER_FACE_YNEG = 4u;
const uint SCATTER_FACE_YPOS = 5u;

uint scatter_material(uint type, bool upper, uint face) {
    return (type & 15u) | (upper ? 16u : 0u) | (face << 5);
}

uint scatter_pack(float depth, uint material) {
    uint q = uint(clamp(depth, 0.0, 1.0) * 16777215.0 + 0.5);
    return ((SCATTER_KEY_MISS - min(q, SCATTER_KEY_MISS)) << 8) | (material & 255u);
}

// Reverse-Z depth of a packed word (0 = miss).
float scatter_unpack_depth(uint word) {
    return float(SCATTER_KEY_MISS - (word >> 8)) / 16777215.0;
}

// An axis-aligned rectangle of terrain surface. axis 0: the plane z = c with (u, v) = (x, y); axis 1: the
// plane x = c with (u, v) = (y, z); axis 2: the plane y = c with (u, v) = (x, z).
struct Face {
    uint axis;
    float c;
    vec4 ext; // u0, u1, v0, v1
    uint material;
};

vec3 face_point(Face f, float u, float v) {
    return f.axis == 0u ? vec3(u, v, f.c) : (f.axis == 1u ? vec3(f.c, u, v) : vec3(u, f.c, v));
}

// Screen pixels whose centres the face's projection may cover: inclusive (x0, y0, x1, y1); empty when
// x0 > x1. The face is clipped to the near plane first, so faces that straddle it get a finite rectangle.
ivec4 face_pixel_rect(Face f) {
    float n = g.level_info.z, far = g.eye.w, focal = g.forward.w;
    vec3 view[4];
    for (int k = 0; k < 4; k++) {
        vec3 q = face_point(f, (k & 1) != 0 ? f.ext.y : f.ext.x, (k & 2) != 0 ? f.ext.w : f.ext.z) - g.eye.xyz;
        view[k] = vec3(dot(q, g.screen_right.xyz), dot(q, g.screen_up.xyz), dot(q, g.forward.xyz));
    }
    vec2 lo = vec2(1e30), hi = vec2(-1e30);
    bool any = false, near_far = true;
    const int ring[4] = int[4](0, 1, 3, 2); // the corners in order around the rectangle
    for (int e = 0; e < 4; e++) {
        vec3 a = view[ring[e]], b = view[ring[(e + 1) & 3]];
        if (a.z <= far) near_far = false;
        if (a.z >= n) {
            vec2 s = a.xy / a.z;
            lo = min(lo, s);
            hi = max(hi, s);
            any = true;
        }
        if ((a.z < n) != (b.z < n)) { // the edge crosses the near plane: its crossing is a vertex
            vec3 c = mix(a, b, (n - a.z) / (b.z - a.z));
            vec2 s = c.xy / n;
            lo = min(lo, s);
            hi = max(hi, s);
            any = true;
        }
    }
    if (!any || near_far) return ivec4(1, 1, 0, 0);
    // screen position of a view point: (W/2 + focal·x/z, H/2 − focal·y/z)
    vec2 half_size = 0.5 * vec2(g.screen_right.w, g.screen_up.w);
    float x0 = half_size.x + focal * lo.x, x1 = half_size.x + focal * hi.x;
    float y0 = half_size.y - focal * hi.y, y1 = half_size.y - focal * lo.y;
    const float margin = 1e-3; // the per-pixel test decides exactly; the rectangle only has to contain it
    ivec4 r = ivec4(ceil(x0 - 0.5 - margin), ceil(y0 - 0.5 - margin), floor(x1 - 0.5 + margin),
                    floor(y1 - 0.5 + margin));
    r.xy = max(r.xy, ivec2(0));
    r.zw = min(r.zw, ivec2(g.screen_right.w, g.screen_up.w) - 1);
    return r;
}

// Where pixel px's centre ray meets the face: the reverse-Z depth, or −1 when it misses (or lies outside
// the near..far range the ray method uses). Exact: the plane is intersected, not a point projected.
float face_pixel_depth(Face f, ivec2 px) {
    vec3 d = pixel_dir(vec2(px) + 0.5);
    int a = f.axis == 0u ? 2 : (f.axis == 1u ? 0 : 1);
    float da = d[a];
    if (abs(da) < 1e-20) return -1.0;
    float t = (f.c - g.eye[a]) / da; // along d, whose forward component is the focal length
    float z = t * g.forward.w;       // view depth
    if (!(z >= g.level_info.z && z <= g.eye.w)) return -1.0;
    vec3 p = g.eye.xyz + d * t;
    vec2 uv = f.axis == 0u ? p.xy : (f.axis == 1u ? p.yz : p.xz);
    // A small tolerance closes the seams between faces that share an edge.
    const float eps = 2e-3;
    if (uv.x < f.ext.x - eps || uv.x > f.ext.y + eps || uv.y < f.ext.z - eps || uv.y > f.ext.w + eps) return -1.0;
    return depth_from_view_z(z);
}


const int SCATTER_TILE = 8;

layout(set = 2, binding = 0, std430) buffer ScreenBuffer {
    uint screen[];
};
// 8 words per queued face: axis | material << 8, c, u0, u1, v0, v1, x0 | y0 << 16, x1 | y1 << 16
layout(set = 2, binding = 1, std430) buffer FaceQueue {
    uint jobs[];
};
// (groups x, y, z) of the indirect dispatch of scatter_tiles.comp, then the number of faces offered
layout(set = 2, binding = 2, std430) buffer QueueHeader {
    uint groups_x;
    uint groups_y;
    uint groups_z;
    uint offered;
    uint capacity;
} queue;

void splat_pixel(Face f, ivec2 px) {
    float depth = face_pixel_depth(f, px);
    if (depth > 0.0) atomicMin(screen[px.y * int(g.screen_right.w) + px.x], scatter_pack(depth, f.material));
}

void splat_rect(Face f, ivec4 r) {
    for (int y = r.y; y <= r.w; y++)
        for (int x = r.x; x <= r.z; x++) splat_pixel(f, ivec2(x, y));
}

void splat_face(Face f) {
    ivec4 r = face_pixel_rect(f);
    if (r.x > r.z || r.y > r.w) return;
    if (r.z - r.x < SCATTER_TILE && r.w - r.y < SCATTER_TILE) {
        splat_rect(f, r);
        return;
    }
    uint i = atomicAdd(queue.offered, 1u);
    if (i >= queue.capacity) { // queue full: correct, only slower
        splat_rect(f, r);
        return;
    }
    uint b = 8u * i;
    jobs[b + 0u] = f.axis | (f.material << 8);
    jobs[b + 1u] = floatBitsToUint(f.c);
    jobs[b + 2u] = floatBitsToUint(f.ext.x);
    jobs[b + 3u] = floatBitsToUint(f.ext.y);
    jobs[b + 4u] = floatBitsToUint(f.ext.z);
    jobs[b + 5u] = floatBitsToUint(f.ext.w);
    jobs[b + 6u] = uint(r.x) | (uint(r.y) << 16);
    jobs[b + 7u] = uint(r.z) | (uint(r.w) << 16);
    atomicAdd(queue.groups_x, 1u);
}
