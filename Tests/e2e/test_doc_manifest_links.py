"""docs/manifest.md, "Content pages": link rewriting, the build-time link check and its grouped report, links
resolved from file://, and sitemap.xml -- expectations computed from the doc's rules (helpers: test_doc_manifest)."""
from html import unescape
import posixpath
import random
import re
import unicodedata
import urllib.parse

import pytest

from test_doc_manifest import build, make, page_title

NFC, NFD = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")


# ---------------------------------------------------------------- content file names
@pytest.mark.parametrize("name,char", [("javascript:alert(1).md", ":"), ("a?b.md", "?"), ("a#b.md", "#"),
                                       ("a%41.md", "%"), ("a\\b.md", "\\"), ("d:x/a.md", ":"), ("e\x7f.md", None),
                                       ("a\x01b.md", None), ("t\tab.markdown", None)])
def test_content_names_refused(dossier_bin, tmp_path, name, char):
    root = make(tmp_path / "p", "title: T\n", {f"content/{name}": "# x\n"})
    what = f"'{re.escape(char)}'" if char else "a control character"
    rc, err = build(dossier_bin, root)
    assert rc == 1 and not (root / "_site").exists()
    assert re.search(f"content file names may not contain {what}", err), err


@pytest.mark.parametrize("a,b", [("Notes.md", "notes.md"), ("A/b.md", "a/b.md"), ("x/Ü.md", "x/ü.md"),
                                 ("Q.markdown", "q.md")])
def test_pages_differing_only_in_case_refused(dossier_bin, tmp_path, a, b):
    root = make(tmp_path / "p", "title: T\n", {f"content/{a}": "# 1\n", f"content/{b}": "# 2\n"})
    rc, err = build(dossier_bin, root)
    assert rc == 1 and not (root / "_site").exists() and "content/" in err


def test_content_symlinks_inside_followed_outside_refused(dossier_bin, tmp_path):
    outside = make(tmp_path / "secret", None, {"diary.md": "# Diary\n"})
    root = make(tmp_path / "p", "title: T\n", {"content/real.md": "# Real\n"})
    (root / "content/in.md").symlink_to("real.md")
    assert build(dossier_bin, root)[0] == 0 and page_title(root, "in/index.html") == "Real · T"
    (root / "content/out.md").symlink_to(outside / "diary.md")
    rc, err = build(dossier_bin, root)
    assert rc == 1 and "content/out.md: links outside the project" in err
    assert "Diary" not in (root / "_site/index.html").read_text()      # the previous site stays



def article_links(root, page):
    art = re.search(r"<article.*?</article>", (root / "_site" / page).read_text(), re.S).group(0)
    return {int(m.group(2)): m.group(1) for m in re.finditer(r'<a(?: href="([^"]*)")?[^>]*>L(\d+)</a>', art)}


def folder_rule(path, static_files, page_dir):
    """The doc's folder rule on a link's path (before ? / #)."""
    last = path.rsplit("/", 1)[-1]
    if path.endswith("/"):
        return path + "index.html"
    if last in (".", ".."):
        return path + "/index.html"
    if "." not in last and posixpath.normpath(posixpath.join(page_dir, path)) not in static_files:
        return path + "/index.html"
    return path


def expected(link, page_dir, base_path, static_files):
    """What the doc says a link becomes on a page in page_dir (None: only its target can be checked)."""
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", link) or link.startswith(("#", "?", "//")):
        return link
    cut = min([i for i in (link.find("?"), link.find("#")) if i >= 0] or [len(link)])
    path, rest = link[:cut], link[cut:]
    if path.endswith((".md", ".markdown")):
        return None
    if path.startswith("/"):
        if not base_path or not (path + "/").startswith(base_path):
            return link
        path = posixpath.relpath("/" + path[len(base_path):], "/" + page_dir) + ("/" if path.endswith("/") else "")
    return folder_rule(path, static_files, page_dir) + rest


LINKS = ["dir/", "dir", "..", "../", ".", "./", "../x/#frag", "dir/?q=1#f", "dir?q=1", "sub/", "dir/#", "../dir",
         "/docs/x/", "/docs/x", "/docs/", "/docs", "/docs/x/#f", "/docs/x?q", "/docsx/", "/other/x/",
         "mailto:a@b.c", "https://e.org/a", "http://e.org", "HTTPS://E.ORG/", "ftp://x/y", "tel:123", "#top", "CNAME",
         "file.txt", "dir/.", "sub/..", "x.md", "x.md#p", "../x.md", "sub/y.md", "su%62/y.md", f"{NFC}.md",
         f"{NFD}.md", "caf%C3%A9.md", "x.md#", "../a/b.md#part", "../%64ir/"]
SITE_FILES = {"content/p/index.md": "", "content/x.md": "# X\n", "content/dir/index.md": "# D\n",
              "content/p/x.md": "# PX\n", "content/p/dir/index.md": "# PD\n", "content/p/sub/y.md": "# Y\n",
              "content/p/sub/index.md": "# S\n", f"content/p/{NFC}.md": "# C\n", "content/a/b.md": "# B\n## Part\n",
              "content/index.md": "# Home\n", "static/p/CNAME": "e.org", "static/p/file.txt": "t"}


def bad(err):
    """(file, line or None, link) of every bad-link line of a report (any reason)."""
    return [(m[0], m[1] or None, m[2]) for m in re.findall(r"^([^:\n]+?)(?::(\d+))?: (?:dangling )?link '([^']*)'", err,
                                                             re.M)]


def targets(root, page, href):
    """The file a browser opens for href on page, from file:// (None when it leaves the site)."""
    site = (root / "_site").resolve()
    url = urllib.parse.urljoin((site / page).as_uri(), href)
    p = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    return p[len(str(site)) + 1:] if p.startswith(str(site) + "/") else None


def test_link_rewrites_with_base_url(dossier_bin, tmp_path):
    body = "# Top\n\n" + "\n".join(f"[L{i}]({link})" for i, link in enumerate(LINKS)) + "\n"
    extra = {"content/p/index.md": body, "static/docsx/index.html": "x", "static/other/x/index.html": "x"}
    root = make(tmp_path / "p", "title: T\nbase_url: https://e.org/docs/\n", {**SITE_FILES, **extra})
    rc, err = build(dossier_bin, root)        # outside base_url's path: left as written, dangling
    assert {b[2] for b in bad(err)} == {"/docsx/", "/other/x/"}, err
    root2 = make(tmp_path / "q", "title: T\nbase_url: https://e.org/docs\n",
                 {**SITE_FILES, "content/p/index.md": body.replace("/docsx/", "#").replace("/other/x/", "#")})
    assert build(dossier_bin, root2)[0] == 0
    got = article_links(root2, "p/index.html")
    statics = {"p/CNAME", "p/file.txt"}
    for i, link in enumerate(LINKS):
        if link in ("/docsx/", "/other/x/"):
            continue
        want = expected(link, "p", "/docs/", statics)
        if want is not None:
            assert got[i] == want, (link, got[i])
    md_targets = {"x.md": "p/x/index.html", "x.md#p": "p/x/index.html", "../x.md": "x/index.html",
                  "sub/y.md": "p/sub/y/index.html", "su%62/y.md": "p/sub/y/index.html", "x.md#": "p/x/index.html",
                  f"{NFC}.md": f"p/{NFC}/index.html", f"{NFD}.md": f"p/{NFC}/index.html",
                  "caf%C3%A9.md": f"p/{NFC}/index.html", "../a/b.md#part": "a/b/index.html"}
    for i, link in enumerate(LINKS):
        if link in md_targets:
            assert targets(root2, "p/index.html", got[i]) == md_targets[link], (link, got[i])
            assert got[i].endswith(link[link.index("#"):] if "#" in link else "index.html"), (link, got[i])


def test_doc_example_site_absolute_on_a_b(dossier_bin, tmp_path):
    files = {"content/a/b.md": "# B\n[L0](/docs/x/) [L1](/x/) [L2](/docs/x/#frag)\n", "content/x.md": "# X\n"}
    root = make(tmp_path / "p", "title: T\nbase_url: https://e.org/docs/\n", files)
    rc, err = build(dossier_bin, root)
    assert rc == 1 and [b[1:] for b in bad(err)] == [("2", "/x/")]
    (root / "content/a/b.md").write_text("# B\n[L0](/docs/x/) [L2](/docs/x/#frag)\n")
    assert build(dossier_bin, root)[0] == 0
    assert article_links(root, "a/b/index.html") == {0: "../../x/index.html", 2: "../../x/index.html#frag"}


def test_without_base_url_site_absolute_links_dangle(dossier_bin, tmp_path):
    links = ["/x/", "/x", "/index.html", "/"]
    root = make(tmp_path / "p", "title: T\n", {"content/x.md": "# X\n", "content/q.md": "".join(
        f"[L{i}]({link})\n" for i, link in enumerate(links))})
    rc, err = build(dossier_bin, root)
    assert rc == 1 and not (root / "_site").exists()
    found = [b[1:] for b in bad(err)]
    assert sorted(found) == sorted((str(next(j for j, ln in enumerate(links, 1) if link in f"[L{j - 1}]({ln})")), link)
                                   for link in links)


def test_unsafe_off_removes_script_links_and_keeps_image_data(dossier_bin, tmp_path):
    md = "[L0](javascript:alert(1)) [L1](vbscript:x) [L2](file:///etc/passwd) [L3](data:text/html,x)\n" \
         "![i](data:image/png;base64,AAAA) [L4](JavaScript:x)\n"
    root = make(tmp_path / "p", "title: T\n", {"content/h.md": md})
    assert build(dossier_bin, root)[0] == 0
    assert all(not h for h in article_links(root, "h/index.html").values())
    assert 'src="data:image/png;base64,AAAA"' in (root / "_site/h/index.html").read_text()


def test_every_link_of_every_page_opens_a_site_file_from_disk(dossier_bin, tmp_path):
    body = "# Top\n\n" + "\n".join(f"[L{i}]({link})" for i, link in enumerate(LINKS) if "//" not in link and
                                    not link.startswith(("/", "mailto", "tel"))) + "\n"
    root = make(tmp_path / "p", "title: T\n", {**SITE_FILES, "content/p/index.md": body})
    assert build(dossier_bin, root)[0] == 0
    site = root / "_site"
    pages = [p.relative_to(site).as_posix() for p in site.rglob("*.html")]
    assert len(pages) >= 10
    for page in pages:
        for ref in re.findall(r'(?:href|src)="([^"]*)"', (site / page).read_text()):
            if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", ref) or not ref:
                continue
            tgt = targets(root, page, ref)
            assert tgt is not None and (site / tgt).is_file(), (page, ref, tgt)


def test_folder_links_dangle_when_no_index_and_static_html_is_checked_as_is(dossier_bin, tmp_path):
    files = {"content/a.md": "# A\n\n[x](e/)\n\n[y](../nowhere/)\n[z](../../../../etc/passwd)\n",
             "static/s.html": '<a href="e.txt">x</a>\n<a href="d">y</a>', "static/d/index.html": "x"}
    root = make(tmp_path / "p", "title: T\n", files)
    rc, err = build(dossier_bin, root)
    assert rc == 1 and not (root / "_site").exists()
    assert "content/a.md:3: link 'e/' names a folder with no index.html" in err
    assert "content/a.md:5: link '../nowhere/' names a folder with no index.html" in err
    assert re.search(r"^content/a\.md:6: .*'../../../../etc/passwd'", err, re.M)
    assert re.search(r"^s\.html: dangling link 'e\.txt'", err, re.M) and re.search(r"^s\.html: .*'d'", err, re.M)


@pytest.mark.parametrize("files,reason", [
    ({"static/s.html": '<a href="d/">x</a>', "static/d/index.html": "x"}, "names a folder"),
    ({"content/x.md": "# X\n", "content/q.md": "[L0](/x/) [L1](/index.html)\n"}, "site-absolute link leaves the site")])
def test_dangling_links_not_blamed_on_unicode(dossier_bin, tmp_path, files, reason):
    rc, err = build(dossier_bin, make(tmp_path / "p", "title: T\n", files))
    assert rc == 1 and bad(err) and "Unicode" not in err
    links = re.findall(r'(?:href="|\]\()([^")]*)', "".join(files.values()))
    for link in links:
        assert any(f"link '{link}'" in ln and reason in ln for ln in err.splitlines()), (link, err)


def test_dangling_link_quoted_as_written(dossier_bin, tmp_path):
    rc, err = build(dossier_bin, make(tmp_path / "p", "title: T\n", {"content/z.md": "# H\n[c](ünï/gone.txt)\n"}))
    assert rc == 1 and ("content/z.md", "2", "ünï/gone.txt") in bad(err)


def test_unicode_bytes_differ_is_dangling(dossier_bin, tmp_path):
    files = {f"content/{NFC}.md": "# C\n", "content/i.md": f"# I\n[a]({NFD}.md) [b]({NFC}.md)\n\n[c](../{NFD}/)\n",
             f"static/{NFC}.txt": "x", "static/s.html": f'<a href="{NFD}.txt">z</a>'}
    root = make(tmp_path / "p", "title: T\n", files)
    rc, err = build(dossier_bin, root)
    assert rc == 1
    bad = [ln for ln in err.splitlines() if "in other Unicode bytes than the site's file" in ln]
    assert len(bad) == 2 and bad[0].startswith("content/i.md:4: ") and bad[1].startswith("s.html: ")
    assert "write the link as the file's name is written" in bad[1]


@pytest.mark.parametrize("link", ["x.md?v=1#f", "x.md?v=1", "../x.md?a=b&c", "x.md#f?not-a-query"])
def test_md_link_with_query(dossier_bin, tmp_path, link):
    root = make(tmp_path / "p", "title: T\n", {"content/x.md": "# X\n", "content/y.md": f"[L0]({link})\n"})
    assert build(dossier_bin, root)[0] == 0
    got = article_links(root, "y/index.html")[0].replace("&amp;", "&")
    assert targets(root, "y/index.html", got) == "x/index.html"
    cut = min(i for i in (link.find("?"), link.find("#"), len(link)) if i >= 0)
    assert got.endswith("index.html" + link[cut:]), got


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_dangling_line_is_first_line_holding_the_link(dossier_bin, tmp_path, eol):
    rnd = random.Random(11)
    lines = ["---", "title: T", "---", "", "# H", "\ttab\tbefore", "x" * 20000 + " [a](gone-a.txt)", ""]
    lines += ["filler " + str(rnd.random()) for _ in range(rnd.randint(3, 9))]
    lines += ["[b](gone-b.txt) and [c](ünï/gone.txt)", "", "[a again](gone-a.txt)"]
    root = make(tmp_path / "p", "title: T\n", {"content/z.md": eol.join(lines) + eol})
    rc, err = build(dossier_bin, root)
    assert rc == 1
    for target in ["gone-a.txt", "gone-b.txt", "ünï/gone.txt"]:
        n = next(i for i, ln in enumerate(lines, 1) if f"]({target})" in ln)
        assert ("content/z.md", str(n), target) in {(f, n, urllib.parse.unquote(t)) for f, n, t in bad(err)}, err


def test_grouped_report_counts(dossier_bin, tmp_path):
    rnd = random.Random(5)
    nfiles = 34
    counts = [rnd.choice([1, 2, 10, 11, 14, 3]) for _ in range(nfiles)]
    files = {f"content/p{i:02d}.md": "# P\n" + "".join(f"[x](missing{j}.txt)\n" for j in range(c))
             for i, c in enumerate(counts)}
    root = make(tmp_path / "p", "title: T\n", files)
    (root / "_site").mkdir()
    (root / "_site/old.txt").write_text("old site")
    (root / "_site.manifest.json").write_text("{}")
    rc, err = build(dossier_bin, root)
    assert rc == 1 and (root / "_site/old.txt").read_text() == "old site" and not (root / "_site/p00").exists()
    lines = [ln for ln in err.splitlines() if not ln.startswith(("[", "note:"))]
    want = []
    for i, c in enumerate(counts[:30]):
        want += [f"content/p{i:02d}.md:{j + 2}: dangling link 'missing{j}.txt' (on page p{i:02d}/index.html)"
                 for j in range(min(c, 10))]
        if c > 10:
            want.append(f"content/p{i:02d}.md: … and {c - 10} more bad links in this file ({c} in all)")
    assert lines[:len(want)] == want
    rest = lines[len(want):]
    assert rest[0].endswith(f"… and {sum(counts[30:])} more bad links in {nfiles - 30} more files")
    assert re.search(f"{sum(counts)} bad links in {nfiles} files: ", rest[1]) and len(rest) == 2


# ---------------------------------------------------------------- sitemap.xml
SM_FILES = {"content/index.md": "# H\n", "content/b.md": "---\ndraft: true\n---\n# B\n", "content/z/y.md": "# Y\n",
            "content/a&b.md": "# amp\n", "content/ü.md": "# u\n", "content/z/index.md": "# Z\n"}


def locs(root):
    xml = (root / "_site/sitemap.xml").read_text()
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    assert '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' in xml
    return [unescape(loc) for loc in re.findall(r"<loc>(.*?)</loc>", xml)]


@pytest.mark.parametrize("base,prefix", [(None, ""), ("https://e.org/x", "https://e.org/x/"),
                                         ("https://e.org/x/", "https://e.org/x/"), ("http://e.org", "http://e.org/")])
def test_sitemap_lists_the_pages(dossier_bin, tmp_path, base, prefix):
    root = make(tmp_path / "p", "title: T\n" + (f"base_url: {base}\n" if base else ""), SM_FILES)
    assert build(dossier_bin, root)[0] == 0
    got = locs(root)
    assert all(loc.startswith(prefix) for loc in got)
    pages = {"index.html", "z/y/index.html", "a&b/index.html", "ü/index.html", "z/index.html"}
    paths = [urllib.parse.unquote(loc[len(prefix):]) for loc in got]
    as_files = {p + "index.html" if p.endswith("/") or p == "" else p for p in paths}
    assert as_files == pages and len(got) == len(pages)
    assert all((root / "_site" / f).is_file() for f in as_files)


@pytest.mark.parametrize("base", [None, "https://e.org/d/"])
def test_sitemap_locations_are_urls(dossier_bin, tmp_path, base):
    names = ["sp ace", "ü", "a&b", "t~i.l-d_e", "q'u(o)te", "plus+eq=", "é/x y", "\"dq\"", "a@b", "<x>"]
    files = {f"content/{n}.md": "# s\n" for n in names}
    root = make(tmp_path / "p", "title: T\n" + (f"base_url: {base}\n" if base else ""), files)
    assert build(dossier_bin, root)[0] == 0
    got = locs(root)
    pages = ["index.html"] + [f"{n}/index.html" for n in names]
    safe = "/!$&'()*+,;=~"            # RFC 3986 unreserved (quote keeps letters, digits, -._~), sub-delims, /
    if base:
        want = [base + urllib.parse.quote(p.removesuffix("index.html"), safe=safe) for p in pages]
    else:
        want = [urllib.parse.quote(p, safe=safe) for p in pages]
    assert sorted(got) == sorted(want)
    assert all(loc and re.fullmatch(r"[A-Za-z0-9._~!$&'()*+,;=/:%-]+", loc) for loc in got)


# ---------------------------------------------------------------- Markdown: heading ids and anchors
def gh_id(text):
    keep = "".join(c for c in text.lower() if c.isalnum() or c in "-_ ").replace(" ", "-")
    return keep or "section"


def test_heading_ids_like_github_and_task_lists(dossier_bin, tmp_path):
    rnd = random.Random(21)
    pool = ["Hello World!", "Ünï-cødé_x 2", "???", "a  b", "Tab\there", "Ça va? Oui.", "x_y-z", "123",
            "Ελληνικά"]
    heads = [rnd.choice(pool) for _ in range(14)]
    md = "# Top\n\n" + "".join(f"## {h}\n\n" for h in heads) + "- [ ] a\n- [x] b\n"
    root = make(tmp_path / "p", "title: T\n", {"content/h.md": md})
    assert build(dossier_bin, root)[0] == 0
    html = (root / "_site/h/index.html").read_text()
    seen, want = {}, []
    for h in heads:
        base = gh_id(h)
        n = seen.get(base, 0)
        seen[base] = n + 1
        want.append(base if n == 0 else f"{base}-{n}")
    assert re.findall(r'<h2 id="([^"]*)"', html) == want
    assert all(f'href="#{i}"' in html for i in want)
    assert '<input type="checkbox" disabled="" aria-label="Not done" />' in html
    assert '<input type="checkbox" checked="" disabled="" aria-label="Done" />' in html


def test_heading_anchor_markup(dossier_bin, tmp_path):
    root = make(tmp_path / "p", "title: T\n", {"content/h.md": "# Top\n\n## Two words\n"})
    assert build(dossier_bin, root)[0] == 0
    html = (root / "_site/h/index.html").read_text()
    anchor = '<a class="anchor" href="#two-words" aria-hidden="true" tabindex="-1">#</a>'
    assert f'<h2 id="two-words">{anchor}Two words</h2>' in html
