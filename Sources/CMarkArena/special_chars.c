// libcmark-gfm 0.29.0.gfm.6 keeps the "special inline characters" of syntax extensions
// (`~` for strikethrough, `:`/`w` for autolinks, …) in one process-wide table. Every
// parse adds its extensions' characters when inline parsing starts and *removes* them
// when it ends, through the exported cmark_manage_extensions_special_characters().
// With pages rendering on every core, one thread's removal lands in the middle of
// another thread's inline parsing, which then renders `~~x~~` literally (seen in
// Tests/RenderTests: MarkdownArenaTests).
//
// Dossier attaches the same extensions to every parser, so the characters can simply
// stay special: this definition interposes on the library's (the library calls it
// through its PLT, and the linker exports an executable's definition of a symbol a
// linked shared library refers to) and forwards only the "add" calls to the real one.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*manage_fn)(void *parser, int add);
static manage_fn real_manage;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find_real(void) {
    real_manage = (manage_fn)dlsym(RTLD_NEXT, "cmark_manage_extensions_special_characters");
    if (!real_manage) {
        fprintf(stderr, "dossier: cannot find cmark_manage_extensions_special_characters in libcmark-gfm\n");
        abort();
    }
}

void cmark_manage_extensions_special_characters(void *parser, int add) {
    if (!add) return;
    pthread_once(&once, find_real);
    real_manage(parser, add);
}
