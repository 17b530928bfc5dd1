// The one camera: the GLSL twin of st_view_pixel_dir and the reverse-Z depth (src/core/camera.c).
// Requires globals.glsl.

// Unnormalised direction through pixel position px (pixel centres at +0.5, y down); its component
// along forward is the focal length.
vec3 pixel_dir(vec2 px) {
    vec2 s = vec2(px.x - 0.5 * g.screen_right.w, 0.5 * g.screen_up.w - px.y);
    return g.forward.w * g.forward.xyz + s.x * g.screen_right.xyz + s.y * g.screen_up.xyz;
}

// Reverse-Z: 1 at the near plane, 0 at the far plane.
float depth_from_view_z(float z) {
    float n = g.level_info.z, f = g.eye.w;
    return n * (f - z) / (z * (f - n));
}
