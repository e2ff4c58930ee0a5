"""Inputs a build must not trust (issue #34): files linking outside the project, inputs
too big to hold, navigation that grew with the square of the pages, and a build killed
between replacing files and writing the manifest. Each failed before its fix."""
import json
import os
import subprocess

import pytest

KILLED = 86


def project(root, yml="title: Guarded\noutput: _site\n", pages=None):
    root.mkdir(parents=True, exist_ok=True)
    (root / "dossier.yml").write_text(yml)
    (root / "content").mkdir(exist_ok=True)
    for name, text in (pages or {"about.md": "# About\n\nHello.\n"}).items():
        (root / "content" / name).write_text(text)
    return root


def build(dossier_bin, root, fault=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_FAULT")}
    if fault:
        env["DOSSIER_FAULT_AT"], env["DOSSIER_FAULT_MODE"] = str(fault), "kill"
    return subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True, timeout=900, env=env)


def site_bytes(root):
    return sum(p.stat().st_size for p in (root / "_site").rglob("*") if p.is_file())


# MARK: files outside the project

def test_a_content_page_linking_outside_the_project_is_refused(dossier_bin, tmp_path):
    secret = tmp_path / "home" / "diary.md"
    secret.parent.mkdir()
    secret.write_text("# My diary\n\nprivate words\n")
    root = project(tmp_path / "proj")
    (root / "content" / "x.md").symlink_to(secret)
    p = build(dossier_bin, root)
    assert p.returncode == 1
    assert "content/x.md: links outside the project" in p.stderr, p.stderr
    assert not (root / "_site").exists() or "private words" not in "".join(
        f.read_text(errors="ignore") for f in (root / "_site").rglob("*.html"))
    # allow_outside: names the place on purpose.
    (root / "dossier.yml").write_text(f"title: Guarded\noutput: _site\nallow_outside:\n  - {secret.parent}\n")
    p = build(dossier_bin, root)
    assert p.returncode == 0, p.stderr
    assert "private words" in (root / "_site" / "x" / "index.html").read_text()


def test_a_link_inside_the_project_is_fine(dossier_bin, tmp_path):
    root = project(tmp_path / "proj")
    (root / "notes").mkdir()
    (root / "notes" / "real.md").write_text("# Real\n\ninside words\n")
    (root / "content" / "y.md").symlink_to(root / "notes" / "real.md")
    assert build(dossier_bin, root).returncode == 0
    assert "inside words" in (root / "_site" / "y" / "index.html").read_text()


def test_a_data_file_or_template_linking_outside_is_refused(dossier_bin, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "strings.txt").write_text("abc\n")
    (outside / "layout.mustache").write_text("{{{content}}}")
    root = project(tmp_path / "proj", yml="title: x\noutput: _site\nrecall:\n  strings: logs/strings.txt\n  logs: logs\n")
    (root / "logs").mkdir()
    (root / "logs" / "strings.txt").symlink_to(outside / "strings.txt")
    p = build(dossier_bin, root)
    assert p.returncode == 1 and "strings.txt: links outside the project" in p.stderr, p.stderr
    root2 = project(tmp_path / "proj2")
    (root2 / "templates").mkdir()
    (root2 / "templates" / "layout.mustache").symlink_to(outside / "layout.mustache")
    p = build(dossier_bin, root2)
    assert p.returncode == 1 and "templates/layout.mustache: links outside the project" in p.stderr, p.stderr


# MARK: size limits

def sparse(path, size):
    with open(path, "wb") as f:
        f.truncate(size)


@pytest.mark.parametrize("what,make,expect", [
    ("content page", lambda r: sparse(r / "content" / "big.md", 2 << 30), "content/big.md: a content page is 2147483648 bytes, more than the maximum of 8 MiB"),
    ("dossier.yml", lambda r: sparse(r / "dossier.yml", 2 << 30), "dossier.yml: dossier.yml is 2147483648 bytes, more than the maximum of 1 MiB"),
    ("front matter", lambda r: (r / "content" / "fm.md").write_text("---\ntitle: x\n" + "#" * (70 << 10) + "\n---\nbody\n"),
     "content/fm.md:1: front matter is"),
])
def test_an_input_over_its_limit_is_a_clear_error(dossier_bin, tmp_path, what, make, expect):
    """Before: a 2 GB page or dossier.yml aborted the process (allocation failure or
    cmark's 1 GiB abort)."""
    root = project(tmp_path / "proj")
    make(root)
    p = build(dossier_bin, root)
    assert p.returncode == 1, (what, p.returncode, p.stderr[-500:])
    assert expect in p.stderr, p.stderr
    assert not (root / "_site").exists()


def test_vault_list_refuses_a_vault_file_over_its_limit(dossier_bin, tmp_path):
    """Before: `vault list` on a 2 GB file died with SIGILL (the whole file was copied)."""
    probe = subprocess.run([dossier_bin, "vault", "--help"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("built without the vault domain")
    big = tmp_path / "big.dvault"
    sparse(big, 2 << 30)
    env = dict(os.environ, DOSSIER_VAULT_PASSWORD="pw")
    p = subprocess.run([dossier_bin, "vault", "list", str(big)], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "the vault file is 2147483648 bytes, more than the maximum of 256 MiB" in p.stderr


# MARK: navigation and site size

def pages(n):
    return {f"page-{i:05d}.md": f"# Page {i}\n\nOne line.\n" for i in range(n)}


def test_site_size_per_page_does_not_grow_with_the_number_of_pages(dossier_bin, tmp_path):
    """Before: every page's navigation listed every top-level page (twice), so 2,000
    one-line pages made 433 MB. Now the bytes per page of a 1,200-page site are those of
    a 150-page site, within the home page's list (a few dozen bytes a page)."""
    small, large = project(tmp_path / "s", pages=pages(150)), project(tmp_path / "l", pages=pages(1200))
    for r in (small, large):
        p = build(dossier_bin, r)
        assert p.returncode == 0, p.stderr
    per_small, per_large = site_bytes(small) / 150, site_bytes(large) / 1200
    assert per_large <= per_small * 1.10, (per_small, per_large)
    nav = (large / "_site" / "page-00001" / "index.html").read_text()
    assert nav.count('href="../page-') <= 2 * 8 + 2, "the navigation lists at most 8 pages"
    assert "All pages" in nav


# MARK: the build manifest and the files it describes

def test_a_build_killed_before_its_manifest_is_not_trusted_by_publish_or_archive(dossier_bin, tmp_path):
    """Before: a kill between replacing files and rewriting _site.manifest.json left new
    files described by the old manifest, and publish/archive trusted it."""
    root = project(tmp_path / "proj")
    assert build(dossier_bin, root).returncode == 0
    (root / "content" / "about.md").write_text("# About\n\nChanged.\n")
    p = build(dossier_bin, root, fault=1)
    assert p.returncode == KILLED, p.stderr
    a = subprocess.run([dossier_bin, "archive", str(root), "--output", str(tmp_path / "bag")], capture_output=True, text=True)
    assert a.returncode == 1 and "the last build of this site did not finish" in a.stderr, a.stderr
    assert build(dossier_bin, root).returncode == 0
    files = {f["path"]: f["sha256"] for f in json.loads((root / "_site.manifest.json").read_text())["files"]}
    import hashlib
    for path, sha in files.items():
        assert hashlib.sha256((root / "_site" / path).read_bytes()).hexdigest() == sha, path
    a = subprocess.run([dossier_bin, "archive", str(root), "--output", str(tmp_path / "bag")], capture_output=True, text=True)
    assert a.returncode == 0, a.stderr
