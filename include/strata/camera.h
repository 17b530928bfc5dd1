/* The one camera. Yaw 0 looks along +y and turns clockwise seen from above (yaw 90 = +x); pitch 0 is
 * the horizon, −90 straight down. The basis comes from the flat heading so −90 keeps its yaw. The world
 * is left-handed like the Vangers map (x right, y down the map image, z up), so screen x runs along
 * up × heading: a top-down image is the map turned, never mirrored. st_view_pixel_ray is the one definition
 * of a pixel's ray; shaders/common/camera.glsl mirrors it line for line (tested against each other). */
#ifndef STRATA_CAMERA_H
#define STRATA_CAMERA_H

#include "strata/core.h"

/* The paper's camera: focal length 512 px for its 1280×800 images, i.e. fovy = 2·atan(400/512). strata keeps
 * this field of view at every size (the focal scales with the rows), so a 320×200 run sees the same scene. */
#define ST_DEFAULT_FOVY_DEG 75.997465f
#define ST_DEFAULT_NEAR 1.0f
#define ST_DEFAULT_FAR 600.0f

/* The eye is origin + position. Levels (a few thousand units across) leave origin at 0 and move position;
 * tile stores, whose metres reach hundreds of kilometres, keep the eye in origin in double precision
 * (st_camera_set_eye) and position small, so nothing is lost to float rounding: a renderer of a store draws
 * everything relative to the eye (camera-relative rendering), the eye itself staying in double on the CPU. */
typedef struct st_camera {
    float position[3];
    float yaw_deg, pitch_deg;
    float fovy_deg; /* 0 = default */
    float near_dist, far_dist; /* 0 = defaults */
    double origin[3];          /* added to position; 0 = the world's origin */
} st_camera;

/* The eye in double precision: origin + position. */
void st_camera_eye(const st_camera *cam, double eye[3]);
/* Puts the eye at `eye` (double): origin = eye, position = 0. */
void st_camera_set_eye(st_camera *cam, const double eye[3]);

/* Everything a shader or the reference needs about the camera for one image size. */
typedef struct st_view {
    float eye[3];   /* the eye as float: (float)(origin + position); 0 in a camera-relative view */
    double origin[3]; /* the eye in double precision (st_camera_eye), for camera-relative drawing */
    float forward[3], screen_right[3], screen_up[3];
    float focal_px; /* (height/2) / tan(fovy/2) */
    float width, height;
    float near_dist, far_dist;
} st_view;

/* The view of cam for a width×height image: its basis, the focal length in pixels for its field of view (the
 * default one when 0) and the near and far distances (defaults for 0). */
st_view st_camera_view(const st_camera *cam, uint32_t width, uint32_t height);
/* The same view with the eye at 0 (origin kept): what a camera-relative renderer's shaders see, positions
 * being world − origin. */
st_view st_view_relative(const st_view *v);
/* Unnormalised direction through pixel position (px, py) (pixel centres at +0.5, y down). Its
 * component along forward is focal_px, so a point at view depth z is eye + dir·(z/focal_px). */
void st_view_pixel_dir(const st_view *v, float px, float py, float dir[3]);
/* Normalised ray of pixel (i, j) and the distances along it where the near and far planes cut it. */
void st_view_pixel_ray(const st_view *v, uint32_t i, uint32_t j, float dir[3], float *t_near, float *t_far);

/* Reverse-Z: depth 1 at the near plane, 0 at the far plane (cleared to 0 = far). */
float st_view_depth_from_z(const st_view *v, float view_z);
/* The inverse: the view depth (along forward) of a reverse-Z depth value. */
float st_view_z_from_depth(const st_view *v, float depth);
/* Distance along pixel (i, j)'s ray of a reverse-Z depth value; NAN for the cleared far depth. */
float st_view_distance_from_depth(const st_view *v, uint32_t i, uint32_t j, float depth);

/* Column-major view-projection (reverse-Z, Vulkan clip space, y down) for rasterising methods. */
void st_view_matrix(const st_view *v, float view_proj[16]);

/* The view frustum as six planes, a point p inside when a·p.x + b·p.y + c·p.z + d ≥ 0 for every plane
 * {a, b, c, d}: the four sides through the screen's edges, the near and the far plane. */
typedef struct st_frustum {
    float planes[6][4];
} st_frustum;
/* The frustum of v, from the near to the far plane (as st_view_matrix projects). */
st_frustum st_view_frustum(const st_view *v);
/* False when the box [lo, hi] lies wholly outside one of the planes: the culling test. Conservative: a box
 * near a corner of the frustum may pass without meeting it. */
bool st_frustum_meets_box(const st_frustum *f, const float lo[3], const float hi[3]);

/* The xy rectangle {x0, y0, x1, y1} that the view frustum (near to far plane) covers between the heights
 * z_lo and z_hi, unioned with the eye's xy: where rasterising methods must put ground geometry. Exact for
 * the frustum ∩ slab (the bounds of its vertices). Returns false when the frustum misses the slab (the
 * rectangle is then the eye's point). */
bool st_view_ground_bounds(const st_view *v, float z_lo, float z_hi, float bounds[4]);
#define ST_VIEW_SLAB_POINTS 32 /* 8 corners + 12 edges × 2 faces */
/* The vertices, seen from above (x, y), of the view frustum cut by the slab of heights [z_lo, z_hi]: its corners
 * inside the slab and where its 12 edges cross the slab's faces, so the footprint is their convex hull. Returns
 * how many (0: the frustum misses the slab). */
int st_view_slab_points(const st_view *v, float z_lo, float z_hi, float pts[ST_VIEW_SLAB_POINTS][2]);

/* The range st_camera_parse accepts: positions within a million texels (height units) of the origin, yaw
 * -360..360, pitch -90..90. Past that a float loses the precision a frame needs, or becomes infinite. */
#define ST_CAMERA_MAX_COORD 1e6
#define ST_CAMERA_MAX_YAW 360.0
/* Parses "x,y,z,yaw,pitch"; returns false on malformed text or on values outside the range above. */
bool st_camera_parse(const char *text, st_camera *cam);
/* Positions st_camera_parse_precise accepts: within 10⁸ m (a planet's circumference twice over) of the origin;
 * doubles keep them to a micrometre and their float eye stays finite. */
#define ST_CAMERA_MAX_METRES 1e8
/* The same with x, y, z kept in double precision in origin (position = 0): for tile stores; positions within
 * ST_CAMERA_MAX_METRES, yaw and pitch as above. */
bool st_camera_parse_precise(const char *text, st_camera *cam);

#endif
