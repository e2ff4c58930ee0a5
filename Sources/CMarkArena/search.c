// Byte search for the page passes (Markdown anchors, the table pass, the title split).
#define _GNU_SOURCE
#include <string.h>
#include "cmark_arena.h"

// After this many false starts (the first byte found, the rest not matching) the
// search hands the remaining text to glibc's memmem, whose cost does not depend on
// how often the first byte occurs.
#define FALSE_STARTS 16

const void *dossier_memmem(const void *haystack, size_t n, const void *needle, size_t m) {
    // glibc's memmem builds a 256-entry shift table on every call (about 700 instructions),
    // which is most of its cost when the match is a few dozen bytes away — the usual case
    // in the table pass (`</td>`, `<tr`) and the heading scan (`<h`). So: memchr to each
    // occurrence of the needle's first byte and compare the rest, for a bounded number of
    // false starts, then glibc's memmem for the rest. Same answer as memmem: the first
    // occurrence (`RenderTests.ByteSearchTests` compares the two).
    if (m == 0) return haystack;
    if (m > n) return NULL;
    const unsigned char *h = haystack, *nd = needle;
    const unsigned char *last = h + (n - m);   // the last place a match can start
    const unsigned char *p = h;
    for (int misses = 0; misses < FALSE_STARTS; misses++) {
        p = memchr(p, nd[0], (size_t)(last - p) + 1);
        if (!p) return NULL;
        if (memcmp(p + 1, nd + 1, m - 1) == 0) return p;
        if (p == last) return NULL;
        p++;
    }
    return memmem(p, (size_t)(h + n - p), needle, m);
}

const void *dossier_memmem_libc(const void *haystack, size_t n, const void *needle, size_t m) {
    return memmem(haystack, n, needle, m);
}
