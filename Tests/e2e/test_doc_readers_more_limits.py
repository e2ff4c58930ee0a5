"""docs/limits.md, from the document alone: every maximum at and one past it.

Files over a maximum are made sparse (`truncate`), since the size is taken with `stat`
before the file is read; files at a maximum are real bytes.  A refusal is exit status 1,
a message naming the file, and nothing written.
"""
import os
import re
import time

import pytest

from test_doc_readers import run

MIB = 1024 * 1024


def sparse(path, size):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)


@pytest.fixture
def project(tmp_path):
    r = run("new", tmp_path / "p")
    assert r.returncode == 0, r.stderr
    return tmp_path / "p"


def build(project):
    r = run("build", project)
    return r, r.stderr.decode("utf-8", "replace") + r.stdout.decode("utf-8", "replace")


def assert_refused(project, pattern):
    r, out = build(project)
    assert r.returncode == 1, out
    assert re.search(pattern, out), out
    assert not (project / "_site").exists(), "nothing is written"


def padded(text: bytes, size: int, filler=b"#"):
    assert len(text) < size
    return text + filler * (size - len(text) - 1) + b"\n"


@pytest.mark.parametrize("size,ok", [(MIB, True), (MIB + 1, False), (2 ** 31, False)])
def test_dossier_yml_maximum(project, size, ok):
    yml = project / "dossier.yml"
    if size > 4 * MIB:
        sparse(yml, size)
    else:
        yml.write_bytes(padded(b'title: "p"\n', size))
    if ok:
        r, out = build(project)
        assert r.returncode == 0, out
    else:
        assert_refused(project, rf"dossier\.yml: dossier\.yml is {size} bytes, more than the maximum of 1 MiB "
                                r"\(docs/limits\.md\)")


@pytest.mark.parametrize("size,ok", [(8 * MIB, True), (8 * MIB + 1, False), (2 ** 31, False)])
def test_content_page_maximum(project, size, ok):
    page = project / "content" / "big.md"
    if ok:
        line = b"word " * 19 + b"\n\n"
        body = b"# Big\n\n" + line * ((size - 8) // len(line))
        page.write_bytes(body + b"w" * (size - len(body) - 1) + b"\n")
        assert page.stat().st_size == size
        r, out = build(project)
        assert r.returncode == 0, out
    else:
        sparse(page, size)
        assert_refused(project, rf"content/big\.md: a content page is {size} bytes, more than the maximum of 8 MiB "
                                r"\(docs/limits\.md\)")


def front_matter_page(project, n):
    """A page whose front matter (after the first `---` line, up to and including the line
    break before the closing one) is n bytes."""
    inner = padded(b"title: FM\n", n)   # a YAML comment pads it
    inner = inner[:10] + b"#" + inner[11:]
    (project / "content" / "fm.md").write_bytes(b"---\n" + inner + b"---\n\nText.\n")


def test_front_matter_at_64_kib_is_read(project):
    front_matter_page(project, 65536)
    r, out = build(project)
    assert r.returncode == 0, out


def test_front_matter_over_64_kib_is_refused_at_line_1(project):
    front_matter_page(project, 71690)
    r, out = build(project)
    assert r.returncode == 1
    m = re.search(r"content/fm\.md:1: front matter is (\d+) bytes, more than the maximum of 64 KiB "
                  r"\(docs/limits\.md\)", out)
    assert m and int(m.group(1)) in (71689, 71690), out   # with or without the last line break
    assert not (project / "_site").exists()


def test_front_matter_one_byte_over_is_refused(project):
    front_matter_page(project, 65538)
    assert_refused(project, r"content/fm\.md:1: front matter is 6553[78] bytes")


@pytest.mark.parametrize("size,ok", [(MIB, True), (MIB + 1, False)])
def test_template_maximum(project, size, ok):
    tpl = project / "templates" / "extra.mustache"
    tpl.write_bytes(padded(b"<p>{{title}}</p>\n", size, b"x"))
    r, out = build(project)
    if ok:
        assert r.returncode == 0, out
    else:
        assert r.returncode == 1 and "extra.mustache" in out, out
        assert not (project / "_site").exists()


@pytest.mark.parametrize("size", [256 * MIB + 1, 2 ** 31])
def test_vault_file_maximum(tmp_path, size):
    v = tmp_path / "big.dvault"
    sparse(v, size)
    r = run("vault", "list", v)
    err = r.stderr.decode()
    assert r.returncode == 1
    assert re.search(rf"big\.dvault: the vault file is {size} bytes, more than the maximum of 256 MiB", err), err


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_vault_path_that_is_not_a_file(tmp_path, kind):
    v = tmp_path / "v.dvault"
    if kind == "folder":
        v.mkdir()
        words = "is a folder, not a vault file: name the vault file itself"
    else:
        os.mkfifo(v)
        words = "is a special file (a device, pipe or socket)"
    r = run("vault", "list", v)
    assert r.returncode == 1
    assert f"{v}: {words}" in r.stderr.decode(), r.stderr


@pytest.mark.parametrize("size", [256 * MIB + 1, 2 ** 33])
def test_a_recall_log_over_256_mib_is_refused_before_it_is_read(tmp_path, size):
    log = tmp_path / "logs" / "p1.jsonl"
    sparse(log, size)
    start = time.monotonic()
    r = run("recall", "parse", log)
    assert r.returncode == 1
    assert "p1.jsonl" in r.stderr.decode(), r.stderr
    assert time.monotonic() - start < 5, "refused before it is read"


def test_a_recall_log_in_a_build_over_the_maximum(project):
    logs = project / "data" / "recall" / "logs"
    sparse(logs / "S001.jsonl", 256 * MIB + 1)
    r = run("recall", "simulate", "--participants", "1", "--seed", "1", "--out", project / "data" / "recall" / "sim")
    assert r.returncode == 0, r.stderr
    os.replace(project / "data" / "recall" / "sim" / "strings.txt", project / "data" / "recall" / "strings.txt")
    yml = project / "dossier.yml"
    yml.write_text(yml.read_text() + "recall:\n  strings: data/recall/strings.txt\n  logs: data/recall/logs\n")
    r, out = build(project)
    assert r.returncode == 1 and "S001.jsonl" in out, out
    assert not (project / "_site").exists()
