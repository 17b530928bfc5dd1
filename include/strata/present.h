/* Presenting a renderer's frames to a window: the surface and swapchain, and one pass per frame that draws the
 * renderer's last frame over the whole window with an overlay (the viewer's HUD) on top. Part of the renderer
 * (src/render/present.c); the window system hands in the surface, the one place Vulkan types cross this API. */
#ifndef STRATA_PRESENT_H
#define STRATA_PRESENT_H

#include <vulkan/vulkan.h>

#include "strata/render.h"

typedef struct st_presenter st_presenter;

/* Creates the window's surface on the engine's instance (e.g. glfwCreateWindowSurface). */
typedef VkResult (*st_surface_fn)(VkInstance instance, void *user, VkSurfaceKHR *surface);

typedef struct st_presenter_desc {
    st_surface_fn create_surface;
    void *user;
    uint32_t width, height; /* the window's framebuffer in pixels */
    bool vsync;             /* FIFO; otherwise MAILBOX, else IMMEDIATE, else FIFO */
} st_presenter_desc;

/* The engine must be created with .present = true and the window system's instance extensions, and must
 * outlive the presenter. */
st_result st_presenter_create(st_engine *engine, const st_presenter_desc *desc, st_presenter **out, st_error *err);
void st_presenter_destroy(st_presenter *p);
/* Recreates the swapchain for a new framebuffer size or present mode (a zero size is refused). */
st_result st_presenter_resize(st_presenter *p, uint32_t width, uint32_t height, bool vsync, st_error *err);
/* Draws the renderer's last frame over the whole window with the overlay's triangles (overlay_count vertices,
 * three a triangle; NULL or 0 for none) on top and presents it. *stale is set when the swapchain no longer
 * matches the window: call st_presenter_resize. The renderer's colour target is left in the layout its method
 * leaves it in, so st_renderer_readback still works. */
st_result st_presenter_present(st_presenter *p, st_renderer *renderer, const st_overlay_vertex *overlay,
                               size_t overlay_count, bool *stale, st_error *err);
/* The swapchain's size in pixels: the size to draw the renderer's frames at. */
void st_presenter_size(const st_presenter *p, uint32_t *width, uint32_t *height);
/* "fifo", "mailbox" or "immediate". */
const char *st_presenter_mode(const st_presenter *p);
/* GPU time of the composite + overlay pass of the last completed present; NAN when unknown. */
double st_presenter_gpu_ms(const st_presenter *p);

#endif
