"""docs/output-manifest.md (locks, the `.incomplete` marker, debris of killed builds) and
docs/archive.md (what `dossier archive` refuses, `--force`, leftovers), from the docs alone.

Every refusal must exit 1, say what the page says and change nothing (the whole tmp folder
is compared before and after: names, bytes, inodes, mtimes). Helpers come from
test_doc_output_manifest.py and test_doc_output_manifest_more.py.
"""
import fcntl
import os
import select
import subprocess
import time
import zipfile

import pytest

from test_doc_output_manifest import (BIN, DEAD_PID, assert_manifest_matches_disk, dossier, make_project, ok,
                                      tree_state)
from test_doc_output_manifest_more import DATE, assert_folder_bag, expected_bag, info_for

def test_debris_of_dead_builds_is_removed_and_live_ones_kept(tmp_path):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n"})
    ok("build", project, "-q")
    dead = [project / f"._site.staging-{DEAD_PID}", project / f"._site.old-{DEAD_PID}"]
    live = project / f"._site.staging-{os.getpid()}"
    for folder in dead + [live]:
        (folder / "inner").mkdir(parents=True)
        (folder / "inner" / "f.txt").write_text("x")
    ok("check", project, "-q")  # check removes nothing
    assert all(f.exists() for f in dead + [live])
    ok("build", project, "-q")
    assert not any(os.path.lexists(f) for f in dead)
    assert (live / "inner" / "f.txt").read_text() == "x"


# MARK: - the .incomplete marker

def test_incomplete_marker_stops_archive_until_a_build_removes_it(tmp_path):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n"})
    ok("build", project, "-q")
    marker = project / "_site.manifest.json.incomplete"
    marker.write_bytes(b"")
    before = tree_state(tmp_path)
    proc = dossier("archive", project, "-q", "--date", "2026-01-01")
    assert proc.returncode == 1
    assert ("_site.manifest.json: the last build of this site did not finish (killed while it replaced files), so "
            "this manifest may not describe them; run `dossier build` again") in proc.out
    assert tree_state(tmp_path) == before
    ok("build", project, "-q")
    assert not marker.exists()
    ok("archive", project, "-q", "--date", "2026-01-01")


# MARK: - one command at a time

def test_build_writes_its_pid_into_a_0600_lock_file(tmp_path):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n"})
    proc = subprocess.Popen([BIN, "build", str(project), "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert proc.wait(timeout=60) == 0
    lock = project / "._site.lock"
    assert (os.stat(lock).st_mode & 0o777) == 0o600
    assert lock.read_bytes() == f"{proc.pid} build\n".encode()


def _wait_for_line(proc, needle: str, seconds: float = 15.0) -> str:
    seen = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and needle.encode() not in seen and b"\n" not in seen:
        ready, _, _ = select.select([proc.stderr], [], [], 0.2)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
    return seen.decode("utf-8", "replace")


# "{me}" stands for this process's pid, filled in by the test: the cases' ids must not
# depend on the pid (pytest-xdist workers collect them in other processes).
HOLDER_CASES = [("{me} build\n", "dossier build (pid {me})"), ("{me} publish now\n", "dossier publish now (pid {me})"),
                ("", "another dossier command"), ("0 build\n", "another dossier command"),
                (f"{DEAD_PID} build\n", "another dossier command"), ("{me} Build\n", "another dossier command"),
                ("{me} build", "another dossier command"), ("{me} " + "a" * 70 + "\n", "another dossier command"),
                ("{me} build2\n", "another dossier command"), ("+{me} build\n", "another dossier command")]


@pytest.mark.parametrize("content,holder", HOLDER_CASES)
def test_archive_waits_for_an_exclusive_holder_and_names_it(tmp_path, content, holder):
    content, holder = content.replace("{me}", str(os.getpid())), holder.replace("{me}", str(os.getpid()))
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n"})
    ok("build", project, "-q")
    lock = project / "._site.lock"
    lock.write_text(content)
    fd = os.open(lock, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    proc = subprocess.Popen([BIN, "archive", str(project), "--quiet", "--date", "2026-01-01"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        line = (f"waiting for {holder} to finish with this site (one command at a time builds, publishes or "
                "archives it) …")
        seen = _wait_for_line(proc, line)
        assert line in seen
        assert proc.poll() is None and not (project / "_site-bag").exists()
    finally:
        os.close(fd)
    assert proc.wait(timeout=60) == 0
    assert (project / "_site-bag" / "bagit.txt").is_file()
    assert lock.read_text() == content  # readers leave the lock file as it is


def test_build_waits_for_a_shared_holder_and_check_does_not(tmp_path):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n"})
    ok("build", project, "-q")
    lock = project / "._site.lock"
    fd = os.open(lock, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH)
    try:
        ok("check", project, "-q", timeout=30)
        (project / "content" / "index.md").write_text("# Changed\n")
        proc = subprocess.Popen([BIN, "build", str(project), "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        seen = _wait_for_line(proc, "to finish with this site")
        assert "waiting for another dossier command to finish with this site" in seen
        assert proc.poll() is None
    finally:
        os.close(fd)
    assert proc.wait(timeout=60) == 0
    assert_manifest_matches_disk(project)



def test_check_takes_no_lock_and_writes_nothing_beside_the_project(tmp_path):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n"})
    before = tree_state(tmp_path)
    ok("check", project, "-q", timeout=30)
    assert tree_state(tmp_path) == before  # no lock file made, no staging folder, no manifest
    ok("build", project, "-q")
    fd = os.open(project / "._site.lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        ok("check", project, "-q", timeout=30)
    finally:
        os.close(fd)


def test_archive_makes_a_missing_lock_file_0600_and_writes_nothing_in_it(tmp_path):
    project = make_project(tmp_path / "p")
    ok("build", project, "-q")
    lock = project / "._site.lock"
    lock.unlink()
    ok("archive", project, "--date", DATE)
    assert lock.read_bytes() == b"" and (os.stat(lock).st_mode & 0o777) == 0o600


# MARK: - what archive refuses

@pytest.fixture
def project(tmp_path):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n\nSome words here.\n"}, static={"s.txt": b"s"})
    ok("build", project, "-q")
    return project


def _flip(project):
    page = project / "_site" / "index.html"
    data = bytearray(page.read_bytes())
    data[-2] ^= 0x20
    page.write_bytes(bytes(data))


def _grow(project):
    with open(project / "_site" / "s.txt", "ab") as f:
        f.write(b"!")


def _same_size_static(project):
    (project / "_site" / "s.txt").write_bytes(b"t")


@pytest.mark.parametrize("zipped", [False, True])
@pytest.mark.parametrize("change", [_flip, _grow, _same_size_static])
def test_archive_refuses_a_site_changed_after_its_build(project, change, zipped):
    change(project)
    before = tree_state(project.parent)
    proc = dossier("archive", project, "--date", DATE, *(["--zip"] if zipped else []))
    assert proc.returncode == 1, proc.out
    assert "changed since the site manifest was written; rebuild the site" in proc.out
    assert tree_state(project.parent) == before


@pytest.mark.parametrize("what", ["manifest", "listed file"])
def test_archive_refuses_a_missing_manifest_or_listed_file(project, what):
    (project / ("_site.manifest.json" if what == "manifest" else "_site/s.txt")).unlink()
    before = tree_state(project.parent)
    proc = dossier("archive", project, "--date", DATE)
    assert proc.returncode == 1, proc.out
    assert tree_state(project.parent) == before


def test_stray_site_files_are_not_archived(project):
    (project / "_site" / "stray.txt").write_text("not listed")
    ok("archive", project, "--date", DATE)
    want = expected_bag(project / "_site", project / "_site.manifest.json", info_for(project, "T"))
    assert "data/site/stray.txt" not in want
    assert_folder_bag(project / "_site-bag", want)


@pytest.mark.parametrize("kind", ["bag", "empty folder", "zip"])
def test_existing_destination_without_force_is_an_error(project, kind):
    if kind == "bag":
        ok("archive", project, "--date", DATE)
    elif kind == "empty folder":
        (project / "_site-bag").mkdir()
    else:
        ok("archive", project, "--date", DATE, "--zip")
    before = tree_state(project.parent)
    proc = dossier("archive", project, "--date", "2027-01-01", *(["--zip"] if kind == "zip" else []))
    assert proc.returncode == 1, proc.out
    assert tree_state(project.parent) == before


def _zip(path, names):
    with zipfile.ZipFile(path, "w") as z:
        for name in names:
            z.writestr(name, "x")


NOT_A_BAG = "is not a bag (no bagit.txt in it); --force replaces only a bag, never other files: choose another --output"
# archive.md: "(for a zip: `no zip with a bagit.txt`)" replaces `no bagit.txt in it`
NOT_A_ZIP_BAG = ("is not a bag (no zip with a bagit.txt); --force replaces only a bag, never other files: "
                 "choose another --output")


@pytest.mark.parametrize("kind", ["folder", "bagit.txt is a folder", "text .zip", "zip without bagit.txt",
                                  "zip with a/b/bagit.txt", "zip with bagit.txt.bak"])
def test_force_refuses_what_is_not_a_bag(project, tmp_path, kind):
    out = tmp_path / ("target.zip" if "zip" in kind else "target")
    if kind == "folder":
        out.mkdir()
        (out / "precious.txt").write_text("mine")
    elif kind == "bagit.txt is a folder":
        (out / "bagit.txt").mkdir(parents=True)
    elif kind == "text .zip":
        out.write_text("not a zip, but bagit.txt is named here\n")
    elif kind == "zip without bagit.txt":
        _zip(out, ["top/data/x.txt"])
    elif kind == "zip with a/b/bagit.txt":
        _zip(out, ["a/b/bagit.txt"])
    else:
        _zip(out, ["top/bagit.txt.bak"])
    before = tree_state(tmp_path)
    proc = dossier("archive", project, "--output", out, "--force", "--date", DATE)
    assert proc.returncode == 1, proc.out
    assert f"{out}: " + (NOT_A_ZIP_BAG if out.suffix == ".zip" else NOT_A_BAG) in proc.out
    assert tree_state(tmp_path) == before


@pytest.mark.parametrize("names", [["bagit.txt"], ["old/bagit.txt", "old/data/x"]])
def test_force_replaces_a_zip_that_names_bagit_txt(project, tmp_path, names):
    out = tmp_path / "bag.zip"
    _zip(out, names)
    ok("archive", project, "--output", out, "--force", "--date", DATE)
    with zipfile.ZipFile(out) as z:
        assert {n.split("/")[0] for n in z.namelist()} == {"bag"}
        assert z.read("bag/bagit.txt").startswith(b"BagIt-Version: 1.0\n")


@pytest.mark.parametrize("target", ["project", "site", "parent of the project", "link to the project",
                                    "link to the site"])
def test_force_refuses_the_project_and_the_site_whatever_they_hold(project, tmp_path, target):
    (project / "bagit.txt").write_text("BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")
    (project / "_site" / "bagit.txt").write_text("looks like a bag\n")
    out = {"project": project, "site": project / "_site", "parent of the project": tmp_path,
           "link to the project": tmp_path / "link", "link to the site": tmp_path / "sitelink"}[target]
    if target.startswith("link"):
        os.symlink(project if target.endswith("project") else project / "_site", out)
    before = tree_state(tmp_path)
    proc = dossier("archive", project, "--output", out, "--force", "--date", DATE)
    assert proc.returncode == 1, proc.out
    assert f"{out}: holds " in proc.out
    assert ", which the bag is made from; --force replaces only a bag: choose an --output outside the project" \
        in proc.out
    assert tree_state(tmp_path) == before


def test_force_refuses_the_folder_of_a_site_manifest(tmp_path):
    site = tmp_path / "pub" / "site"
    site.mkdir(parents=True)
    (site / "a.txt").write_text("a")
    from test_doc_output_manifest import manifest_text
    (tmp_path / "pub" / "site.manifest.json").write_bytes(manifest_text([("a.txt", b"a")], []))
    (tmp_path / "pub" / "bagit.txt").write_text("x")
    (tmp_path / "pub" / ".site.lock").write_bytes(b"")
    before = tree_state(tmp_path)
    proc = dossier("archive", "--site", site, "--output", tmp_path / "pub", "--force", "--date", DATE)
    assert proc.returncode == 1 and "which the bag is made from" in proc.out, proc.out
    assert tree_state(tmp_path) == before


@pytest.mark.parametrize("zipped", [False, True])
def test_force_replaces_a_bag_and_leaves_no_work_folder(project, zipped):
    extra = ["--zip"] if zipped else []
    ok("archive", project, "--date", DATE, *extra)
    ok("archive", project, "--date", "2027-03-04", "--force", *extra)
    if zipped:
        with zipfile.ZipFile(project / "_site-bag.zip") as z:
            assert b"Bagging-Date: 2027-03-04\n" in z.read("_site-bag/bag-info.txt")
    else:
        want = expected_bag(project / "_site", project / "_site.manifest.json", info_for(project, "T", "2027-03-04"))
        assert_folder_bag(project / "_site-bag", want)
    assert not [n for n in os.listdir(project) if ".tmp-" in n]


def test_zip_flag_adds_zip_to_the_output(project, tmp_path):
    ok("archive", project, "--zip", "--output", tmp_path / "named", "--date", DATE)
    assert not (tmp_path / "named").exists()
    with zipfile.ZipFile(tmp_path / "named.zip") as z:
        assert {n.split("/")[0] for n in z.namelist()} == {"named"}


def test_leftovers_of_dead_runs_are_removed_and_live_ones_kept(project):
    ok("archive", project, "--date", DATE)
    dead = [project / f"._site-bag.tmp-{DEAD_PID}", project / f"._site-bag.tmp-{DEAD_PID}.old"]
    live = project / f"._site-bag.tmp-{os.getpid()}"
    for folder in dead + [live]:
        folder.mkdir()
        (folder / "bagit.txt").write_text("old\n")
    ok("archive", project, "--date", "2027-01-01", "--force")
    assert not any(os.path.lexists(f) for f in dead)
    assert (live / "bagit.txt").read_text() == "old\n"
    assert "Bagging-Date: 2027-01-01\n" in (project / "_site-bag" / "bag-info.txt").read_text()


def test_an_old_bag_left_between_the_two_renames_is_put_back_first(project):
    ok("archive", project, "--date", DATE)
    old = project / f"._site-bag.tmp-{DEAD_PID}.old"
    os.rename(project / "_site-bag", old)
    ok("archive", project, "--date", "2027-01-01", "--force")
    assert not os.path.lexists(old)
    assert "Bagging-Date: 2027-01-01\n" in (project / "_site-bag" / "bag-info.txt").read_text()
    ok("archive", "--verify", project / "_site-bag")
