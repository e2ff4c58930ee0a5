// A thread-local bump allocator for libcmark-gfm. See include/cmark_arena.h.
#include "cmark_arena.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
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

// Populating is the kernel zeroing every page (about a sixth of a large render), and it
// does not depend on the document. So when a large chunk is taken, the next one (twice
// its size) is mapped and populated on another thread while the parser fills this one:
// on a machine with a free core the zeroing leaves the render's critical path. The
// spare is this thread's alone; pthread_join is the only hand-over (no shared state).
typedef struct {
    pthread_t thread;
    size_t cap;
    chunk *result;
    int running;
} spare_chunk;

static _Thread_local spare_chunk spare = {0};
static _Thread_local size_t spares_taken = 0;

#define MAX_CHUNK ((size_t)64 << 20)
#define PREPARE_FROM ((size_t)8 << 20)

static void *map_spare(void *arg) {
    spare_chunk *s = arg;
    s->result = map_chunk(s->cap);
    return NULL;
}

static void prepare_spare(size_t cap) {
    if (spare.running) return;
    spare.cap = cap;
    spare.result = NULL;
    spare.running = pthread_create(&spare.thread, NULL, map_spare, &spare) == 0;
}

// The prepared chunk, if it is at least `need` bytes; else NULL (and it is unmapped).
static chunk *take_spare(size_t need) {
    if (!spare.running) return NULL;
    pthread_join(spare.thread, NULL);
    spare.running = 0;
    chunk *c = spare.result;
    spare.result = NULL;
    if (c && c->cap < need) { munmap(c, c->mapped); c = NULL; }
    if (c && need) spares_taken++;
    return c;
}

static chunk *new_chunk(size_t need, chunk *prev) {
    size_t cap = prev ? prev->cap * 2 : FIRST_CHUNK;
    if (cap > MAX_CHUNK) cap = MAX_CHUNK;
    if (cap < need) cap = need;
    chunk *c = NULL;
    if (cap >= HUGE) {
        c = take_spare(need);
        if (!c) c = map_chunk(cap);
        // Only documents already past 8 MiB of arena (a few hundred KB of Markdown) get
        // a spare: a page that stops at 2 or 4 MiB would have it zeroed for nothing.
        if (c && c->cap >= PREPARE_FROM) prepare_spare(c->cap * 2 > MAX_CHUNK ? MAX_CHUNK : c->cap * 2);
    }
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
// kept chunk is cleared at reset), so calloc needs no memset. (Clearing in calloc instead,
// only what it hands out below the mark of the last render, takes far fewer instructions
// under valgrind, which counts `rep stosb` per byte, but more time on the CPU: some 440
// small memsets a page against one of about 55 KB; docs/perf-pages.md.)
// The product is checked for overflow without a division.
void *dossier_arena_calloc(size_t count, size_t size) {
    size_t n;
    if (__builtin_mul_overflow(count, size, &n)) out_of_memory();
    return bump(n);
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
    chunk *unused = take_spare(0);
    if (unused) munmap(unused, unused->mapped);
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

size_t dossier_arena_spares_taken(void) { return spares_taken; }

static _Thread_local int asked = -1;   // DOSSIER_ARENA_DEBUG, read once per thread

static void report_if_asked(void) {
    if (asked < 0) asked = getenv("DOSSIER_ARENA_DEBUG") != NULL;
    if (!asked) return;
    size_t caps = 0, used = 0; int n = 0;
    for (chunk *c = top; c; c = c->prev) { caps += c->cap; used += c->used; n++; }
    fprintf(stderr, "arena: %d chunks, %zu MB reserved, %zu MB used, %zu MB handed%s\n", n, caps >> 20, used >> 20, handed >> 20,
            spare.running ? ", a spare chunk being prepared" : "");
}
