// The colour of a surface point: the one function every method's shading reaches (shade_lit for levels,
// dem_shade for tile stores), so a way of shading is added here once. In: the point, its normal, what lies
// there (Material) and the pixel's footprint on the surface; out: the albedo and the normal to light with.
// Requires globals.glsl.
#ifndef STRATA_MATERIALS_GLSL
#define STRATA_MATERIALS_GLSL

// What lies at a point: two materials of the material set and the overlay's share, and the flat colour the
// paper's shading gives the point (a level's type End colour, a DEM's hypsometric tint).
struct Material {
    uint base, overlay;
    float blend;      // overlay weight before height blending, 0..1
    vec3 flat_albedo; // linear
    bool tint;        // the base takes flat_albedo as its mean colour (a level's type colour)
};

// One pixel's extent on the surface: the change of the surface point per pixel step along screen x and y, and
// the plane it lies in (the geometric face: a column's top or side for the height-field methods, a triangle's
// plane for meshes), which chooses the texture projection.
struct Footprint {
    vec3 dx, dy;
    vec3 plane; // unit normal
};

struct SurfaceColor {
    vec3 albedo; // linear
    vec3 normal; // unit, for lighting
};

// The footprint of the pixel whose ray meets the surface at p (shader coordinates: a store's are relative to the
// eye, as g.eye is) on the plane of unit normal n: the ray differentials of the neighbouring pixels cut with
// that plane. Depends only on p, n and the camera, so image-order and object-order methods filter alike.
Footprint pixel_footprint(vec3 p, vec3 n) {
    vec3 v = p - g.eye.xyz;
    float s = dot(v, g.forward.xyz) / g.forward.w; // distance along forward per focal pixel
    float vn = dot(v, n);
    float lim = 0.05 * length(v); // grazing: the footprint stays finite (about 20 pixels' worth)
    vn = vn < 0.0 ? min(vn, -lim) : max(vn, lim);
    Footprint f;
    f.dx = s * (g.screen_right.xyz - v * (dot(g.screen_right.xyz, n) / vn));
    f.dy = s * (g.screen_up.xyz - v * (dot(g.screen_up.xyz, n) / vn));
    f.plane = n;
    return f;
}

// Flat shading: the material's flat colour, the normal as given.
SurfaceColor surface_color(vec3 p, vec3 n, Material m, Footprint fp) {
    return SurfaceColor(m.flat_albedo, n);
}

#endif
