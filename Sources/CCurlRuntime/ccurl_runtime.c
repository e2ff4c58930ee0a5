// See include/ccurl_runtime.h. Option and info numbers are libcurl's documented,
// stable ABI values (CURLOPTTYPE_LONG 0, OBJECTPOINT 10000, FUNCTIONPOINT 20000,
// OFF_T 30000 plus the option's number; CURLINFO_LONG 0x200000 plus the info's number).
#include "ccurl_runtime.h"
#include "library_load.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

enum {
    OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_READDATA = 10009, OPT_ERRORBUFFER = 10010,
    OPT_WRITEFUNCTION = 20011, OPT_READFUNCTION = 20012, OPT_TIMEOUT = 13,
    OPT_LOW_SPEED_LIMIT = 19, OPT_LOW_SPEED_TIME = 20, OPT_HTTPHEADER = 10023,
    OPT_HEADERDATA = 10029, OPT_CUSTOMREQUEST = 10036, OPT_NOBODY = 44, OPT_UPLOAD = 46,
    OPT_FOLLOWLOCATION = 52, OPT_CAINFO = 10065, OPT_MAXREDIRS = 68, OPT_CONNECTTIMEOUT = 78,
    OPT_HEADERFUNCTION = 20079, OPT_NOSIGNAL = 99, OPT_INFILESIZE_LARGE = 30115,
    OPT_SEEKFUNCTION = 20167, OPT_SEEKDATA = 10168, OPT_REDIR_PROTOCOLS = 182,
    OPT_REDIR_PROTOCOLS_STR = 10319, OPT_USERAGENT = 10018, OPT_CAPATH = 10097,
    INFO_RESPONSE_CODE = 0x200002,
    GLOBAL_ALL = 3,
    PROTO_HTTP = 1, PROTO_HTTPS = 2,
};

typedef int (*global_init_fn)(long);
typedef void *(*easy_init_fn)(void);
typedef void (*easy_cleanup_fn)(void *);
typedef void (*easy_reset_fn)(void *);
typedef int (*easy_setopt_fn)(void *, int, ...);
typedef int (*easy_getinfo_fn)(void *, int, ...);
typedef int (*easy_perform_fn)(void *);
typedef const char *(*easy_strerror_fn)(int);
typedef void *(*slist_append_fn)(void *, const char *);
typedef void (*slist_free_all_fn)(void *);

static struct {
    global_init_fn global_init;
    easy_init_fn easy_init;
    easy_cleanup_fn easy_cleanup;
    easy_reset_fn easy_reset;
    easy_setopt_fn easy_setopt;
    easy_getinfo_fn easy_getinfo;
    easy_perform_fn easy_perform;
    easy_strerror_fn easy_strerror;
    slist_append_fn slist_append;
    slist_free_all_fn slist_free_all;
} curl;

static dossier_library curl_library = DOSSIER_LIBRARY_INIT;

static int load_curl(dossier_library *l) {
    // DOSSIER_LIBCURL names the one library file to load instead (a libcurl installed
    // somewhere the dynamic loader does not look).
    const char *names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.4.dylib", "libcurl.dylib", NULL};
    void *lib = dossier_library_open(l, "DOSSIER_LIBCURL", names, "libcurl", "tried libcurl.so.4 and libcurl-gnutls.so.4",
                                     "install it (Debian/Ubuntu: apt install libcurl4) to publish or sync");
    if (!lib) return -1;
    int state = 1;
#define SYM(field, name) curl.field = (__typeof__(curl.field))dlsym(lib, name); if (!curl.field) { snprintf(l->error, sizeof l->error, "libcurl has no %s (too old?)", name); state = -1; }
    SYM(global_init, "curl_global_init")
    SYM(easy_init, "curl_easy_init")
    SYM(easy_cleanup, "curl_easy_cleanup")
    SYM(easy_reset, "curl_easy_reset")
    SYM(easy_setopt, "curl_easy_setopt")
    SYM(easy_getinfo, "curl_easy_getinfo")
    SYM(easy_perform, "curl_easy_perform")
    SYM(easy_strerror, "curl_easy_strerror")
    SYM(slist_append, "curl_slist_append")
    SYM(slist_free_all, "curl_slist_free_all")
#undef SYM
    if (state == 1 && curl.global_init(GLOBAL_ALL) != 0) {
        snprintf(l->error, sizeof l->error, "libcurl could not start");
        state = -1;
    }
    return state;
}

int dossier_curl_load(char *error, size_t error_len) {
    return dossier_library_load(&curl_library, load_curl, error, error_len);
}

// Typed wrappers: each passes exactly the C type libcurl reads for that option kind.
static int set_long(void *h, int opt, long v) { return curl.easy_setopt(h, opt, v); }
static int set_ptr(void *h, int opt, const void *v) { return curl.easy_setopt(h, opt, v); }
static int set_off(void *h, int opt, int64_t v) { return curl.easy_setopt(h, opt, (int64_t)v); }
static int set_fn(void *h, int opt, void (*v)(void)) { return curl.easy_setopt(h, opt, v); }
static long get_long(void *h, int info) { long v = 0; curl.easy_getinfo(h, info, &v); return v; }

typedef struct { char *data; size_t len, cap; } buffer;

static int buffer_add(buffer *b, const char *p, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1) cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) return -1;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
    return 0;
}

typedef struct { buffer b; size_t max; int over; int fd; size_t written; int fd_errno; } body_sink;

/// Writes all `n` bytes to `fd`; 0 on success.
static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static size_t on_body(char *p, size_t size, size_t n, void *user) {
    body_sink *s = user;
    size_t have = s->fd >= 0 ? s->written : s->b.len;
    if (s->max > 0 && size * n > s->max - have) { s->over = 1; return 0; }
    if (s->fd >= 0) {
        if (write_all(s->fd, p, size * n)) { s->fd_errno = errno ? errno : EIO; return 0; }
        s->written += size * n;
        return size * n;
    }
    return buffer_add(&s->b, p, size * n) ? 0 : size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *user) {
    buffer *b = user;
    // A new status line (after a redirect or a 100 Continue): keep only the last answer's headers.
    if (size * n >= 5 && memcmp(p, "HTTP/", 5) == 0) b->len = 0;
    return buffer_add(b, p, size * n) ? 0 : size * n;
}

typedef struct { const char *data; size_t len, pos; int fd; } reader;

static size_t on_read(char *p, size_t size, size_t n, void *user) {
    reader *r = user;
    size_t left = r->len - r->pos, want = size * n;
    if (want > left) want = left;
    if (want && r->fd >= 0) {
        ssize_t got;
        do { got = pread(r->fd, p, want, (off_t)r->pos); } while (got < 0 && errno == EINTR);
        if (got <= 0) return 0x10000000;   // CURL_READFUNC_ABORT: the file shrank or failed
        want = (size_t)got;
    } else if (want) {
        memcpy(p, r->data + r->pos, want);
    }
    r->pos += want;
    return want;
}

static int on_seek(void *user, int64_t offset, int origin) {
    reader *r = user;
    if (origin != 0 || offset < 0 || (uint64_t)offset > r->len) return 2;  // CURL_SEEKFUNC_CANTSEEK
    r->pos = (size_t)offset;
    return 0;
}

void *dossier_curl_handle_new(void) { return curl_library.state == 1 ? curl.easy_init() : NULL; }
void dossier_curl_handle_free(void *h) { if (h && curl_library.state == 1) curl.easy_cleanup(h); }
const char *dossier_curl_strerror(int code) { return curl_library.state == 1 ? curl.easy_strerror(code) : "libcurl not loaded"; }

int dossier_http_perform(void *h, const dossier_http_request *rq, dossier_http_response *rs) {
    memset(rs, 0, sizeof *rs);
    curl.easy_reset(h);
    buffer head = {0};
    body_sink sink = {{0}, rq->max_body, 0, rq->sink_fd, 0, 0};
    if (rq->sink_fd >= 0 && (ftruncate(rq->sink_fd, 0) != 0 || lseek(rq->sink_fd, 0, SEEK_SET) != 0)) {
        rs->sink_errno = errno ? errno : EIO;
        snprintf(rs->error, sizeof rs->error, "cannot write the answer to a temporary file: %s", strerror(errno));
        return 23;   // CURLE_WRITE_ERROR
    }
    reader rd = {rq->body, rq->body_len, 0, rq->body_fd};
    void *list = NULL;
    for (size_t i = 0; i < rq->header_count; i++) list = curl.slist_append(list, rq->headers[i]);
    set_ptr(h, OPT_URL, rq->url);
    set_long(h, OPT_NOSIGNAL, 1);
    set_ptr(h, OPT_ERRORBUFFER, rs->error);
    set_ptr(h, OPT_USERAGENT, "dossier");
    set_fn(h, OPT_WRITEFUNCTION, (void (*)(void))on_body);
    set_ptr(h, OPT_WRITEDATA, &sink);
    set_fn(h, OPT_HEADERFUNCTION, (void (*)(void))on_header);
    set_ptr(h, OPT_HEADERDATA, &head);
    if (list) set_ptr(h, OPT_HTTPHEADER, list);
    if (rq->idle_timeout > 0) {
        set_long(h, OPT_CONNECTTIMEOUT, rq->idle_timeout);
        set_long(h, OPT_LOW_SPEED_LIMIT, 1);
        set_long(h, OPT_LOW_SPEED_TIME, rq->idle_timeout);
    }
    if (rq->total_timeout > 0) set_long(h, OPT_TIMEOUT, rq->total_timeout);
    if (rq->ca_file) {
        // The file replaces the system's trust: no built-in CA folder besides it.
        set_ptr(h, OPT_CAINFO, rq->ca_file);
        set_ptr(h, OPT_CAPATH, NULL);
    }
    if (rq->follow_redirects) {
        set_long(h, OPT_FOLLOWLOCATION, 1);
        set_long(h, OPT_MAXREDIRS, 5);
        const char *protos = rq->https_only_redirects ? "https" : "http,https";
        if (set_ptr(h, OPT_REDIR_PROTOCOLS_STR, protos) != 0)
            set_long(h, OPT_REDIR_PROTOCOLS, rq->https_only_redirects ? PROTO_HTTPS : PROTO_HTTP | PROTO_HTTPS);
    }
    if (strcmp(rq->method, "HEAD") == 0) {
        set_long(h, OPT_NOBODY, 1);
    } else if (rq->has_body) {
        // UPLOAD sends the body with a Content-Length; CUSTOMREQUEST names the method.
        set_long(h, OPT_UPLOAD, 1);
        set_fn(h, OPT_READFUNCTION, (void (*)(void))on_read);
        set_ptr(h, OPT_READDATA, &rd);
        set_fn(h, OPT_SEEKFUNCTION, (void (*)(void))on_seek);
        set_ptr(h, OPT_SEEKDATA, &rd);
        set_off(h, OPT_INFILESIZE_LARGE, (int64_t)rq->body_len);
        if (strcmp(rq->method, "PUT") != 0) set_ptr(h, OPT_CUSTOMREQUEST, rq->method);
    } else if (strcmp(rq->method, "GET") != 0) {
        set_ptr(h, OPT_CUSTOMREQUEST, rq->method);
    }
    int rc = curl.easy_perform(h);
    rs->curl_code = rc;
    if (rc == 0) rs->status = get_long(h, INFO_RESPONSE_CODE);
    if (rc != 0 && rs->error[0] == 0) snprintf(rs->error, sizeof rs->error, "%s", curl.easy_strerror(rc));
    // The handle must not keep pointers to this call's stack.
    set_ptr(h, OPT_ERRORBUFFER, NULL);
    if (list) { set_ptr(h, OPT_HTTPHEADER, NULL); curl.slist_free_all(list); }
    rs->body = sink.b.data;
    rs->body_len = rq->sink_fd >= 0 ? sink.written : sink.b.len;
    rs->body_too_large = sink.over;
    rs->sink_errno = sink.fd_errno;
    rs->header_block = head.data;
    rs->header_len = head.len;
    return rc;
}

void dossier_http_response_free(dossier_http_response *rs) {
    free(rs->body);
    free(rs->header_block);
    rs->body = rs->header_block = NULL;
}
