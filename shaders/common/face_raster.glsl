// An axis-aligned rectangle of terrain surface and its exact rasterisation: the pixels its projection may
// cover, and where a pixel's centre ray meets it. Shared by the forward compute methods that splat faces
// (scatter.glsl, paint_compute.comp). Requires globals.glsl and camera.glsl.

// An axis-aligned rectangle of terrain surface. axis 0: the plane z = c with (u, v) = (x, y); axis 1: the
// plane x = c with (u, v) = (y, z); axis 2: the plane y = c with (u, v) = (x, z).
struct Face {
    uint axis;
    float c;
    vec4 ext; // u0, u1, v0, v1
    uint material; // the splatting method's payload (scatter: its material byte; paint-compute: the face's id)
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
// the near..far range the ray method uses). Exact: the plane is intersected, not a point projected. A point
// within eps of the face's edges counts, which closes the seams between faces that share an edge.
float face_pixel_depth_eps(Face f, ivec2 px, float eps) {
    vec3 d = pixel_dir(vec2(px) + 0.5);
    int a = f.axis == 0u ? 2 : (f.axis == 1u ? 0 : 1);
    float da = d[a];
    if (abs(da) < 1e-20) return -1.0;
    float t = (f.c - g.eye[a]) / da; // along d, whose forward component is the focal length
    float z = t * g.forward.w;       // view depth
    if (!(z >= g.level_info.z && z <= g.eye.w)) return -1.0;
    vec3 p = g.eye.xyz + d * t;
    vec2 uv = f.axis == 0u ? p.xy : (f.axis == 1u ? p.yz : p.xz);
    if (uv.x < f.ext.x - eps || uv.x > f.ext.y + eps || uv.y < f.ext.z - eps || uv.y > f.ext.w + eps) return -1.0;
    return depth_from_view_z(z);
}

float face_pixel_depth(Face f, ivec2 px) { return face_pixel_depth_eps(f, px, 2e-3); }

// Whether the 8×8-pixel tile with top-left pixel o certainly holds no pixel whose centre ray meets the face
// (grown by eps): its four corner pixels' rays all meet the face's plane in front of the eye, and those four
// points — the corners of the convex preimage of the tile's pixel centres on the plane — lie beyond one edge of
// the face. A face's pixel rectangle is its bounding box on screen, far larger than the face when it is long and
// seen at a slant; this skips the tiles of the box the face does not reach.
bool face_misses_tile(Face f, ivec2 o, float eps) {
    int a = f.axis == 0u ? 2 : (f.axis == 1u ? 0 : 1);
    bvec4 lo_u = bvec4(true), hi_u = bvec4(true), lo_v = bvec4(true), hi_v = bvec4(true);
    for (int k = 0; k < 4; k++) {
        vec3 d = pixel_dir(vec2(o + ivec2((k & 1) * 7, (k >> 1) * 7)) + 0.5);
        float t = (f.c - g.eye[a]) / d[a];
        if (!(t > 0.0) || isinf(t)) return false; // the plane is behind, or parallel to, this corner's ray
        vec3 p = g.eye.xyz + d * t;
        vec2 uv = f.axis == 0u ? p.xy : (f.axis == 1u ? p.yz : p.xz);
        lo_u[k] = uv.x < f.ext.x - eps;
        hi_u[k] = uv.x > f.ext.y + eps;
        lo_v[k] = uv.y < f.ext.z - eps;
        hi_v[k] = uv.y > f.ext.w + eps;
    }
    return all(lo_u) || all(hi_u) || all(lo_v) || all(hi_v);
}

// Narrows the interval x of positions X to where c.x + c.y·X ≥ 0 (none: nowhere).
void face_row_condition(vec2 c, inout vec2 x, inout bool none) {
    if (c.y > 0.0) x.x = max(x.x, -c.x / c.y);
    else if (c.y < 0.0) x.y = min(x.y, -c.x / c.y);
    else if (c.x < 0.0) none = true;
}

// The pixels of row y whose centre rays may meet the face grown by `grow` on every side between the near and the
// far plane: inclusive (x0, x1), x0 > x1 when none. Along a row the ray is d(X) = d(0) + X·right (X the pixel
// position), and each condition of face_pixel_depth_eps — the plane ahead, the view depth within near..far, each
// of the four edges — is a linear inequality in X once multiplied by d(X)'s component across the plane, whose sign
// is fixed where the plane is ahead; so the row's pixels are an interval, widened by 1/16 pixel for rounding.
// Unlike face_pixel_rect's box it follows the face: a long face seen at a slant is drawn over its own pixels.
ivec2 face_row_span(Face f, int y, float grow) {
    int a = f.axis == 0u ? 2 : (f.axis == 1u ? 0 : 1);
    int iu = f.axis == 0u ? 0 : (f.axis == 1u ? 1 : 0), iv = f.axis == 0u ? 1 : 2;
    float k = f.c - g.eye[a];
    if (k == 0.0) return ivec2(1, 0); // the eye in the plane: the view depth is 0 everywhere
    float sk = sign(k);
    vec3 d0 = pixel_dir(vec2(0.0, float(y) + 0.5)), dr = g.screen_right.xyz;
    // the conditions c.x + c.y·X ≥ 0
    vec2 ahead = sk * vec2(d0[a], dr[a]), kf = vec2(abs(k) * g.forward.w, 0.0);
    float u0 = f.ext.x - grow - g.eye[iu], u1 = f.ext.y + grow - g.eye[iu];
    float v0 = f.ext.z - grow - g.eye[iv], v1 = f.ext.w + grow - g.eye[iv];
    vec2 du = abs(k) * vec2(d0[iu], dr[iu]), dv = abs(k) * vec2(d0[iv], dr[iv]);
    vec2 x = vec2(-1e30, 1e30);
    bool none = false;
    face_row_condition(ahead, x, none);
    face_row_condition(kf - 0.999 * g.level_info.z * ahead, x, none); // view depth ≥ near
    face_row_condition(1.001 * g.eye.w * ahead - kf, x, none);        // view depth ≤ far
    face_row_condition(du - u0 * ahead, x, none); // u ≥ u0: k·d_u / d_a ≥ u0, times |d_a|
    face_row_condition(u1 * ahead - du, x, none);
    face_row_condition(dv - v0 * ahead, x, none);
    face_row_condition(v1 * ahead - dv, x, none);
    float lo = x.x, hi = x.y;
    const float margin = 1.0 / 16.0;
    if (none || !(lo - margin <= hi + margin)) return ivec2(1, 0);
    lo = max(lo, -1e6);
    hi = min(hi, 1e6);
    return ivec2(ceil(lo - 0.5 - margin), floor(hi - 0.5 + margin));
}
