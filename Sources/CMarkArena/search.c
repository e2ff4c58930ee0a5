// Byte search for the page passes (Markdown anchors, the table pass, the title split).
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include "cmark_arena.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

// The control-character rule of every finished page (Escaping's ControlCharacters:
// a C0 control other than TAB, LF and CR, DEL, or a C1 control — 0xC2 followed by
// 0x80…0x9F). 32 bytes are tested at a step for a byte below 0x20 that is not a layout
// byte, a DEL or a 0xC2; only a block holding one is looked at byte by byte.
static int is_display_control(const unsigned char *h, size_t i) {
    unsigned char b = h[i];
    if (b < 0x20) return b != 0x09 && b != 0x0A && b != 0x0D;
    if (b == 0x7F) return 1;
    return i > 0 && h[i - 1] == 0xC2 && b >= 0x80 && b <= 0x9F;
}

int dossier_has_display_control(const void *haystack, size_t n) {
    const unsigned char *h = haystack;
    size_t i = 0;
#ifdef __SSE2__
    // 32 bytes a step: a byte at most 0x1F (its minimum with 0x1F is itself) that is not
    // TAB, LF or CR, a DEL or a 0xC2, in either half; one movemask for both.
    const __m128i top = _mm_set1_epi8(0x1F), tab = _mm_set1_epi8(0x09), lf = _mm_set1_epi8(0x0A),
                  cr = _mm_set1_epi8(0x0D), del = _mm_set1_epi8(0x7F), c2 = _mm_set1_epi8((char)0xC2);
#define DISPLAY_HITS(x)                                                                                  \
    _mm_or_si128(_mm_andnot_si128(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, tab), _mm_cmpeq_epi8(x, lf)), \
                                               _mm_cmpeq_epi8(x, cr)),                                   \
                                  _mm_cmpeq_epi8(_mm_min_epu8(x, top), x)),                              \
                 _mm_or_si128(_mm_cmpeq_epi8(x, del), _mm_cmpeq_epi8(x, c2)))
    for (; n - i >= 32; i += 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(h + i)), b = _mm_loadu_si128((const __m128i *)(h + i + 16));
        if (!_mm_movemask_epi8(_mm_or_si128(DISPLAY_HITS(a), DISPLAY_HITS(b)))) continue;
        // A C2 as the step's last byte makes the next byte (in the next step) count.
        size_t stop = i + 33 <= n ? i + 33 : n;
        for (size_t k = i; k < stop; k++)
            if (is_display_control(h, k)) return 1;
    }
#undef DISPLAY_HITS
#endif
    for (; i < n; i++)
        if (is_display_control(h, i)) return 1;
    return 0;
}

size_t dossier_next_non_ascii(const void *haystack, size_t n, size_t from) {
    const unsigned char *h = haystack;
    size_t i = from;
#ifdef __SSE2__
    // 32 bytes a step: the top bit of every byte of both halves in one movemask.
    for (; i < n && n - i >= 32; i += 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(h + i)), b = _mm_loadu_si128((const __m128i *)(h + i + 16));
        unsigned hit = (unsigned)_mm_movemask_epi8(a) | ((unsigned)_mm_movemask_epi8(b) << 16);
        if (hit) return i + (size_t)__builtin_ctz(hit);
    }
#endif
    for (; i < n; i++)
        if (h[i] >= 0x80) return i;
    return n;
}

size_t dossier_next_non_ascii_plain(const void *haystack, size_t n, size_t from) {
    const unsigned char *h = haystack;
    for (size_t i = from; i < n; i++)
        if (h[i] >= 0x80) return i;
    return n;
}

const void *dossier_find_link_equals(const void *haystack, size_t n) {
    // The link scan of every finished page (LinkChecker.links) looks at each `=` whose
    // byte before is `f` or `c` (` href=`, ` src=`); a page has a hundred other `=`
    // (class, id, align), which a memchr each went to one by one.
    const unsigned char *h = haystack;
    size_t p = 1;
#ifdef __SSE2__
    const __m128i eq = _mm_set1_epi8('='), f = _mm_set1_epi8('f'), c = _mm_set1_epi8('c');
    for (; n >= 16 && p <= n - 16; p += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(h + p)), y = _mm_loadu_si128((const __m128i *)(h + p - 1));
        int hit = _mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(x, eq), _mm_or_si128(_mm_cmpeq_epi8(y, f), _mm_cmpeq_epi8(y, c))));
        if (hit) return h + p + __builtin_ctz((unsigned)hit);
    }
#endif
    for (; p < n; p++)
        if (h[p] == '=' && (h[p - 1] == 'f' || h[p - 1] == 'c')) return h + p;
    return NULL;
}

const void *dossier_find_link_equals_plain(const void *haystack, size_t n) {
    const unsigned char *h = haystack;
    for (size_t p = 1; p < n; p++)
        if (h[p] == '=' && (h[p - 1] == 'f' || h[p - 1] == 'c')) return h + p;
    return NULL;
}
