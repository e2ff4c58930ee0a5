// See include/cvips_runtime.h. libvips' calls take named options as C varargs ending in
// NULL; they are called here with exactly the C types libvips reads (int for gint,
// gboolean and the VipsSize enum).
#include "cvips_runtime.h"
#include "library_load.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { SIZE_DOWN = 2 };   // VipsSize: BOTH 0, UP 1, DOWN 2, FORCE 3

typedef int (*init_fn)(const char *);
typedef void (*concurrency_set_fn)(int);
typedef void (*error_clear_fn)(void);
typedef const char *(*error_buffer_fn)(void);
typedef void *(*new_from_buffer_fn)(const void *, size_t, const char *, ...);
typedef int (*get_int_fn)(const void *);
typedef void (*unref_fn)(void *);
typedef int (*thumbnail_buffer_fn)(void *, size_t, void **, int, ...);
typedef int (*hasalpha_fn)(void *);
typedef int (*flatten_fn)(void *, void **, ...);
typedef int (*jpegsave_buffer_fn)(void *, void **, size_t *, ...);
typedef void (*free_fn)(void *);

static struct {
    init_fn init;
    concurrency_set_fn concurrency_set;
    error_clear_fn error_clear;
    error_buffer_fn error_buffer;
    new_from_buffer_fn new_from_buffer;
    get_int_fn get_width, get_height;
    unref_fn object_unref;
    thumbnail_buffer_fn thumbnail_buffer;
    hasalpha_fn hasalpha;
    flatten_fn flatten;
    jpegsave_buffer_fn jpegsave_buffer;
    free_fn gfree;
} vips;

// The loader opens as ccurl_runtime.c's does (`duplicates` pairs them): what the loaders
// share is CLibraryLoad; the names, symbols and messages are each library's own.
static dossier_library vips_library = DOSSIER_LIBRARY_INIT;

static int start_vips(dossier_library *l) {
    // DOSSIER_LIBVIPS names the one library file to load instead.
    const char *names[] = {"libvips.so.42", "libvips.42.dylib", NULL};
    void *lib = dossier_library_open(l, "DOSSIER_LIBVIPS", names, "libvips", "libvips.so.42",
                                     "install it (Debian/Ubuntu: apt install libvips42) to prepare panoramas");
    if (!lib) return -1;
    int state = 1;
    // dlsym on libvips' handle also finds g_object_unref and g_free in the GObject and
    // GLib libraries libvips itself depends on.
#define SYM(field, name) vips.field = (__typeof__(vips.field))dlsym(lib, name); if (!vips.field && state == 1) { snprintf(l->error, sizeof l->error, "libvips has no %s (too old?)", name); state = -1; }
    SYM(init, "vips_init")
    SYM(concurrency_set, "vips_concurrency_set")
    SYM(error_clear, "vips_error_clear")
    SYM(error_buffer, "vips_error_buffer")
    SYM(new_from_buffer, "vips_image_new_from_buffer")
    SYM(get_width, "vips_image_get_width")
    SYM(get_height, "vips_image_get_height")
    SYM(object_unref, "g_object_unref")
    SYM(thumbnail_buffer, "vips_thumbnail_buffer")
    SYM(hasalpha, "vips_image_hasalpha")
    SYM(flatten, "vips_flatten")
    SYM(jpegsave_buffer, "vips_jpegsave_buffer")
    SYM(gfree, "g_free")
#undef SYM
    if (state == 1) {
        if (vips.init("dossier")) {
            snprintf(l->error, sizeof l->error, "libvips could not start: %s", vips.error_buffer());
            state = -1;
        } else {
            vips.concurrency_set(1);
        }
    }
    return state;
}

int dossier_vips_start(void) { return dossier_library_load(&vips_library, start_vips, NULL, 0); }

int dossier_vips_fit_jpeg(const void *buf, size_t len, int max_width, int max_height, int quality,
                          int *in_width, int *in_height, void **out, size_t *out_len) {
    if (dossier_vips_start()) return -1;
    vips.error_clear();
    void *src = vips.new_from_buffer(buf, len, "", (char *)NULL);
    if (!src) return -1;
    *in_width = vips.get_width(src);
    *in_height = vips.get_height(src);
    vips.object_unref(src);
    void *img = NULL;
    if (vips.thumbnail_buffer((void *)buf, len, &img, max_width, "height", max_height, "size", (int)SIZE_DOWN, (char *)NULL)) return -1;
    int r = 0;
    if (vips.hasalpha(img)) {
        void *flat = NULL;
        r = vips.flatten(img, &flat, (char *)NULL);
        vips.object_unref(img);
        if (r) return -1;
        img = flat;
    }
    r = vips.jpegsave_buffer(img, out, out_len, "Q", quality, "strip", 1, (char *)NULL);
    vips.object_unref(img);
    return r;
}

void dossier_vips_free(void *p) { if (p && vips.gfree) vips.gfree(p); }

const char *dossier_vips_error(void) {
    if (vips_library.state == -1) return vips_library.error;
    return vips_library.state == 1 ? vips.error_buffer() : "";
}
