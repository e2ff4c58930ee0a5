"""docs/output-manifest.md from the docs alone, part 2: `sitemap.xml`, which output folder a
build may replace, paths equal when lower-cased, a custom output name, links with a script
scheme, a manifest deleted or edited by hand. Helpers come from test_doc_output_manifest.py.
"""
import os
import xml.etree.ElementTree as ET

import pytest

from test_doc_output_manifest import (DEAD_PID, assert_manifest_matches_disk, bkey, dossier, make_project, ok,
                                      tree_state)

# MARK: - sitemap.xml

SITEMAP_CONTENT = {"index.md": "# Home\n", "sp ace.md": "x\n", "a&b.md": "x\n", "a~.md": "x\n", "aü.md": "x\n",
                   "it's.md": "x\n", "deep/index.md": "x\n", "deep/q.md": "x\n", "x(1)=y.md": "x\n"}


def _pages(project):
    """Generated HTML pages outside assets/ but 404.html, from the content pages only (sorted by path)."""
    pages = ["index.html"]
    for rel in SITEMAP_CONTENT:
        stem = rel[:-3]
        if rel == "index.md":
            continue
        pages.append(stem[:-len("index")] + "index.html" if stem.endswith("/index") or stem == "index"
                     else stem + "/index.html")
    return sorted(pages, key=bkey)


UNRESERVED_AND_SUB = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=/")


def _pct(path: str) -> str:
    return "".join(chr(c) if c in UNRESERVED_AND_SUB else "%%%02X" % c for c in path.encode())


@pytest.mark.parametrize("base", ["https://e.org/docs", None])
def test_sitemap_lists_pages_sorted_and_percent_encoded(tmp_path, base):
    yml = "title: SM\n" + (f"base_url: {base}\n" if base else "")
    project = make_project(tmp_path / "sm", yml=yml, content=SITEMAP_CONTENT)
    ok("build", project, "-q")
    raw = (project / "_site" / "sitemap.xml").read_bytes()
    root = ET.fromstring(raw)
    ns = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
    assert root.tag == ns + "urlset"
    locs = [u.find(ns + "loc").text for u in root.findall(ns + "url")]
    assert all(len(list(u)) == 1 for u in root.findall(ns + "url"))  # no <lastmod>
    if base:
        want = [base + "/" + _pct(p[:-len("index.html")] if p.endswith("index.html") else p) for p in _pages(project)]
    else:
        want = [_pct(p) for p in _pages(project)]
    assert locs == want
    assert b"a&amp;b/" in raw and b"404" not in raw and b"assets/" not in raw


# MARK: - which folder may be replaced, case, debris

def test_output_folder_that_is_not_dossiers_is_refused_and_left_alone(tmp_path):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n"})
    (project / "_site").mkdir()
    (project / "_site" / "precious.txt").write_text("mine")
    before, top = tree_state(project / "_site"), set(os.listdir(project))
    proc = dossier("build", project, "-q")
    assert proc.returncode == 1, proc.out
    assert "output" in proc.out
    assert tree_state(project / "_site") == before
    assert set(os.listdir(project)) - top <= {"._site.lock", ".dossier"}
    assert not (project / "_site.manifest.json").exists()
    # an empty folder is Dossier's to fill; a folder with the manifest beside it is Dossier's
    (project / "_site" / "precious.txt").unlink()
    ok("build", project, "-q")
    (project / "_site" / "stray.txt").write_text("stray")
    ok("build", project, "-q", "--clean")
    assert not (project / "_site" / "stray.txt").exists()
    assert_manifest_matches_disk(project)


@pytest.mark.parametrize("kind", ["static", "content"])
def test_paths_equal_when_lower_cased_fail_naming_both(tmp_path, kind):
    if kind == "static":
        project = make_project(tmp_path / "p", static={"Notes.txt": b"a", "notes.txt": b"b"})
        names = ("Notes.txt", "notes.txt")
    else:
        project = make_project(tmp_path / "p", content={"Notes.md": "a\n", "notes.md": "b\n"})
        names = ("Notes.md", "notes.md")
    proc = dossier("build", project, "-q")
    assert proc.returncode == 1
    for name in names:
        assert name in proc.out
    assert not (project / "_site").exists() and not (project / "_site.manifest.json").exists()


def test_static_file_equal_to_a_generated_page_when_lower_cased_fails(tmp_path):
    project = make_project(tmp_path / "p", static={"INDEX.html": "<p>x</p>\n"})
    proc = dossier("build", project, "-q")
    assert proc.returncode == 1
    assert "INDEX.html" in proc.out and "index.html" in proc.out
    assert not (project / "_site.manifest.json").exists()


def test_custom_output_name_names_manifest_lock_debris_and_bag(tmp_path):
    out = "sïte out"
    project = make_project(tmp_path / "p", yml=f'title: T\noutput: "{out}"\n', content={"index.md": "# Hi\n"})
    ok("build", project, "-q")
    assert_manifest_matches_disk(project, out)
    assert (project / f".{out}.lock").read_text().endswith(" build\n")
    debris = project / f".{out}.staging-{DEAD_PID}"
    debris.mkdir()
    (project / "content" / "index.md").write_text("# Changed\n")
    ok("build", project, "-q")
    assert not debris.exists()
    assert_manifest_matches_disk(project, out)
    ok("archive", project, "--date", "2026-01-01")
    assert (project / f"{out}-bag" / "data" / "site.manifest.json").read_bytes() == \
        (project / f"{out}.manifest.json").read_bytes()


def test_a_script_scheme_link_fails_the_build_and_leaves_the_site(tmp_path):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n"}, static={"x.html": "<p>ok</p>\n"})
    ok("build", project, "-q")
    before = tree_state(project / "_site")
    manifest = (project / "_site.manifest.json").read_bytes()
    (project / "static" / "x.html").write_text('<p>\n<a href=" Java\tScript:alert(1)">x</a>\n')
    proc = dossier("build", project, "-q")
    assert proc.returncode == 1 and "x.html" in proc.out
    assert tree_state(project / "_site") == before
    assert (project / "_site.manifest.json").read_bytes() == manifest
    assert not [n for n in os.listdir(project) if "staging" in n]


@pytest.mark.parametrize("how", ["deleted", "edited", "truncated"])
def test_a_manifest_deleted_or_edited_by_hand_is_written_again_by_a_no_change_build(tmp_path, how):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n"}, static={"e.txt": b""})
    ok("build", project, "-q")
    mpath = project / "_site.manifest.json"
    if how == "deleted":
        mpath.unlink()
    elif how == "edited":
        mpath.write_bytes(mpath.read_bytes().replace(b'"size": 0', b'"size": 1'))
    else:
        mpath.write_bytes(b"")
    ok("build", project, "-q")
    assert_manifest_matches_disk(project)
