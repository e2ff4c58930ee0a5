#include <stdio.h>
#include "cmark_arena.h"

int dossier_format_g10(double value, char *out, size_t size) {
    return snprintf(out, size, "%.10g", value);
}
