// WGSL port of the packed screen word of shaders/common/scatter.glsl: (24-bit depth key << 8) | 8-bit material,
// the key 0xFFFFFF − round(depth·0xFFFFFF) of the reverse-Z depth, so atomicMin keeps the nearest sample and
// the cleared 0xFFFFFFFF reads as a miss. (The face queue of the hole-free `scatter` is scatter_queue.wgsl.)
const SCATTER_CLEAR: u32 = 0xFFFFFFFFu;
const SCATTER_KEY_MISS: u32 = 0xFFFFFFu;
const SCATTER_FACE_TOP: u32 = 0u;
const SCATTER_FACE_BOTTOM: u32 = 1u;
const SCATTER_FACE_XNEG: u32 = 2u;
const SCATTER_FACE_XPOS: u32 = 3u;
const SCATTER_FACE_YNEG: u32 = 4u;
const SCATTER_FACE_YPOS: u32 = 5u;

fn scatter_material(kind: u32, upper: bool, face: u32) -> u32 {
    return (kind & 15u) | select(0u, 16u, upper) | (face << 5u);
}

fn scatter_pack(depth: f32, material: u32) -> u32 {
    let q = u32(clamp(depth, 0.0, 1.0) * 16777215.0 + 0.5);
    return ((SCATTER_KEY_MISS - min(q, SCATTER_KEY_MISS)) << 8u) | (material & 255u);
}

fn scatter_unpack_depth(word: u32) -> f32 {
    return f32(SCATTER_KEY_MISS - (word >> 8u)) / 16777215.0;
}
