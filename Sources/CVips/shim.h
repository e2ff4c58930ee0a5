// libvips for Dossier's experiences (panoramas prepared at build time).
// libvips' calls take named options as C varargs, which Swift cannot call, so each use
// is wrapped here in a plain inline function. Each returns 0 on success; on failure the
// message is in dossier_vips_error() (cleared by the next call).
#ifndef DOSSIER_CVIPS_SHIM_H
#define DOSSIER_CVIPS_SHIM_H
#include <vips/vips.h>

/// Starts libvips once per process (safe to call again). 0 on success.
static inline int dossier_vips_start(void) {
    static int started = 0;
    if (started) return 0;
    if (vips_init("dossier")) return -1;
    vips_concurrency_set(1);
    started = 1;
    return 0;
}

/// Decodes `buf`, reports its size, and writes it as a JPEG (quality `quality`, metadata
/// stripped) no larger than max_width × max_height, keeping its proportions; an image
/// already inside the box is re-encoded at its own size. `*out` must be freed with
/// dossier_vips_free.
static inline int dossier_vips_fit_jpeg(const void *buf, size_t len, int max_width, int max_height, int quality,
                                        int *in_width, int *in_height, void **out, size_t *out_len) {
    vips_error_clear();
    VipsImage *src = vips_image_new_from_buffer(buf, len, "", NULL);
    if (!src) return -1;
    *in_width = vips_image_get_width(src);
    *in_height = vips_image_get_height(src);
    g_object_unref(src);
    VipsImage *img = NULL;
    if (vips_thumbnail_buffer((void *)buf, len, &img, max_width, "height", max_height, "size", VIPS_SIZE_DOWN, NULL)) return -1;
    VipsImage *flat = NULL;
    int r = 0;
    if (vips_image_hasalpha(img)) {
        r = vips_flatten(img, &flat, NULL);
        g_object_unref(img);
        if (r) return -1;
        img = flat;
    }
    r = vips_jpegsave_buffer(img, out, out_len, "Q", quality, "strip", TRUE, NULL);
    g_object_unref(img);
    return r;
}

static inline void dossier_vips_free(void *p) { g_free(p); }
static inline const char *dossier_vips_error(void) { return vips_error_buffer(); }
#endif
