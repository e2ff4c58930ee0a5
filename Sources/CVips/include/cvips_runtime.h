// libvips for Dossier's experiences (panoramas prepared at build time), loaded at run
// time with dlopen("libvips.so.42") on first use: a binary that prepares no panorama
// never loads libvips and its ~60 dependencies, and a machine without libvips gets a
// clear error only when a panorama needs preparing (docs/experience-format.md).
// These are Dossier's own declarations; libvips' headers are not used.
#ifndef DOSSIER_CVIPS_RUNTIME_H
#define DOSSIER_CVIPS_RUNTIME_H
#include <stddef.h>

/// Loads and starts libvips once per process (safe to call again, from any thread).
/// 0 on success; otherwise -1 and the reason in dossier_vips_error().
int dossier_vips_start(void);

/// Decodes `buf`, reports its size, and writes it as a JPEG (quality `quality`, metadata
/// stripped) no larger than max_width × max_height, keeping its proportions; an image
/// already inside the box is re-encoded at its own size. `*out` must be freed with
/// dossier_vips_free. 0 on success; on failure the message is in dossier_vips_error().
int dossier_vips_fit_jpeg(const void *buf, size_t len, int max_width, int max_height, int quality,
                          int *in_width, int *in_height, void **out, size_t *out_len);

void dossier_vips_free(void *p);
const char *dossier_vips_error(void);
#endif
