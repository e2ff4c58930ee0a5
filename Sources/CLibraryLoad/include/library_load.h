// Loading a shared library at run time (dlopen), once per process: what the three
// loaders of Dossier's optional libraries share (libcurl in CCurlRuntime, libvips in
// CVips, libpq in CPostgresRuntime). Each keeps its own functions and messages.
#ifndef DOSSIER_LIBRARY_LOAD_H
#define DOSSIER_LIBRARY_LOAD_H
#include <pthread.h>
#include <stddef.h>

/// One library's loading: tried by the first call that needs it, under `lock`; every
/// later call gets the same answer.
typedef struct {
    pthread_mutex_t lock;
    int state;          // 0 not tried, 1 loaded, -1 failed
    char error[512];    // why it failed (NUL-terminated)
} dossier_library;

#define DOSSIER_LIBRARY_INIT { PTHREAD_MUTEX_INITIALIZER, 0, "" }

/// Runs `load` the first time: it opens the library, fills its functions and returns 1,
/// or writes `lib->error` and returns -1. Returns 0 once loaded, else -1 with the message
/// copied into `error` (when `error` is not NULL).
int dossier_library_load(dossier_library *lib, int (*load)(dossier_library *lib), char *error, size_t error_len);

/// The handle of the file named by the environment variable `env` when it is set and not
/// empty, else of the first of `names` (NULL-terminated) that opens. NULL when none does,
/// with `lib->error` set to "<what> not found: <env>=<file> cannot be loaded", or to
/// "<what> not found (<tried>); <hint>".
void *dossier_library_open(dossier_library *lib, const char *env, const char *const names[], const char *what,
                           const char *tried, const char *hint);

#endif
