// WGSL port of shaders/common/face_raster.glsl (the parts the hole-free `scatter` uses: the face, its pixel
// rectangle, the exact depth of a pixel's ray on it and the tile test): an axis-aligned rectangle of terrain
// surface and its exact rasterisation. Requires globals.wgsl and camera.wgsl.

// axis 0: the plane z = c with (u, v) = (x, y); axis 1: the plane x = c with (u, v) = (y, z); axis 2: the plane
// y = c with (u, v) = (x, z).
struct Face {
    axis: u32,
    c: f32,
    ext: vec4<f32>, // u0, u1, v0, v1
    material: u32,  // scatter's material byte
}

fn face_point(f: Face, u: f32, v: f32) -> vec3<f32> {
    if (f.axis == 0u) { return vec3<f32>(u, v, f.c); }
    if (f.axis == 1u) { return vec3<f32>(f.c, u, v); }
    return vec3<f32>(u, f.c, v);
}

// The coordinate the face's plane fixes (z, x or y) and its (u, v) coordinates of a point.
fn face_plane_axis(f: Face) -> i32 {
    return select(select(1, 0, f.axis == 1u), 2, f.axis == 0u);
}

fn face_uv(f: Face, p: vec3<f32>) -> vec2<f32> {
    if (f.axis == 0u) { return p.xy; }
    if (f.axis == 1u) { return p.yz; }
    return p.xz;
}

// Screen pixels whose centres the face's projection may cover: inclusive (x0, y0, x1, y1); empty when
// x0 > x1. The face is clipped to the near plane first, so faces that straddle it get a finite rectangle.
fn face_pixel_rect(f: Face) -> vec4<i32> {
    let n = g.level_info.z;
    let far = g.eye.w;
    let focal = g.forward.w;
    var view: array<vec3<f32>, 4>;
    for (var k = 0; k < 4; k++) {
        let q = face_point(f, select(f.ext.x, f.ext.y, (k & 1) != 0), select(f.ext.z, f.ext.w, (k & 2) != 0)) - g.eye.xyz;
        view[k] = vec3<f32>(dot(q, g.screen_right.xyz), dot(q, g.screen_up.xyz), dot(q, g.forward.xyz));
    }
    var lo = vec2<f32>(1e30);
    var hi = vec2<f32>(-1e30);
    var any_point = false;
    var near_far = true;
    var ring = array<i32, 4>(0, 1, 3, 2); // the corners in order around the rectangle
    for (var e = 0; e < 4; e++) {
        let a = view[ring[e]];
        let b = view[ring[(e + 1) & 3]];
        if (a.z <= far) { near_far = false; }
        if (a.z >= n) {
            let s = a.xy / a.z;
            lo = min(lo, s);
            hi = max(hi, s);
            any_point = true;
        }
        if ((a.z < n) != (b.z < n)) { // the edge crosses the near plane: its crossing is a vertex
            let c = mix(a, b, (n - a.z) / (b.z - a.z));
            let s = c.xy / n;
            lo = min(lo, s);
            hi = max(hi, s);
            any_point = true;
        }
    }
    if (!any_point || near_far) { return vec4<i32>(1, 1, 0, 0); }
    // screen position of a view point: (W/2 + focal·x/z, H/2 − focal·y/z)
    let half_size = 0.5 * vec2<f32>(g.screen_right.w, g.screen_up.w);
    let x0 = half_size.x + focal * lo.x;
    let x1 = half_size.x + focal * hi.x;
    let y0 = half_size.y - focal * hi.y;
    let y1 = half_size.y - focal * lo.y;
    let margin = 1e-3; // the per-pixel test decides exactly; the rectangle only has to contain it
    let r = vec4<i32>(vec4<f32>(ceil(x0 - 0.5 - margin), ceil(y0 - 0.5 - margin), floor(x1 - 0.5 + margin),
                                floor(y1 - 0.5 + margin)));
    return vec4<i32>(max(r.xy, vec2<i32>(0)), min(r.zw, vec2<i32>(vec2<f32>(g.screen_right.w, g.screen_up.w)) - 1));
}

// Where pixel px's centre ray meets the face: the reverse-Z depth, or −1 when it misses (or lies outside
// the near..far range the ray method uses). A point within eps of the face's edges counts, which closes the
// seams between faces that share an edge.
fn face_pixel_depth_eps(f: Face, px: vec2<i32>, eps: f32) -> f32 {
    let d = pixel_dir(vec2<f32>(px) + 0.5);
    let a = face_plane_axis(f);
    let da = d[a];
    if (abs(da) < 1e-20) { return -1.0; }
    let t = (f.c - g.eye[a]) / da; // along d, whose forward component is the focal length
    let z = t * g.forward.w;       // view depth
    if (!(z >= g.level_info.z && z <= g.eye.w)) { return -1.0; }
    let uv = face_uv(f, g.eye.xyz + d * t);
    if (uv.x < f.ext.x - eps || uv.x > f.ext.y + eps || uv.y < f.ext.z - eps || uv.y > f.ext.w + eps) { return -1.0; }
    return depth_from_view_z(z);
}

fn face_pixel_depth(f: Face, px: vec2<i32>) -> f32 { return face_pixel_depth_eps(f, px, 2e-3); }

// Whether the 8×8-pixel tile with top-left pixel o certainly holds no pixel whose centre ray meets the face
// (grown by eps): its four corner pixels' rays all meet the face's plane in front of the eye, and those four
// points lie beyond one edge of the face.
fn face_misses_tile(f: Face, o: vec2<i32>, eps: f32) -> bool {
    let a = face_plane_axis(f);
    var lo_u = true;
    var hi_u = true;
    var lo_v = true;
    var hi_v = true;
    for (var k = 0; k < 4; k++) {
        let d = pixel_dir(vec2<f32>(o + vec2<i32>((k & 1) * 7, (k >> 1u) * 7)) + 0.5);
        // the plane parallel to this corner's ray (the GLSL's infinite t) or behind it
        if (d[a] == 0.0) { return false; }
        let t = (f.c - g.eye[a]) / d[a];
        if (!(t > 0.0) || t > 3.4e38) { return false; }
        let uv = face_uv(f, g.eye.xyz + d * t);
        lo_u = lo_u && uv.x < f.ext.x - eps;
        hi_u = hi_u && uv.x > f.ext.y + eps;
        lo_v = lo_v && uv.y < f.ext.z - eps;
        hi_v = hi_v && uv.y > f.ext.w + eps;
    }
    return lo_u || hi_u || lo_v || hi_v;
}
