// Byte search for the page passes (Markdown anchors, the table pass, the title split).
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include "cmark_arena.h"

// After this many false starts (the first two bytes found, the rest not matching) the
// search hands the remaining text to glibc's memmem, whose cost does not depend on
// how often the first bytes occur.
#define FALSE_STARTS 16

#if defined(__clang__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef unsigned char bytes16 __attribute__((vector_size(16)));
#define PAIR_VECTORS 1
#endif

const void *dossier_find_pair(const void *haystack, size_t n, unsigned char a, unsigned char b) {
    // In HTML the first byte of most needles (`<`) comes every few bytes, so going from
    // one `<` to the next with memchr made a call per tag. Here 16 places are tested at
    // once for both bytes (the bytes at p and at p + 1, compared as vectors), and only a
    // place holding both stops the search.
    const unsigned char *p = haystack, *end = p + n;
#ifdef PAIR_VECTORS
    bytes16 va, vb;
    memset(&va, a, 16);
    memset(&vb, b, 16);
    while (end - p >= 17) {
        bytes16 x, y;
        memcpy(&x, p, 16);
        memcpy(&y, p + 1, 16);
        bytes16 hit = (bytes16)((x == va) & (y == vb));
        uint64_t lo, hi;
        memcpy(&lo, &hit, 8);
        memcpy(&hi, (const char *)&hit + 8, 8);
        if (lo) return p + (__builtin_ctzll(lo) >> 3);
        if (hi) return p + 8 + (__builtin_ctzll(hi) >> 3);
        p += 16;
    }
#endif
    for (; end - p >= 2; p++)
        if (p[0] == a && p[1] == b) return p;
    return NULL;
}

const void *dossier_find_pair_plain(const void *haystack, size_t n, unsigned char a, unsigned char b) {
    const unsigned char *h = haystack;
    for (size_t i = 0; i + 1 < n; i++)
        if (h[i] == a && h[i + 1] == b) return h + i;
    return NULL;
}

const void *dossier_memmem(const void *haystack, size_t n, const void *needle, size_t m) {
    // glibc's memmem builds a 256-entry shift table on every call (about 700 instructions),
    // which is most of its cost when the match is a few dozen bytes away — the usual case
    // in the table pass (`</td>`, `<tr`) and the heading scan (`<h`). So: go to each place
    // holding the needle's first two bytes (dossier_find_pair) and compare the rest, for a
    // bounded number of false starts, then glibc's memmem for the rest. Same answer as
    // memmem: the first occurrence (`RenderTests.ByteSearchTests` compares the two).
    if (m == 0) return haystack;
    if (m > n) return NULL;
    const unsigned char *h = haystack, *nd = needle;
    if (m == 1) return memchr(h, nd[0], n);
    const unsigned char *end = h + n;
    const unsigned char *p = h;
    for (int misses = 0; misses < FALSE_STARTS; misses++) {
        p = dossier_find_pair(p, (size_t)(end - p), nd[0], nd[1]);
        if (!p || (size_t)(end - p) < m) return NULL;
        if (memcmp(p + 2, nd + 2, m - 2) == 0) return p;
        p++;
    }
    return memmem(p, (size_t)(end - p), needle, m);
}

const void *dossier_memmem_libc(const void *haystack, size_t n, const void *needle, size_t m) {
    return memmem(haystack, n, needle, m);
}
