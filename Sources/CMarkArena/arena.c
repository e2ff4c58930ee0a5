// A thread-local bump allocator for libcmark-gfm. See include/cmark_arena.h.
#include "cmark_arena.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct chunk {
    struct chunk *prev;
    size_t cap;     // usable bytes after the header
    size_t used;
    size_t mapped;  // bytes mapped with mmap (0: the chunk came from calloc); keeps the data 16-byte aligned
} chunk;

static void report_if_asked(void);

// Every allocation is preceded by one 8-byte header holding its size, so realloc
// knows how much to copy and can grow the newest allocation in place. cmark's
// structures need 8-byte alignment at most (as in cmark's own arena).
#define HEADER 8
#define ALIGN(n) (((n) + 7) & ~(size_t)7)
#define FIRST_CHUNK ((size_t)1 << 20)     // 1 MiB, kept between renders
#define KEEP_LIMIT ((size_t)4 << 20)      // a chunk larger than this is not kept

static _Thread_local chunk *top = NULL;
static _Thread_local size_t handed = 0;

static void out_of_memory(void) {
    fprintf(stderr, "dossier: out of memory while rendering Markdown\n");
    abort();
}

// Chunks of 2 MiB and more are mapped directly and populated in one call (MAP_POPULATE):
// a 20 MB document's tree fills about 600 MB of arena, and faulting that in 4 KiB at a
// time was about a quarter of the render's time.
#define HUGE ((size_t)2 << 20)

static chunk *map_chunk(size_t cap) {
    size_t total = (sizeof(chunk) + cap + 4095) & ~(size_t)4095;
    void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) return NULL;
    chunk *c = p;                       // anonymous memory is zero
    c->mapped = total;
    c->cap = total - sizeof(chunk);
    return c;
}

static chunk *new_chunk(size_t need, chunk *prev) {
    size_t cap = prev ? prev->cap * 2 : FIRST_CHUNK;
    if (cap > ((size_t)64 << 20)) cap = (size_t)64 << 20;
    if (cap < need) cap = need;
    chunk *c = cap >= HUGE ? map_chunk(cap) : NULL;
    if (!c) {
        // calloc: fresh chunks are zero.
        c = calloc(1, sizeof(chunk) + cap);
        if (!c) out_of_memory();
        c->cap = cap;
        c->mapped = 0;
    }
    c->prev = prev;
    c->used = 0;
    return c;
}

static void release_chunk(chunk *c) {
    if (c->mapped) munmap(c, c->mapped);
    else free(c);
}

static inline char *data_of(chunk *c) { return (char *)(c + 1); }

static void *bump(size_t size) {
    size_t need = HEADER + ALIGN(size ? size : 1);
    if (need < size) out_of_memory();
    if (!top || top->cap - top->used < need) top = new_chunk(need, top);
    char *p = data_of(top) + top->used;
    top->used += need;
    *(size_t *)p = size;
    handed += size;
    return p + HEADER;
}

// Invariant: the bytes of a chunk past `used` are zero (chunks are calloc'ed and the
// kept chunk is cleared at reset), so calloc needs no memset.
void *dossier_arena_calloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) out_of_memory();
    return bump(count * size);
}

void *dossier_arena_realloc(void *ptr, size_t size) {
    if (!ptr) return bump(size);
    size_t *hdr = (size_t *)((char *)ptr - HEADER);
    size_t old = *hdr;
    if (size <= old) { *hdr = size; return ptr; }
    // The newest allocation of the current chunk grows in place when there is room.
    char *end = data_of(top) + top->used;
    if ((char *)ptr + ALIGN(old ? old : 1) == end) {
        size_t grow = ALIGN(size) - ALIGN(old ? old : 1);
        if (top->cap - top->used >= grow) {
            top->used += grow;
            handed += size - old;
            *hdr = size;
            return ptr;
        }
    }
    void *p = bump(size);
    memcpy(p, ptr, old);
    return p;
}

void dossier_arena_free(void *ptr) { (void)ptr; }

void dossier_arena_reset(void) {
    report_if_asked();
    while (top && (top->prev || top->cap > KEEP_LIMIT)) {
        chunk *prev = top->prev;
        release_chunk(top);
        top = prev;
    }
    if (top) {
        memset(data_of(top), 0, top->used);
        top->used = 0;
    }
    handed = 0;
}

size_t dossier_arena_used(void) { return handed; }

static void report_if_asked(void) {
    if (!getenv("DOSSIER_ARENA_DEBUG")) return;
    size_t caps = 0, used = 0; int n = 0;
    for (chunk *c = top; c; c = c->prev) { caps += c->cap; used += c->used; n++; }
    fprintf(stderr, "arena: %d chunks, %zu MB reserved, %zu MB used, %zu MB handed\n", n, caps >> 20, used >> 20, handed >> 20);
}
