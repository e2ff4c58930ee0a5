// glibc's memmem (a GNU extension the Swift Glibc module does not show).
#define _GNU_SOURCE
#include <string.h>
#include "cmark_arena.h"

const void *dossier_memmem(const void *haystack, size_t n, const void *needle, size_t m) {
    return memmem(haystack, n, needle, m);
}
