"""docs/output-manifest.md, re-implemented from the page alone and compared with `dossier build`.

The site manifest `<output>.manifest.json` is rebuilt here from the bytes on disk (every
file of the site, SHA-256, size, sorted by UTF-8 bytes, written as docs/json-and-csv.md
says) and compared byte for byte; the inputs are the files the docs say a build reads.
Also: `sitemap.xml`, the lock file and its waiting line, the `.incomplete` marker, the
debris of killed builds and which output folder a build may replace. Projects use hostile
names (control characters, `%`, quotes, non-ASCII, NFD, very long, symbolic links, empty
files). Helpers here are shared with `test_doc_output_manifest_more.py` (docs/archive.md).
"""
import hashlib
import os
import pathlib
import shutil
import subprocess
import unicodedata

import pytest

from conftest import dossier_path

BIN = dossier_path()
DEAD_PID = 999999999  # above any pid_max: kill(pid, 0) fails with ESRCH


def dossier(*args, cwd=None, env=None, timeout=60):
    """Run dossier; stdout/stderr decoded leniently, `out` is both."""
    full = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "DOSSIER_FAULT_AT",
                                                                 "DOSSIER_PAUSE_AT")}
    if env:
        full.update(env)
    proc = subprocess.run([BIN, *map(str, args)], cwd=cwd, env=full, capture_output=True, timeout=timeout)
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    proc.out = proc.stdout + proc.stderr
    return proc


def ok(*args, **kw):
    proc = dossier(*args, **kw)
    assert proc.returncode == 0, f"dossier {args} exited {proc.returncode}:\n{proc.out}"
    return proc


VERSION = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout.strip()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def bkey(path: str) -> bytes:
    """UTF-8 byte order, the order the docs name."""
    return path.encode("utf-8", "surrogateescape")


# MARK: - docs/json-and-csv.md's JSON writer

def json_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ch in "\u2028\u2029":
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def json_value(v, indent: int) -> str:
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json_string(v)
    if isinstance(v, list):
        if not v:
            return "[]"
        return "[\n" + ",\n".join(inner + json_value(x, indent + 1) for x in v) + "\n" + pad + "]"
    keys = sorted(v, key=bkey)
    if not keys:
        return "{}"
    return "{\n" + ",\n".join(f"{inner}{json_string(k)}: {json_value(v[k], indent + 1)}" for k in keys) \
        + "\n" + pad + "}"


def manifest_text(files, inputs) -> bytes:
    """The manifest as output-manifest.md + json-and-csv.md describe it; files/inputs: (path, bytes)."""
    def entries(pairs):
        return [{"path": p, "sha256": sha256(b), "size": len(b)} for p, b in sorted(pairs, key=lambda e: bkey(e[0]))]
    doc = {"dossier": VERSION, "files": entries(files), "inputs": entries(inputs)}
    return (json_value(doc, 0) + "\n").encode("utf-8", "surrogateescape")


# MARK: - files on disk

def regular_files(root: pathlib.Path, prefix: str = ""):
    """(relative path with '/', bytes) of every regular file under root; symbolic links not followed."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            full = os.path.join(dirpath, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            found.append((prefix + rel, pathlib.Path(full).read_bytes()))
    return found


def tree_state(root: pathlib.Path):
    """Every entry under root (hidden ones too): type, bytes or link target, inode, mtime_ns of files."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            if os.path.islink(full):
                what = ("link", os.readlink(full))
            elif os.path.isdir(full):
                what = ("dir", None)
            else:
                what = ("file", pathlib.Path(full).read_bytes())
            # a folder's mtime is left out: a refused archive may make and remove its work folder
            state[os.path.relpath(full, root)] = (what, st.st_ino, None if what[0] == "dir" else st.st_mtime_ns)
    return state


def make_project(root: pathlib.Path, yml: str = "title: T\n", content=None, static=None, templates=None):
    """A project; content/static/templates map relative paths to bytes or str (a str starting
    with '->' makes a symbolic link to the rest)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "dossier.yml").write_text(yml, encoding="utf-8")
    for folder, files in (("content", content), ("static", static), ("templates", templates)):
        for rel, data in (files or {}).items():
            path = root / folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, str) and data.startswith("->"):
                os.symlink(data[2:], path)
            else:
                path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return root


def expected_inputs(project: pathlib.Path):
    """dossier.yml, content pages, template overrides (*.mustache) and static files (symbolic links
    skipped), relative to the project folder."""
    pairs = [("dossier.yml", (project / "dossier.yml").read_bytes())]
    pairs += [(p, b) for p, b in regular_files(project / "content", "content/") if p.endswith((".md", ".markdown"))]
    if (project / "templates").is_dir():
        pairs += [(p, b) for p, b in regular_files(project / "templates", "templates/") if p.endswith(".mustache")]
    if (project / "static").is_dir():
        pairs += regular_files(project / "static", "static/")
    return pairs


def assert_manifest_matches_disk(project: pathlib.Path, output: str = "_site"):
    site = project / output
    want = manifest_text(regular_files(site), expected_inputs(project))
    got = (project / f"{output}.manifest.json").read_bytes()
    assert got == want, "manifest differs from the documented one:\n" + _first_diff(got, want)


def _first_diff(got: bytes, want: bytes) -> str:
    g, w = got.decode("utf-8", "replace").splitlines(), want.decode("utf-8", "replace").splitlines()
    for i, (a, b) in enumerate(zip(g, w)):
        if a != b:
            return f"line {i + 1}: program {a!r}\n        docs    {b!r}"
    return f"lengths: program {len(g)} lines, docs {len(w)} lines"


HOSTILE_STATIC = {
    "sp ace.txt": b"x", "100%.txt": b"percent", "a\nb.txt": b"lf", "a b.txt": b"space",
    "c\rd.txt": b"cr", 'q"b.txt': b"quote", "t\tab.txt": b"tab",
    "c\x01.txt": b"ctl", "u\u2028.txt": b"ls", "\U0001F600.txt": b"emoji", "\uFF5E.txt": b"fullwidth",
    "it's.txt": b"apos", "a&b.txt": b"amp", "empty.txt": b"", "L" * 250 + ".txt": b"long",
    "sub/deeper/z.bin": bytes(range(256)) * 3, "sub/ü/ß.txt": "ünïcödé\n",
    "link.txt": "->empty.txt", "linkdir": "->sub",
}
HOSTILE_CONTENT = {
    "index.md": "# Home\n\nHello.\n", "sp ace.md": "# Space\n", "ünï.md": "# Uni\n", "a&b.md": "x\n",
    "deep/inner.md": "---\ntitle: Inner\n---\nbody\n", "empty.md": b"",
}


@pytest.fixture
def hostile(tmp_path):
    project = make_project(tmp_path / "hostile project ü", content=HOSTILE_CONTENT, static=HOSTILE_STATIC,
                           templates={"page.mustache": "<main>{{{content}}}</main>\n", "README.md": "notes\n"})
    ok("build", project, "-q")
    return project


# MARK: - the manifest

def test_manifest_of_hostile_project_is_byte_for_byte_the_documented_one(hostile):
    site = hostile / "_site"
    assert_manifest_matches_disk(hostile)
    # static files copied as they are; symbolic links skipped (not in the site, not inputs)
    for rel, data in HOSTILE_STATIC.items():
        if isinstance(data, str) and data.startswith("->"):
            assert not os.path.lexists(site / rel), rel
        else:
            want = data if isinstance(data, bytes) else data.encode()
            assert (site / rel).read_bytes() == want, rel
    text = (hostile / "_site.manifest.json").read_text(encoding="utf-8")
    assert '"static/templates' not in text and "templates/README.md" not in text
    assert "\\u0001" in text and "\\u2028" in text and '\\"' in text and "\\t" in text  # escaper of json-and-csv
    assert "\\u00e9" not in text and "ü" in text  # non-ASCII raw UTF-8


def test_same_inputs_give_the_same_manifest_in_another_folder_and_with_clean(hostile, tmp_path):
    first = (hostile / "_site.manifest.json").read_bytes()
    copy = tmp_path / "elsewhere" / "copy"
    shutil.copytree(hostile, copy, symlinks=True,
                    ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier", "._site.lock"))
    ok("build", copy, "-q")
    assert (copy / "_site.manifest.json").read_bytes() == first
    ok("build", hostile, "-q", "--clean")
    assert (hostile / "_site.manifest.json").read_bytes() == first


NFD_STATIC = {"e\u0301x.txt": b"nfd", "f.txt": b"f", "zz.txt": b"z"}


def test_nfd_names_are_sorted_by_their_utf8_bytes(tmp_path):
    project = make_project(tmp_path / "p", static=NFD_STATIC)
    ok("build", project, "-q")
    assert_manifest_matches_disk(project)


def test_nfd_name_is_listed_in_its_own_bytes(tmp_path):
    project = make_project(tmp_path / "p", static=NFD_STATIC)
    ok("build", project, "-q")
    raw = (project / "_site.manifest.json").read_bytes()
    assert b'"path": "e\xcc\x81x.txt"' in raw and b'"path": "static/e\xcc\x81x.txt"' in raw
    assert "\u00e9x.txt".encode() not in raw  # never normalised to NFC


# manifest.md, static/: a name holding '\\' is refused, and so is one differing from another only in
# Unicode normalization (the second in byte order of the full path named); a failed build leaves the site
# byte-identical (output-manifest.md, "How a build replaces the site").
BACKSLASH_MSG = ("{p}: static file names may not contain '\\' (a folder separator in zip files and on Windows: "
                 "the site could not be archived); rename the file")
NORM_MSG = ("{p}: its name differs from {q} only in Unicode normalization (NFC and NFD spellings of one name: "
            "one file on some file systems); rename one")


def assert_refused_leaving_the_site(project, add, line):
    """Build without `add`, add it, build again: exit 1, `line` printed, the site untouched."""
    ok("build", project, "-q")
    before = tree_state(project / "_site"), (project / "_site.manifest.json").read_bytes()
    for rel, data in add.items():
        (project / "static" / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / "static" / rel).write_bytes(data)
    proc = dossier("build", project, "-q")
    assert proc.returncode == 1, proc.out
    assert line in proc.stderr.splitlines(), proc.out
    assert (tree_state(project / "_site"), (project / "_site.manifest.json").read_bytes()) == before
    assert not [n for n in os.listdir(project) if "staging" in n]


@pytest.mark.parametrize("rel", ["b\\s.txt", "a\\b/c.txt", "sub/\\"], ids=["file", "folder", "only"])
def test_a_static_name_with_a_backslash_is_refused(tmp_path, rel):
    project = make_project(tmp_path / "p", static={"ok.txt": b"ok"})
    assert_refused_leaving_the_site(project, {rel: b"backslash"}, BACKSLASH_MSG.format(p="static/" + rel))


@pytest.mark.parametrize("nfc", ["caf\u00e9.txt", "d/caf\u00e9.txt", "\u00e9/x.txt"],
                         ids=["file", "in-folder", "folder"])
def test_static_names_differing_only_in_normalization_are_refused(tmp_path, nfc):
    nfd = unicodedata.normalize("NFD", nfc)
    first, second = sorted(["static/" + nfc, "static/" + nfd], key=bkey)
    project = make_project(tmp_path / "p", static={nfc: b"nfc"})
    assert_refused_leaving_the_site(project, {nfd: b"nfd"}, NORM_MSG.format(p=second, q=first))


def test_the_normalization_example_names_the_nfd_spelling_after_from(tmp_path):
    """manifest.md's example: for NFD 'cafe' + U+0301 '.txt' and NFC 'café.txt', the NFC path (later in byte
    order) is named first and the NFD one after 'from'."""
    project = make_project(tmp_path / "p", static={"caf\u00e9.txt": b"nfc", "cafe\u0301.txt": b"nfd"})
    proc = dossier("build", project, "-q")
    assert proc.returncode == 1
    assert "static/caf\u00e9.txt: its name differs from static/cafe\u0301.txt only in Unicode normalization" \
        in proc.stderr, proc.stderr


def test_no_change_build_leaves_the_manifest_file_alone(hostile):
    mpath = hostile / "_site.manifest.json"
    before = os.stat(mpath)
    beside = sorted(os.listdir(hostile))
    ok("build", hostile, "-q")
    after = os.stat(mpath)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert sorted(os.listdir(hostile)) == beside  # no temp file, no marker left


def test_changing_build_rewrites_manifest_and_patch_keeps_unchanged_files(hostile):
    site = hostile / "_site"
    kept = os.stat(site / "sp ace.txt")
    (hostile / "content" / "sp ace.md").write_text("# Space\n\nNew text.\n")
    (hostile / "static" / "100%.txt").write_bytes(b"changed percent")
    os.unlink(site / "a&b.txt")  # a kept file deleted by hand is written again
    ok("build", hostile, "-q")
    assert_manifest_matches_disk(hostile)
    assert (site / "a&b.txt").read_bytes() == b"amp"
    now = os.stat(site / "sp ace.txt")
    assert (now.st_ino, now.st_mtime_ns) == (kept.st_ino, kept.st_mtime_ns)
    assert not (hostile / "_site.manifest.json.incomplete").exists()
    assert not [n for n in os.listdir(hostile) if "staging" in n or ".old-" in n]


def test_file_edited_inside_the_site_stays_edited_until_clean(hostile):
    page = hostile / "_site" / "deep" / "inner" / "index.html"
    original = page.read_bytes()
    page.write_bytes(original + b"<!-- hand edit -->")
    ok("build", hostile, "-q")
    assert page.read_bytes().endswith(b"<!-- hand edit -->")
    ok("build", hostile, "-q", "--clean")
    assert page.read_bytes() == original
    assert_manifest_matches_disk(hostile)


def test_secret_input_is_neither_listed_nor_hashed_anywhere(tmp_path):
    demo = pathlib.Path(__file__).resolve().parents[2] / "Examples" / "demo" / "data" / "vault"
    project = make_project(tmp_path / "v", yml="title: V\nvault:\n  vault: data/vault/demo.dvault\n"
                           "  password_file: data/vault/demo-password.txt\n  as_of: 2026-01-01\n")
    (project / "data" / "vault").mkdir(parents=True)
    for name in ("demo.dvault", "demo-password.txt"):
        shutil.copy(demo / name, project / "data" / "vault" / name)
    ok("build", project, "-q")
    inputs = [("dossier.yml", (project / "dossier.yml").read_bytes()),
              ("data/vault/demo.dvault", (project / "data/vault/demo.dvault").read_bytes())]
    want = manifest_text(regular_files(project / "_site"), inputs)
    assert (project / "_site.manifest.json").read_bytes() == want
    pw = (project / "data/vault/demo-password.txt").read_bytes()
    forms = set()
    for text in (pw, pw.splitlines()[0], pw.strip()):
        digest = hashlib.sha256(text).digest()
        forms |= {digest, digest.hex().encode(), digest.hex().upper().encode()}
    blobs = [(project / "_site.manifest.json").read_bytes()]
    blobs += [p.read_bytes() for p in (project / ".dossier").rglob("*") if p.is_file()]
    blobs += [b for _, b in regular_files(project / "_site")]
    for blob in blobs:
        for form in forms:
            assert form not in blob
    for state in (project / ".dossier").glob("state-*.bin"):  # no stamp: its path is not in the state
        assert b"demo-password.txt" not in state.read_bytes()




def test_nfd_content_page_is_listed_in_its_own_bytes(tmp_path):
    nfd = unicodedata.normalize("NFD", "résumé.md")
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n", nfd: "x\n"})
    ok("build", project, "-q")
    assert_manifest_matches_disk(project)
    assert "content/r\u00e9sum\u00e9.md".encode() not in (project / "_site.manifest.json").read_bytes()
