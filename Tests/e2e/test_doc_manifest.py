"""docs/manifest.md re-implemented from the text alone (keys, YAML reading, refusals, front matter,
`dossier new`): every expectation below is computed from the doc's rules, never copied from the program.
Content file names, links, the link check and sitemap.xml: test_doc_manifest_links.py (it imports these helpers)."""
import random
import re
import subprocess
import unicodedata

import pytest

DOC_TOP = {"title", "description", "base_url", "output", "csv", "markdown", "archive", "content", "allow_outside"}
SECTIONS = {"recall", "experiences", "vault", "sms", "game"}
FRONT = {"title", "summary", "weight", "draft", "toc"}


def make(root, yml, files=()):
    """A project in root: dossier.yml (text or bytes; None for none) and {relative path: text or bytes}."""
    root.mkdir(parents=True, exist_ok=True)
    if yml is not None:
        (root / "dossier.yml").write_bytes(yml if isinstance(yml, bytes) else yml.encode())
    for rel, body in dict(files).items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(body if isinstance(body, bytes) else body.encode())
    return root


def build(binary, root, *args):
    r = subprocess.run([binary, "build", str(root), *args], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stderr.replace(str(root) + "/", "")


def refused(binary, root, where, pattern=""):
    """Build must exit 1, write no site, and report `where` (FILE:LINE:) followed by text matching pattern."""
    rc, err = build(binary, root)
    assert rc == 1, err
    assert not (root / "_site").exists()
    lines = [ln for ln in err.splitlines() if ln.startswith(where)]
    assert lines, f"no line starting {where!r} in\n{err}"
    assert any(re.search(pattern, ln[len(where):]) for ln in lines), err
    return lines[0]


def page_title(root, page):
    return re.search(r"<title>(.*?)</title>", (root / "_site" / page).read_text()).group(1)


def dl(a, b):
    """Damerau-Levenshtein (optimal string alignment): insert, delete, substitute, swap neighbours, each 1."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


def suggestions(typed, known):
    limit = max(1, min(3, len(typed) // 3))
    out = []
    for k in known:
        short, long_ = sorted((typed, k), key=len)
        if dl(typed, k) <= limit or (long_.startswith(short) and len(short) >= 3):
            out.append(k)
    return sorted(out, key=lambda k: dl(typed, k))[:3]


# ---------------------------------------------------------------- top-level keys: types and defaults
def test_defaults_title_is_folder_name_description_empty(dossier_bin, tmp_path):
    root = make(tmp_path / "Mÿ stüdy", "")
    assert build(dossier_bin, root)[0] == 0
    html = (root / "_site" / "index.html").read_text()
    assert page_title(root, "index.html") == "Mÿ stüdy"
    assert '<meta name="description" content="">' in html


def test_title_and_description_are_text_escaped(dossier_bin, tmp_path):
    root = make(tmp_path / "p", 'title: "A <b> & \'q\'"\ndescription: "x\\"y<"\n')
    assert build(dossier_bin, root)[0] == 0
    html = (root / "_site" / "index.html").read_text()
    assert "<title>A &lt;b&gt; &amp; &#39;q&#39;</title>" in html
    assert '<meta name="description" content="x&quot;y&lt;">' in html


@pytest.mark.parametrize("key", ["csv.bom", "markdown.smart", "markdown.unsafe"])
@pytest.mark.parametrize("value", ["maybe", "2", "'yes please'"])
def test_bool_keys_refuse_non_bools_at_their_line(dossier_bin, tmp_path, key, value):
    block, sub = key.split(".")
    root = make(tmp_path / "p", f"title: T\n{block}:\n  # a comment\n  {sub}: {value}\n")
    refused(dossier_bin, root, "dossier.yml:4: ", re.escape(key))


def test_smart_and_unsafe_default_off_and_switch_on(dossier_bin, tmp_path):
    md = "# H\n\n<b>raw</b> \"q\" -- --- ...\n"
    off = make(tmp_path / "off", "title: T\n", {"content/h.md": md})
    on = make(tmp_path / "on", "title: T\nmarkdown:\n  smart: true\n  unsafe: true\n", {"content/h.md": md})
    assert build(dossier_bin, off)[0] == 0 and build(dossier_bin, on)[0] == 0
    a, b = ((r / "_site/h/index.html").read_text() for r in (off, on))
    assert "<!-- raw HTML omitted -->raw" in a and "&quot;q&quot; -- --- ..." in a
    assert "<b>raw</b> \u201cq\u201d \u2013 \u2014 \u2026" in b


@pytest.mark.parametrize("yml", ["markdown: yes\n", "csv: 5\n", "markdown: [1, 2]\n", "csv:\n  - bom\n"])
def test_block_keys_given_a_scalar_are_refused(dossier_bin, tmp_path, yml):
    block = yml.split(":")[0]
    line = 3 if "\n  - " in yml else 2             # a block list starts at its first item
    refused(dossier_bin, make(tmp_path / "p", "title: T\n" + yml), f"dossier.yml:{line}: ",
            f"^{block}: expected a block of keys")
    root = make(tmp_path / "empty", f"title: T\n{block}:\n")          # empty: the same as none
    assert build(dossier_bin, root)[0] == 0


# ---------------------------------------------------------------- base_url
BAD_URLS = ["javascript:alert(1)", "file:///etc", "data:text/html,x", "ftp://e.org/", "e.org/docs", "https://",
            "https:///x", "'https://e.org/a b'", '"https://e.org/\\tx"', '"https://e.org/\\x7f"', "https://u:p@e.org/",
            "https://u@e.org/", "//e.org/"]


@pytest.mark.parametrize("value", BAD_URLS)
def test_base_url_refusals_at_its_line(dossier_bin, tmp_path, value):
    root = make(tmp_path / "p", f"title: T\n\n\nbase_url: {value}\n")
    refused(dossier_bin, root, "dossier.yml:4: ", "base_url")


# ---------------------------------------------------------------- output
@pytest.mark.parametrize("value", ["/tmp/x", "~/x", "../x", "./x", "a/./b", "a/../b", "a/..", "''", "'a\\\\b'",
                                   "'a\\x01b'", ".x", ".hidden/site", "dossier.yml", "content", "Templates",
                                   "STATIC/x", "data/site", ".dossier", ".Dossier/x"])
def test_output_refusals(dossier_bin, tmp_path, value):
    value = value if not value.startswith("'a\\x") else '"a\\x01b"'
    root = make(tmp_path / "p", f"title: T\n# c\noutput: {value}\n")
    refused(dossier_bin, root, "dossier.yml:3: output: ")


def test_output_overlapping_a_section_input_is_refused(dossier_bin, tmp_path):
    for i, (out, inp) in enumerate([("out", "out/"), ("out", "out/x"), ("out/deep", "out")]):
        root = make(tmp_path / f"p{i}", f"output: {out}\nexperiences:\n  input: {inp}\n",
                    {"out/x/e.json": "{}", "out/deep/e.json": "{}"})
        refused(dossier_bin, root, "dossier.yml:1: output: ")


def test_output_existing_foreign_folder_is_kept_and_own_output_is_replaced(dossier_bin, tmp_path):
    root = make(tmp_path / "p", "output: site\n", {"site/mine.txt": "precious"})
    rc, err = build(dossier_bin, root)
    assert rc == 1 and (root / "site/mine.txt").read_text() == "precious"
    assert "dossier.yml:1: output: " in err
    (root / "site.manifest.json").write_text("{}")        # Dossier's mark beside it
    assert build(dossier_bin, root)[0] == 0
    assert (root / "site/index.html").is_file() and not (root / "site/mine.txt").exists()
    assert build(dossier_bin, make(tmp_path / "q", "output: public/www\n"))[0] == 0
    assert (tmp_path / "q/public/www/index.html").is_file()


# ---------------------------------------------------------------- How YAML is read
def test_bom_crlf_empty_and_comment_only_manifests(dossier_bin, tmp_path):
    root = make(tmp_path / "bom", b"\xef\xbb\xbftitle: Bommed\r\ndescription: d\r\n")
    assert build(dossier_bin, root)[0] == 0 and page_title(root, "index.html") == "Bommed"
    for name, text in [("empty", ""), ("comments", "# one\n   # two\n"), ("crlfcom", "# x\r\n")]:
        root = make(tmp_path / name, text)
        assert build(dossier_bin, root)[0] == 0 and page_title(root, "index.html") == name
    refused(dossier_bin, make(tmp_path / "list", "description: d\ntitle:\n  - a\n"), "dossier.yml:3: ", "title")


def test_second_document_tab_indent_and_undefined_alias(dossier_bin, tmp_path):
    refused(dossier_bin, make(tmp_path / "a", "title: a\n# c\n---\ntitle: b\n"), "dossier.yml:3: ",
            "^invalid YAML: but found another document")
    refused(dossier_bin, make(tmp_path / "b", "title: a\nmarkdown:\n\tsmart: true\n"), "dossier.yml:3: ",
            "^invalid YAML: found character that cannot start any token")
    refused(dossier_bin, make(tmp_path / "c", "title: a\n\ndescription: *nope\n"), "dossier.yml:3: ",
            "^invalid YAML: found undefined alias")


@pytest.mark.parametrize("raw,title", [("!!str 12", "12"), ("!custom hi", "hi"), ("'null'", "null"),
                                       ('"null"', "null"), ("~", None), ("null", None), ("Null", None),
                                       ("NULL", None), ("", None), ("!!null x", None), ("nULL", "nULL"),
                                       ("&a Hello", "Hello"), ("0x1F", "0x1F"), ("1e3", "1e3")])
def test_scalars_are_text_and_nulls_are_null(dossier_bin, tmp_path, raw, title):
    root = make(tmp_path / "folder", f"title: {raw}\n")
    assert build(dossier_bin, root)[0] == 0
    assert page_title(root, "index.html") == (title or "folder")    # null → the default, the folder name


def test_alias_is_latest_anchor_and_merge_key_is_ordinary(dossier_bin, tmp_path):
    root = make(tmp_path / "p", "title: &t First\ncontent: &t Second\ndescription: *t\n")
    assert build(dossier_bin, root)[0] == 0
    assert '<meta name="description" content="Second">' in (root / "_site/index.html").read_text()
    refused(dossier_bin, make(tmp_path / "m", "title: T\n<<: {title: x}\n"), "dossier.yml:2: ", "unknown key '<<'")


def test_duplicate_keys_text_compared_first_in_byte_order(dossier_bin, tmp_path):
    refused(dossier_bin, make(tmp_path / "a", "title: A\ndescription: d\n\ntitle: B\n"), "dossier.yml:4: ",
            r"^duplicate key 'title' \(first at line 1\)$")
    refused(dossier_bin, make(tmp_path / "b", '1: x\n"1": y\n'), "dossier.yml:2: ", r"^duplicate key '1'")
    keys = random.Random(7).sample(["zeta", "beta", "Alpha", "gamma", "delta", "_u", "Éa"], 5)
    lines = keys + keys[::-1]                 # every key repeated, the repeats in reverse order
    first = min(keys, key=lambda k: k.encode())
    others = sorted((k for k in keys if k != first), key=lambda k: k.encode())
    where = f"dossier.yml:{len(keys) + keys[::-1].index(first) + 1}: "
    msg = f"duplicate key '{first}' (first at line {keys.index(first) + 1}); also repeated: "
    line = refused(dossier_bin, make(tmp_path / "c", "".join(f"{k}: 1\n" for k in lines)), where,
                   "^" + re.escape(msg))
    assert sorted(line.split("also repeated: ")[1].split(", ")) == sorted(others)


def test_alias_expansion_limit_exactly_100000(dossier_bin, tmp_path):
    # root mapping 1, title entry + value 2, z entry 1 + list 1 + n items: 100000 allowed, 100001 refused
    for n, ok in [(100000 - 5, True), (100000 - 4, False)]:
        root = make(tmp_path / f"n{n}", "title: T\n\nz: [" + ",".join(["1"] * n) + "]\n")
        rc, err = build(dossier_bin, root)
        if ok:
            assert "more than 100000 values" not in err
        else:
            assert rc == 1 and "dossier.yml:3: YAML aliases expand to more than 100000 values" in err
    bomb = "".join(f"{c}: &{c} [" + ",".join([f"*{p}"] * 10 if p else ["x"] * 10) + "]\n"
                   for p, c in zip([None, "a", "b", "c", "d", "e", "f", "g", "h"], "abcdefghi"))
    # counts: a 1+1+10, b 1+1+10*11, ... the first to pass 100000 (with what went before) is e, line 5
    refused(dossier_bin, make(tmp_path / "bomb", bomb), "dossier.yml:5: ", "more than 100000 values")


# ---------------------------------------------------------------- unknown keys and "did you mean"
TYPOS = ["recal", "titel", "des", "descripton", "ouptut", "Title", "s", "ti", "cs", "arch", "xyzzy", "base-url",
         "contents", "sm", "gme", "expereinces", "valut", "markdwon", "c"]


@pytest.mark.parametrize("typo", TYPOS)
def test_unknown_top_level_key_with_computed_suggestion(dossier_bin, tmp_path, typo):
    known = DOC_TOP | SECTIONS
    line = refused(dossier_bin, make(tmp_path / "p", f"title: T\n\n{typo}: 1\n"), "dossier.yml:3: ",
                   f"^unknown key '{re.escape(typo)}'")
    want = suggestions(typo, sorted(known))
    got = re.findall(r"'([^']*)'", line.split("did you mean", 1)[1].split("(known")[0]) if "did you" in line else []
    assert sorted(got) == sorted(want)
    assert [dl(typo, k) for k in got] == sorted(dl(typo, k) for k in got)        # closest first


def test_known_list_is_the_documented_keys(dossier_bin, tmp_path):
    line = refused(dossier_bin, make(tmp_path / "p", "recal: 1\n"), "dossier.yml:1: ")
    assert set(line.split("(known: ")[1].rstrip(")").split(", ")) == DOC_TOP | SECTIONS


@pytest.mark.parametrize("block,typo,known", [("markdown", "smrt", {"smart", "unsafe"}), ("csv", "bomb", {"bom"}),
                                              ("markdown", "UNSAFE", {"smart", "unsafe"})])
def test_unknown_key_in_markdown_and_csv(dossier_bin, tmp_path, block, typo, known):
    root = make(tmp_path / "p", f"title: T\r\n{block}:\r\n\r\n  {typo}: true\r\n")
    line = refused(dossier_bin, root, "dossier.yml:4: ", f"^{block}: unknown key '{typo}'")
    assert set(line.split("(known: ")[1].rstrip(")").split(", ")) == known
    want = suggestions(typo, sorted(known))
    assert (f"did you mean '{want[0]}'" in line) if want else ("did you mean" not in line)


# ---------------------------------------------------------------- front matter
FM_BAD = [("sumary: s\n", r"front matter: unknown key 'sumary'; did you mean 'summary'\?"),
          ("weight: 1.5\n", "weight"), ("weight: abc\n", "weight"), ("draft: maybe\n", "draft"), ("toc: 3\n", "toc"),
          ("title: [a]\n", "title"), ("\tbad: 1\n", "^invalid YAML")]


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
@pytest.mark.parametrize("line,pattern", FM_BAD)
def test_front_matter_refusals_at_the_file_line(dossier_bin, tmp_path, line, pattern, eol):
    text = f"---\ntitle: X\n# comment\n{line}---\n# X\n".replace("\n", eol)
    root = make(tmp_path / "p", "title: T\n", {"content/sub/x.md": text})
    refused(dossier_bin, root, "content/sub/x.md:4: ", pattern)


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_front_matter_duplicate_names_file_lines(dossier_bin, tmp_path, eol):
    lines = ["---", "title: X", "summary: s", "", "title: Y", "---"]
    first, again = (i for i, ln in enumerate(lines, 1) if ln.startswith("title:"))
    root = make(tmp_path / "p", "title: T\n", {"content/x.md": eol.join(lines) + eol})
    refused(dossier_bin, root, f"content/x.md:{again}: ", rf"^duplicate key 'title' \(first at line {first}\)")


def test_front_matter_defaults_and_drafts(dossier_bin, tmp_path):
    files = {"content/plain.md": "no heading here\n", "content/d.md": "---\ndraft: true\n---\n# D\n",
             "content/h.md": "intro\n\n# The Heading\n", "content/bom.md": b"\xef\xbb\xbf# B\n",
             "content/e.md": ""}
    root = make(tmp_path / "p", "title: T\n", files)
    assert build(dossier_bin, root)[0] == 0
    assert not (root / "_site/d").exists() and (root / "_site/e/index.html").is_file()
    assert page_title(root, "h/index.html") == "The Heading · T" and page_title(root, "bom/index.html") == "B · T"
    assert build(dossier_bin, root, "--drafts")[0] == 0 and (root / "_site/d/index.html").is_file()


def test_front_matter_after_a_bom(dossier_bin, tmp_path):
    root = make(tmp_path / "p", "title: T\n", {"content/b.md": b"\xef\xbb\xbf---\ntitle: B\nweight: x\n---\n"})
    refused(dossier_bin, root, "content/b.md:3: ", "weight")
    (root / "content/b.md").write_bytes(b"\xef\xbb\xbf---\ntitle: Bommed\n---\nbody text\n")
    assert build(dossier_bin, root)[0] == 0 and page_title(root, "b/index.html") == "Bommed · T"
    html = (root / "_site/b/index.html").read_text()
    assert "body text" in html and "title: Bommed" not in html


@pytest.mark.parametrize("rel", ["my-file_name.md", "a/index.md", "x/élan_vital-2.markdown"])
def test_title_default_is_the_file_name(dossier_bin, tmp_path, rel):
    root = make(tmp_path / "p", "title: T\n", {f"content/{rel}": "text\n"})
    assert build(dossier_bin, root)[0] == 0
    stem = rel.rsplit(".", 1)[0].removesuffix("/index")
    words = stem.rsplit("/", 1)[-1].replace("-", " ").replace("_", " ")
    assert page_title(root, f"{stem}/index.html") == f"{words[:1].upper() + words[1:]} · T"


@pytest.mark.parametrize("md", ["#\tTabbed\n", "   # Tabbed\n"])
def test_title_from_any_atx_heading(dossier_bin, tmp_path, md):
    root = make(tmp_path / "p", "title: T\n", {"content/z.md": md})
    assert build(dossier_bin, root)[0] == 0
    assert '<h1 id="tabbed">' in (root / "_site/z/index.html").read_text()
    assert page_title(root, "z/index.html") == "Tabbed · T"


def toc_shown(root, page):
    return '<nav class="toc"' in (root / "_site" / page).read_text()

def test_toc_default_needs_two_headings_of_level_2_3(dossier_bin, tmp_path):
    files = {"content/a.md": "# A\n## x\n### y\n", "content/b.md": "# B\n## x\n#### y\n#### z\n",
             "content/c.md": "---\ntoc: false\n---\n# C\n## x\n## y\n"}
    root = make(tmp_path / "p", "title: T\n", files)
    assert build(dossier_bin, root)[0] == 0
    assert [toc_shown(root, f"{n}/index.html") for n in "abc"] == [True, False, False]


def test_toc_true_is_the_default(dossier_bin, tmp_path):
    bodies = ["# V\n## only\n", "# V\n## one\n### two\n", "# V\n## one\n#### deep\n", "# V\n"]
    files = {f"content/{fm}{i}.md": (f"---\ntoc: {fm}\n---\n" if fm != "d" else "") + body
             for i, body in enumerate(bodies) for fm in ("true", "d")}
    root = make(tmp_path / "p", "title: T\n", files)
    assert build(dossier_bin, root)[0] == 0
    for i, body in enumerate(bodies):
        want = len(re.findall(r"^#{2,3} ", body, re.M)) >= 2
        assert toc_shown(root, f"true{i}/index.html") == toc_shown(root, f"d{i}/index.html") == want, body


def test_navigation_at_most_8_by_weight_title_then_all_pages(dossier_bin, tmp_path):
    rnd = random.Random(3)
    pages = [(f"p{i}", rnd.randint(-2, 2), f"Page {rnd.choice('ABC')}{i % 3}") for i in range(12)]
    files = {f"content/{s}.md": f"---\nweight: {w}\ntitle: {t}\n---\n" for s, w, t in pages}
    files["content/deep/x.md"] = "---\nweight: -9\n---\n"
    root = make(tmp_path / "p", "title: T\n", files)
    assert build(dossier_bin, root)[0] == 0
    want = [f"{s}/index.html" for s, w, t in sorted(pages, key=lambda p: (p[1], p[2], f"content/{p[0]}.md"))][:8]
    nav = re.search(r'<ul class="nav-wide">(.*?)</ul>', (root / "_site/index.html").read_text(), re.S).group(1)
    hrefs = re.findall(r'href="([^"]*)"', nav)
    assert hrefs[0] == "index.html" and hrefs[1:9] == want and hrefs[9:] == ["index.html#pages-heading"]


# ---------------------------------------------------------------- dossier new
def new(binary, root, *args):
    return subprocess.run([binary, "new", str(root), *args], capture_output=True, text=True, timeout=60)


def test_new_writes_the_documented_files_and_builds(dossier_bin, tmp_path):
    root = tmp_path / "my-study"
    r = new(dossier_bin, root)
    assert r.returncode == 0
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert files == ["content/index.md", "content/methods.md", "dossier.yml", "templates/README.md"]
    yml = (root / "dossier.yml").read_text()
    for kind in ["recall", "experiences", "vault", "sms", "game", "archive"]:
        assert re.search(rf"^# {kind}:", yml, re.M), kind
    assert re.search(r"^#\s+kit: true", yml, re.M)
    methods = (root / "content/methods.md").read_text()
    assert re.search(r"^\|.*\|$", methods, re.M) and re.search(r"^- \[[ x]\] ", methods, re.M)
    assert f"Created {root}. Next: dossier build {root}" in r.stdout + r.stderr
    assert build(dossier_bin, root)[0] == 0


def test_new_never_overwrites_and_finishes_a_partial_run(dossier_bin, tmp_path):
    root = tmp_path / "s"
    assert new(dossier_bin, root).returncode == 0
    r = new(dossier_bin, root)
    assert r.returncode == 1
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    (root / "dossier.yml").unlink()
    del before[root / "dossier.yml"]
    (root / "content/index.md").write_text("mine\n")
    (root / "templates/README.md").write_text("mine too\n")
    r = new(dossier_bin, root)
    out = r.stdout + r.stderr
    assert r.returncode == 1 and not (root / "dossier.yml").exists()
    for rel in ["content/index.md", "templates/README.md"]:
        assert f"{rel}: already exists; `dossier new` never overwrites a file" in out
    assert "nothing was written; move these away, or make the project in an empty or new folder" in out
    (root / "content/index.md").write_bytes(before[root / "content/index.md"])
    (root / "templates/README.md").write_bytes(before[root / "templates/README.md"])
    assert new(dossier_bin, root).returncode == 0 and (root / "dossier.yml").is_file()


@pytest.mark.parametrize("kind,block,paths", [
    ("recall-kit", "recall", ["data/recall/strings.txt", "data/recall/logs/"]),
    ("experiences", "experiences", ["data/experiences/"]),
    ("vault", "vault", ["data/vault/"]), ("sms", "sms", ["data/sms/"])])
def test_new_with_kind(dossier_bin, tmp_path, kind, block, paths):
    root = tmp_path / unicodedata.normalize("NFC", "étude")
    assert new(dossier_bin, root, "--with", kind).returncode == 0
    assert re.search(rf"^{block}:\s*$", (root / "dossier.yml").read_text(), re.M)
    for p in paths:
        f = root / p
        assert (f.is_dir() and not any(f.iterdir())) if p.endswith("/") else f.stat().st_size > 0
