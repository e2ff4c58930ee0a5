"""docs/limits.md: the maximum sizes exactly at and one past each boundary, the
documented messages (run from the project folder, as the doc's examples are), exit
status 1 and nothing written; files outside the project."""
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DEMO = REPO / "Examples" / "demo" / "data" / "recall"
MiB, KiB = 1024 * 1024, 1024


def run(bin_, *args, cwd, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([bin_, *map(str, args)], cwd=cwd, env=e, capture_output=True, text=True, timeout=300)


def project(tmp_path, yml="title: L\n"):
    p = tmp_path / "proj"
    (p / "content").mkdir(parents=True)
    (p / "dossier.yml").write_text(yml)
    (p / "content/index.md").write_text("# Home\n")
    return p


def listing(p):
    return sorted(q.relative_to(p).as_posix() for q in p.rglob("*"))


def padded_yaml(size):
    head = "title: L\n"
    body = "#" + "x" * (size - len(head) - 2) + "\n"
    data = (head + body).encode()
    assert len(data) == size
    return data


def refused(proc, line):
    assert proc.returncode == 1, proc.stderr
    assert line in proc.stderr.splitlines(), proc.stderr


def nothing_built(p):
    assert not (p / "_site").exists() and not (p / "_site.manifest.json").exists()
    assert not (p / ".dossier").exists()


# MARK: - dossier.yml

def test_dossier_yml_of_exactly_one_mib_builds(dossier_bin, tmp_path):
    p = project(tmp_path)
    (p / "dossier.yml").write_bytes(padded_yaml(MiB))
    proc = run(dossier_bin, "build", cwd=p)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("size", [MiB + 1, 2147483648])
def test_dossier_yml_over_one_mib_is_refused_before_anything(dossier_bin, tmp_path, size):
    p = project(tmp_path)
    if size == MiB + 1:
        (p / "dossier.yml").write_bytes(padded_yaml(size))
    else:
        os.truncate(p / "dossier.yml", size)
    before = listing(p)
    proc = run(dossier_bin, "build", cwd=p)
    refused(proc, f"dossier.yml: dossier.yml is {size} bytes, more than the maximum of 1 MiB (docs/limits.md)")
    assert listing(p) == before, "nothing is written"


# MARK: - content pages and front matter

def test_a_content_page_of_exactly_eight_mib_builds(dossier_bin, tmp_path):
    p = project(tmp_path)
    head = b"# Big\n"
    (p / "content/big.md").write_bytes(head + b"\n" * (8 * MiB - len(head)))
    proc = run(dossier_bin, "build", cwd=p)
    assert proc.returncode == 0, proc.stderr
    assert (p / "_site/big/index.html").exists()


@pytest.mark.parametrize("size", [8 * MiB + 1, 2147483648])
def test_a_content_page_over_eight_mib_is_refused(dossier_bin, tmp_path, size):
    p = project(tmp_path)
    big = p / "content/big.md"
    if size == 8 * MiB + 1:
        big.write_bytes(b"# Big\n" + b"\n" * (size - 6))
    else:
        big.touch()
        os.truncate(big, size)
    proc = run(dossier_bin, "build", cwd=p)
    refused(proc, f"content/big.md: a content page is {size} bytes, more than the maximum of 8 MiB (docs/limits.md)")
    nothing_built(p)


def front_matter_page(n):
    """A page whose bytes between the `---` lines are exactly n."""
    head = b"title: x\n"
    body = head + b"#" + b"x" * (n - len(head) - 2) + b"\n"
    assert len(body) == n
    return b"---\n" + body + b"---\n# Page\n"


def test_front_matter_of_exactly_64_kib_is_read(dossier_bin, tmp_path):
    p = project(tmp_path)
    (p / "content/fm.md").write_bytes(front_matter_page(64 * KiB))
    proc = run(dossier_bin, "build", cwd=p)
    assert proc.returncode == 0, proc.stderr


def test_front_matter_over_64_kib_is_refused_at_line_1(dossier_bin, tmp_path):
    p = project(tmp_path)
    (p / "content/fm.md").write_bytes(front_matter_page(64 * KiB + 1))
    proc = run(dossier_bin, "build", cwd=p)
    refused(proc, "content/fm.md:1: front matter is 65537 bytes, more than the maximum of 64 KiB (docs/limits.md)")
    nothing_built(p)


def test_the_docs_front_matter_example(dossier_bin, tmp_path):
    p = project(tmp_path)
    (p / "content/fm.md").write_bytes(front_matter_page(71689))
    refused(run(dossier_bin, "build", cwd=p),
            "content/fm.md:1: front matter is 71689 bytes, more than the maximum of 64 KiB (docs/limits.md)")


def test_the_size_is_taken_through_a_symbolic_link(dossier_bin, tmp_path):
    p = project(tmp_path)
    (p / "big").mkdir()
    (p / "big/huge.md").write_bytes(b"# B\n" + b"\n" * (8 * MiB + 1 - 4))
    (p / "content/link.md").symlink_to("../big/huge.md")
    refused(run(dossier_bin, "build", cwd=p),
            "content/link.md: a content page is 8388609 bytes, more than the maximum of 8 MiB (docs/limits.md)")


@pytest.mark.parametrize("n,ok", [(64 * KiB, True), (64 * KiB + 1, False)])
def test_front_matter_bytes_with_crlf_lines_and_a_byte_order_mark(dossier_bin, tmp_path, n, ok):
    p = project(tmp_path)
    head = b"title: x\r\n"
    body = head + b"#" + b"x" * (n - len(head) - 3) + b"\r\n"
    (p / "content/fm.md").write_bytes(b"\xef\xbb\xbf---\r\n" + body + b"---\r\n# P\r\n")
    proc = run(dossier_bin, "build", cwd=p)
    if ok:
        assert proc.returncode == 0, proc.stderr
    else:
        refused(proc, f"content/fm.md:1: front matter is {n} bytes, more than the maximum of 64 KiB (docs/limits.md)")


# MARK: - templates

def template(n):
    head = b"<main>{{{content}}}</main>{{! "
    tail = b" }}"
    data = head + b"x" * (n - len(head) - len(tail)) + tail
    assert len(data) == n
    return data


def test_a_template_of_exactly_one_mib_is_used(dossier_bin, tmp_path):
    p = project(tmp_path)
    (p / "templates").mkdir()
    (p / "templates/page.mustache").write_bytes(template(MiB))
    (p / "content/a.md").write_text("# A\n\nword\n")
    proc = run(dossier_bin, "build", cwd=p)
    assert proc.returncode == 0, proc.stderr


def test_a_template_over_one_mib_is_refused(dossier_bin, tmp_path):
    p = project(tmp_path)
    (p / "templates").mkdir()
    (p / "templates/page.mustache").write_bytes(template(MiB + 1))
    proc = run(dossier_bin, "build", cwd=p)
    assert proc.returncode == 1
    line = [l for l in proc.stderr.splitlines() if l.startswith("templates/page.mustache")]
    assert line and "1048577 bytes" in line[0] and "maximum of 1 MiB" in line[0], proc.stderr
    nothing_built(p)


# MARK: - vault files and session logs

@pytest.mark.parametrize("size", [256 * MiB + 1, 2147483648])
def test_a_vault_file_over_256_mib_is_refused_before_it_is_read(dossier_bin, tmp_path, size):
    (tmp_path / "big.dvault").touch()
    os.truncate(tmp_path / "big.dvault", size)
    proc = run(dossier_bin, "vault", "list", "big.dvault", cwd=tmp_path, env={"DOSSIER_VAULT_PASSWORD": "x"})
    refused(proc, f"{tmp_path / 'big.dvault'}: the vault file is {size} bytes, more than the maximum of 256 MiB")


def test_a_vault_path_that_is_a_folder_or_a_pipe_is_refused(dossier_bin, tmp_path):
    (tmp_path / "v.dvault").mkdir()
    os.mkfifo(tmp_path / "p.dvault")
    env = {"DOSSIER_VAULT_PASSWORD": "x"}
    folder = run(dossier_bin, "vault", "list", tmp_path / "v.dvault", cwd=tmp_path, env=env)
    refused(folder, f"{tmp_path / 'v.dvault'}: is a folder, not a vault file: name the vault file itself")
    pipe = run(dossier_bin, "vault", "list", tmp_path / "p.dvault", cwd=tmp_path, env=env)
    assert pipe.returncode == 1
    assert pipe.stderr.startswith(f"{tmp_path / 'p.dvault'}: is a special file (a device, pipe or socket), "), pipe.stderr


def test_a_session_log_over_256_mib_is_refused_and_the_site_kept(dossier_bin, tmp_path):
    p = project(tmp_path, "title: L\nrecall:\n  strings: data/recall/strings.txt\n  logs: data/recall/logs\n")
    (p / "data/recall/logs").mkdir(parents=True)
    shutil.copy(DEMO / "strings.txt", p / "data/recall/strings.txt")
    shutil.copy(DEMO / "logs/S001.jsonl", p / "data/recall/logs/S001.jsonl")
    assert run(dossier_bin, "build", cwd=p).returncode == 0
    site = {q: q.read_bytes() for q in (p / "_site").rglob("*") if q.is_file()}
    manifest = (p / "_site.manifest.json").read_bytes()
    big = p / "data/recall/logs/S009.jsonl"
    big.touch()
    os.truncate(big, 256 * MiB + 1)
    proc = run(dossier_bin, "build", cwd=p)
    assert proc.returncode == 1
    line = [l for l in proc.stderr.splitlines() if l.startswith("data/recall/logs/S009.jsonl")]
    assert line and "268435457 bytes" in line[0] and "maximum of 256 MiB" in line[0], proc.stderr
    assert {q: q.read_bytes() for q in (p / "_site").rglob("*") if q.is_file()} == site
    assert (p / "_site.manifest.json").read_bytes() == manifest


# MARK: - files outside the project

def outside_case(tmp_path):
    p = project(tmp_path)
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    (elsewhere / "diary.md").write_text("# Diary\n\nprivate\n")
    return p, elsewhere


def test_a_content_page_linked_outside_is_refused_unless_allowed(dossier_bin, tmp_path):
    p, elsewhere = outside_case(tmp_path)
    (p / "content/x.md").symlink_to(elsewhere / "diary.md")
    proc = run(dossier_bin, "build", cwd=p)
    refused(proc, f"content/x.md: links outside the project (to {elsewhere / 'diary.md'}); "
                  "list that path under allow_outside: in dossier.yml to read it")
    nothing_built(p)
    (p / "dossier.yml").write_text("title: L\nallow_outside:\n  - ../home\n")
    proc = run(dossier_bin, "build", cwd=p)
    assert proc.returncode == 0, proc.stderr
    assert "private" in (p / "_site/x/index.html").read_text()


def test_a_content_folder_linked_outside_is_not_entered(dossier_bin, tmp_path):
    """limits.md: "A symbolic link to a folder inside content/ is not followed at all"."""
    p, elsewhere = outside_case(tmp_path)
    (p / "content/sub").symlink_to(elsewhere)
    proc = run(dossier_bin, "build", cwd=p)
    assert proc.returncode == 0, proc.stderr
    assert not (p / "_site/sub").exists()
    assert not any("diary" in f.read_text(errors="replace") for f in (p / "_site").rglob("*.html"))


def test_a_content_folder_linked_inside_the_project_is_not_entered_and_a_file_link_is_followed(dossier_bin,
                                                                                               tmp_path):
    """"Links to files that stay inside the project are followed"; a linked folder is not."""
    p = project(tmp_path)
    (p / "notes").mkdir()
    (p / "notes/in.md").write_text("# Inside\n\ninner words\n")
    (p / "content/sub").symlink_to("../notes")
    (p / "content/one.md").symlink_to("../notes/in.md")
    proc = run(dossier_bin, "build", cwd=p)
    assert proc.returncode == 0, proc.stderr
    assert "inner words" in (p / "_site/one/index.html").read_text()
    assert not (p / "_site/sub").exists(), "the page under the linked folder"


def test_a_template_linked_outside_is_refused(dossier_bin, tmp_path):
    p, elsewhere = outside_case(tmp_path)
    (elsewhere / "page.mustache").write_text("{{{content}}}")
    (p / "templates").mkdir()
    (p / "templates/page.mustache").symlink_to(elsewhere / "page.mustache")
    refused(run(dossier_bin, "build", cwd=p),
            f"templates/page.mustache: links outside the project (to {elsewhere / 'page.mustache'}); "
            "list that path under allow_outside: in dossier.yml to read it")


def test_a_data_file_linked_outside_is_refused_but_a_path_written_outside_is_read(dossier_bin, tmp_path):
    p = project(tmp_path, "title: L\nrecall:\n  strings: data/recall/strings.txt\n  logs: data/recall/logs\n")
    outside = tmp_path / "shared"
    outside.mkdir()
    shutil.copy(DEMO / "logs/S001.jsonl", outside / "S001.jsonl")
    (p / "data/recall/logs").mkdir(parents=True)
    shutil.copy(DEMO / "strings.txt", p / "data/recall/strings.txt")
    (p / "data/recall/logs/S001.jsonl").symlink_to(outside / "S001.jsonl")
    refused(run(dossier_bin, "build", cwd=p),
            f"data/recall/logs/S001.jsonl: links outside the project (to {outside / 'S001.jsonl'}); "
            "list that path under allow_outside: in dossier.yml to read it")
    nothing_built(p)
    (p / "dossier.yml").write_text(f"title: L\nallow_outside:\n  - {outside}\nrecall:\n"
                                   "  strings: data/recall/strings.txt\n  logs: data/recall/logs\n")
    assert run(dossier_bin, "build", cwd=p).returncode == 0
    (p / "data/recall/logs/S001.jsonl").unlink()
    (p / "dossier.yml").write_text("title: L\nrecall:\n  strings: data/recall/strings.txt\n  logs: ../shared\n")
    proc = run(dossier_bin, "build", cwd=p)
    assert proc.returncode == 0, proc.stderr
