// See include/library_load.h.
#include "library_load.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int dossier_library_load(dossier_library *lib, int (*load)(dossier_library *lib), char *error, size_t error_len) {
    pthread_mutex_lock(&lib->lock);
    if (lib->state == 0) lib->state = load(lib) == 1 ? 1 : -1;
    int ok = lib->state == 1;
    if (!ok && error && error_len) snprintf(error, error_len, "%s", lib->error);
    pthread_mutex_unlock(&lib->lock);
    return ok ? 0 : -1;
}

void *dossier_library_open(dossier_library *lib, const char *env, const char *const names[], const char *what,
                           const char *tried, const char *hint) {
    const char *chosen = getenv(env);
    void *handle = NULL;
    if (chosen && *chosen) {
        handle = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
        if (!handle) snprintf(lib->error, sizeof lib->error, "%s not found: %s=%s cannot be loaded", what, env, chosen);
        return handle;
    }
    for (size_t i = 0; names[i] && !handle; i++) handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!handle) snprintf(lib->error, sizeof lib->error, "%s not found (%s); %s", what, tried, hint);
    return handle;
}
