/* The pages floor (issue #45): what any generator of the render benchmark's site must
 * do at least. It renders every page of CONTENT/pages/ with libcmark-gfm and the same
 * options and extensions as Dossier (docs/manifest.md, "Markdown": validate UTF-8,
 * GitHub <pre lang>, table, strikethrough, autolink, tagfilter, tasklist), wraps each in
 * the same page chrome Dossier writes around it (CHROME: one of Dossier's pages with its
 * rendered Markdown replaced by the line <!--body-->), and writes OUT/pages/<name>/
 * index.html, a home page linking every page and a sitemap.xml — the same files, of
 * about the same size. No templating, link check, manifest or staging.
 *
 *   cc -O2 -o pages_floor pages_floor.c $(pkg-config --cflags --libs libcmark-gfm) \
 *      -lcmark-gfm-extensions
 *   pages_floor CONTENT OUT CHROME
 */
#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void die(const char *what, const char *path) {
    fprintf(stderr, "pages_floor: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) die("cannot read", path);
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

static void spill(const char *path, const char *parts[], const size_t lens[], int count) {
    FILE *f = fopen(path, "wb");
    if (!f) die("cannot write", path);
    for (int i = 0; i < count; i++) fwrite(parts[i], 1, lens[i], f);
    if (fclose(f) != 0) die("cannot close", path);
}

/* The Markdown after a leading `---` … `---` front matter block. */
static const char *body_of(const char *text, size_t len, size_t *out) {
    if (len >= 4 && strncmp(text, "---\n", 4) == 0) {
        const char *end = strstr(text + 4, "\n---\n");
        if (end) { end += 5; *out = len - (size_t)(end - text); return end; }
    }
    *out = len;
    return text;
}

static char *render(const char *md, size_t len) {
    int opts = CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_GITHUB_PRE_LANG;
    cmark_parser *p = cmark_parser_new(opts);
    const char *exts[] = {"table", "strikethrough", "autolink", "tagfilter", "tasklist"};
    cmark_llist *list = NULL;
    for (int i = 0; i < 5; i++) {
        cmark_syntax_extension *e = cmark_find_syntax_extension(exts[i]);
        cmark_parser_attach_syntax_extension(p, e);
        list = cmark_llist_append(cmark_get_default_mem_allocator(), list, e);
    }
    cmark_parser_feed(p, md, len);
    cmark_node *doc = cmark_parser_finish(p);
    char *html = cmark_render_html(doc, opts, list);
    cmark_llist_free(cmark_get_default_mem_allocator(), list);
    cmark_node_free(doc);
    cmark_parser_free(p);
    return html;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: pages_floor CONTENT OUT CHROME\n"); return 2; }
    cmark_gfm_core_extensions_ensure_registered();
    size_t clen;
    char *chrome = slurp(argv[3], &clen);
    char *mark = strstr(chrome, "<!--body-->");
    if (!mark) { fprintf(stderr, "pages_floor: %s holds no <!--body--> line\n", argv[3]); return 1; }
    size_t head = (size_t)(mark - chrome), tail_at = head + strlen("<!--body-->");
    char dir[4096], path[4096];
    snprintf(dir, sizeof dir, "%s/pages", argv[1]);
    DIR *d = opendir(dir);
    if (!d) die("cannot list", dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".md") != 0) continue;
        if (n == cap) { cap = cap ? cap * 2 : 1024; names = realloc(names, cap * sizeof *names); }
        names[n++] = strndup(e->d_name, l - 3);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    snprintf(path, sizeof path, "%s/pages", argv[2]);
    mkdir(argv[2], 0755);
    mkdir(path, 0755);
    size_t listcap = n * 128 + 4096, listlen = 0, mapcap = n * 96 + 4096, maplen = 0;
    char *list = malloc(listcap), *map = malloc(mapcap);
    maplen += (size_t)snprintf(map, mapcap, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                               "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    for (size_t i = 0; i < n; i++) {
        size_t len, blen;
        snprintf(path, sizeof path, "%s/%s.md", dir, names[i]);
        char *text = slurp(path, &len);
        const char *md = body_of(text, len, &blen);
        char *html = render(md, blen);
        snprintf(path, sizeof path, "%s/pages/%s", argv[2], names[i]);
        if (mkdir(path, 0755) != 0 && errno != EEXIST) die("cannot make", path);
        snprintf(path, sizeof path, "%s/pages/%s/index.html", argv[2], names[i]);
        const char *parts[] = {chrome, html, chrome + tail_at};
        const size_t lens[] = {head, strlen(html), clen - tail_at};
        spill(path, parts, lens, 3);
        listlen += (size_t)snprintf(list + listlen, listcap - listlen,
                                    "<li><a href=\"pages/%s/index.html\">%s</a></li>\n", names[i], names[i]);
        maplen += (size_t)snprintf(map + maplen, mapcap - maplen,
                                   "<url><loc>https://bench.example.org/pages/%s/</loc></url>\n", names[i]);
        free(html);
        free(text);
    }
    maplen += (size_t)snprintf(map + maplen, mapcap - maplen, "</urlset>\n");
    snprintf(path, sizeof path, "%s/index.html", argv[2]);
    const char *home[] = {chrome, "<ul>\n", list, "</ul>\n", chrome + tail_at};
    const size_t homelen[] = {head, 5, listlen, 6, clen - tail_at};
    spill(path, home, homelen, 5);
    snprintf(path, sizeof path, "%s/sitemap.xml", argv[2]);
    const char *sm[] = {map};
    const size_t smlen[] = {maplen};
    spill(path, sm, smlen, 1);
    printf("%zu pages\n", n);
    return 0;
}
