// libcurl, loaded at run time (dlopen), for Dossier's HTTP transport (Sources/WebDAV).
//
// Dossier does not link libcurl: a binary that never talks to a server never loads it,
// and start-up stays fast (docs/publish.md, "HTTP transport"). These are Dossier's own
// declarations — libcurl's headers are not used — and every option is set through a
// typed function, never through the variadic curl_easy_setopt from Swift.
#ifndef DOSSIER_CCURL_RUNTIME_H
#define DOSSIER_CCURL_RUNTIME_H
#include <stddef.h>
#include <stdint.h>

/// Loads libcurl once per process ("libcurl.so.4", then "libcurl-gnutls.so.4").
/// Returns 0 on success; otherwise -1 and a message in `error` (NUL-terminated).
int dossier_curl_load(char *error, size_t error_len);

/// One HTTP exchange. Strings are NUL-terminated; `headers` holds `count` lines
/// "Name: value". `body` may be NULL (no request body); `body_len` bytes otherwise.
typedef struct {
    const char *url;
    const char *method;
    const char *const *headers;
    size_t header_count;
    const void *body;
    size_t body_len;
    int has_body;
    /// When >= 0, the body is read from this file descriptor (from offset 0, `body_len`
    /// bytes, 1 MiB or less at a time) instead of `body`: a large file is sent without
    /// being held in memory.
    int body_fd;
    /// Seconds to connect, and seconds with no data moving before giving up.
    long idle_timeout;
    /// Seconds for the whole exchange.
    long total_timeout;
    /// PEM file of trusted certificates, or NULL for the system's trust store.
    const char *ca_file;
    /// Follow redirects (at most 5); never from https to http.
    int follow_redirects;
    int https_only_redirects;
    /// When > 0, an answer body longer than this many bytes stops the transfer
    /// (`body_too_large` set, curl's write error returned): a server that keeps sending
    /// cannot fill the memory.
    size_t max_body;
    /// When >= 0, the answer body is written to this descriptor (truncated to 0 first)
    /// instead of kept in memory; `max_body` still applies. The response's `body` is
    /// then NULL and `body_len` the count written.
    int sink_fd;
} dossier_http_request;

/// The answer: `status` 0 when no HTTP answer arrived (then `curl_code` and `error`
/// say why). `body` and `header_block` (the raw header lines of the last answer) are
/// malloc'ed; free them with dossier_http_response_free.
typedef struct {
    long status;
    int curl_code;
    char error[256];
    char *body;
    size_t body_len;
    char *header_block;
    size_t header_len;
    /// Set when the body passed the request's `max_body` (the transfer was stopped).
    int body_too_large;
    /// The errno when the body could not be written to the request's `sink_fd` (a full
    /// disk, a file-size limit): the transfer was stopped by this side, not the server.
    int sink_errno;
} dossier_http_response;

/// An easy handle to reuse between requests (it keeps connections alive), or NULL.
void *dossier_curl_handle_new(void);
void dossier_curl_handle_free(void *handle);

/// Performs `request` on `handle` (reset first, connections kept). Blocks.
/// Returns the libcurl result code (0 = an HTTP answer arrived).
int dossier_http_perform(void *handle, const dossier_http_request *request, dossier_http_response *response);

void dossier_http_response_free(dossier_http_response *response);

/// libcurl's text for a result code (after loading).
const char *dossier_curl_strerror(int code);
#endif
