#ifndef DOSSIER_CMARK_ARENA_H
#define DOSSIER_CMARK_ARENA_H
#include <stddef.h>

/// A per-thread bump allocator for libcmark-gfm (the three functions of a `cmark_mem`).
/// One Markdown render allocates every node, buffer and its HTML result from the
/// calling thread's arena, frees nothing one by one, and ends with
/// `dossier_arena_reset()`, which releases everything at once. Different threads never
/// share an arena, so pages can render on every core.
void *dossier_arena_calloc(size_t count, size_t size);
void *dossier_arena_realloc(void *ptr, size_t size);
void dossier_arena_free(void *ptr);

/// Releases every allocation of this thread's arena (keeps one small chunk for reuse).
void dossier_arena_reset(void);

/// Bytes handed out by this thread's arena since its last reset (for tests).
size_t dossier_arena_used(void);

/// Chunks this thread took ready-made from the background preparation (large
/// documents: see arena.c), since the thread started (for tests).
size_t dossier_arena_spares_taken(void);

/// memmem(3): the first occurrence of `needle` in `haystack`, or NULL. Looks for the
/// first two bytes with dossier_find_pair before handing over to glibc's memmem (see search.c).
const void *dossier_memmem(const void *haystack, size_t n, const void *needle, size_t m);

/// The first place in `haystack` (n bytes) holding byte `a` followed by byte `b`, or NULL:
/// 16 places tested at once (see search.c).
const void *dossier_find_pair(const void *haystack, size_t n, unsigned char a, unsigned char b);

/// dossier_find_pair one place after the other: its plain twin, for its tests.
const void *dossier_find_pair_plain(const void *haystack, size_t n, unsigned char a, unsigned char b);

/// glibc's memmem(3) itself: the plain twin of dossier_memmem, for its tests.
const void *dossier_memmem_libc(const void *haystack, size_t n, const void *needle, size_t m);

/// Whether UTF-8 `haystack` (n bytes) holds a control character display text may not
/// keep: a C0 control other than TAB, LF and CR, DEL, or a C1 control (0xC2 then
/// 0x80…0x9F); 32 bytes tested at a step (see search.c). Its plain twin is Escaping's
/// `ControlCharacters.hasDisplayControl`, compared in RenderTests.
int dossier_has_display_control(const void *haystack, size_t n);

/// The first `=` at offset 1 or later of `haystack` (n bytes) whose byte before is `f`
/// or `c` (the end of ` href` and ` src`), or NULL: 16 places tested at once (search.c).
const void *dossier_find_link_equals(const void *haystack, size_t n);

/// dossier_find_link_equals one place after the other: its plain twin, for its tests.
const void *dossier_find_link_equals_plain(const void *haystack, size_t n);

/// The offset of the first byte at 0x80 or above in `haystack` (n bytes) at `from` or
/// after, or n: 32 bytes tested at a step (search.c). TitleSplit skips a page's ASCII
/// with it.
size_t dossier_next_non_ascii(const void *haystack, size_t n, size_t from);

/// dossier_next_non_ascii one byte after the other: its plain twin, for its tests.
size_t dossier_next_non_ascii_plain(const void *haystack, size_t n, size_t from);

/// snprintf(out, size, "%.10g", value): the digits of JSONValue.formatNumber's general
/// path (Sources/CMarkArena/number.c). A plain C call: Swift reaches printf only through
/// `withVaList`, which built and cast an argument list for every number.
int dossier_format_g10(double value, char *out, size_t size);

#endif
