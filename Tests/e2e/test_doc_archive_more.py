"""docs/archive.md, the seams: the work folder, an existing destination, `--force`,
leftovers of killed runs, failing writes, a site changed since its manifest, the lock, and
the zip's bytes rebuilt here from "The zip's bytes"."""
import fcntl
import os
import resource
import subprocess
import zipfile

import pytest

from archive_oracle import BIN, DEAD_PID, dossier, hand_site, ok, project, tree, zip_bytes


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name)


def test_an_existing_destination_is_an_error_and_is_left_alone(tmp_path):
    """"An existing destination is an error unless `--force`." (exit 1, the old bag kept)"""
    site = hand_site(tmp_path / "w", {"a.txt": b"one"})
    ok("archive", "--site", site, "--output", tmp_path / "bag", "--date", "2020-01-01")
    before = tree(tmp_path / "bag")
    (site / "a.txt").write_bytes(b"two")
    hand_site(tmp_path / "w2", {"a.txt": b"two"})
    p = dossier("archive", "--site", tmp_path / "w2" / "site", "--output", tmp_path / "bag")
    assert p.returncode == 1, p.out
    assert "bag" in p.out and "--force" in p.out
    assert tree(tmp_path / "bag") == before
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("name", ["bag", "bag.zip"])
def test_force_replaces_a_bag_with_the_new_one(tmp_path, name):
    """"`--force` replaces only a bag" — a bag is replaced, and no work folder is left."""
    old = hand_site(tmp_path / "old", {"a.txt": b"old"})
    new = hand_site(tmp_path / "new", {"a.txt": b"new", "b.txt": b"more"})
    ok("archive", "--site", old, "--output", tmp_path / name)
    ok("archive", "--site", new, "--output", tmp_path / name, "--force")
    ok("archive", "--verify", tmp_path / name)
    if name.endswith(".zip"):
        names = zipfile.ZipFile(tmp_path / name).namelist()
        assert "bag/data/site/b.txt" in names
    else:
        assert (tmp_path / "bag" / "data" / "site" / "b.txt").read_bytes() == b"more"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("kind", ["folder", "bagit-dir", "zip", "deep-zip"])
def test_force_refuses_what_is_not_a_bag(tmp_path, kind):
    """"an existing folder must hold a regular file `bagit.txt`, an existing `.zip` must be a
    zip whose central directory … names `bagit.txt` or `<top>/bagit.txt`. Anything else is
    refused before anything is written, exit 1: `<output>: is not a bag (no bagit.txt in it);
    --force replaces only a bag, never other files: choose another --output` (for a zip: `no
    zip with a bagit.txt`)"."""
    site = hand_site(tmp_path / "w", {"a.txt": b"x"})
    if kind in ("folder", "bagit-dir"):
        dest = tmp_path / "mine"
        dest.mkdir()
        (dest / "thesis.txt").write_text("years of work")
        if kind == "bagit-dir":
            (dest / "bagit.txt").mkdir()
        why = "no bagit.txt in it"
    else:
        dest = tmp_path / "mine.zip"
        with zipfile.ZipFile(dest, "w") as z:
            z.writestr("a/b/bagit.txt" if kind == "deep-zip" else "photos/one.jpg", b"BagIt-Version: 1.0\n")
        why = "no zip with a bagit.txt"
    before = tree(dest) if dest.is_dir() else dest.read_bytes()
    p = dossier("archive", "--site", site, "--output", dest, "--force")
    assert p.returncode == 1, p.out
    assert (f"{dest}: is not a bag ({why}); --force replaces only a bag, never other files: "
            "choose another --output") in p.stderr, p.stderr
    assert (tree(dest) if dest.is_dir() else dest.read_bytes()) == before
    assert leftovers(tmp_path) == []


def test_force_refuses_a_symlink_to_the_project(tmp_path):
    """"An `--output` that is, or holds, the site or the folder of its manifest (the
    project) is refused too … paths are compared after resolving symbolic links."""
    root = project(tmp_path)
    (tmp_path / "link").symlink_to(root)
    (root / "bagit.txt").write_text("BagIt-Version: 1.0\n")  # looks like a bag: still refused
    p = dossier("archive", root, "--output", tmp_path / "link", "--force")
    assert p.returncode == 1, p.out
    assert "which the bag is made from; --force replaces only a bag: choose an --output outside the project" in p.stderr
    assert (root / "dossier.yml").exists() and (root / "_site" / "index.html").exists()


def test_leftover_work_folders_of_dead_runs_are_removed_and_live_ones_kept(tmp_path):
    """"each run first removes, beside the destination, every `.<bag name>.tmp-<pid>` (and
    `.old`) whose `<pid>` names no running process (`kill(pid, 0)` fails with `ESRCH`)"."""
    site = hand_site(tmp_path / "w", {"a.txt": b"x"})
    dead, live = tmp_path / f".bag.tmp-{DEAD_PID}", tmp_path / f".bag.tmp-{os.getpid()}"
    for d in (dead, live):
        d.mkdir()
        (d / "half.bin").write_bytes(b"\0" * 10)
    other = tmp_path / f".other.tmp-{DEAD_PID}"  # another bag's name: not this run's business
    other.mkdir()
    ok("archive", "--site", site, "--output", tmp_path / "bag")
    assert not dead.exists()
    assert live.exists() and other.exists()
    ok("archive", "--verify", tmp_path / "bag")


def test_a_moved_aside_old_bag_is_put_back_before_anything_else(tmp_path):
    """"a run killed between those two renames leaves no bag at the destination for a
    moment, and the next run puts the `.old` one back before anything else" — then the
    destination exists again, and "An existing destination is an error unless --force":
    the old complete bag must not be lost to a run without --force."""
    site = hand_site(tmp_path / "w", {"a.txt": b"x"})
    ok("archive", "--site", site, "--output", tmp_path / "bag", "--date", "2001-01-01")
    old = tree(tmp_path / "bag")
    (tmp_path / "bag").rename(tmp_path / f".bag.tmp-{DEAD_PID}.old")
    p = dossier("archive", "--site", site, "--output", tmp_path / "bag", "--date", "2002-02-02")
    assert tree(tmp_path / "bag") == old, p.out
    assert p.returncode == 1, p.out
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("zipped", [False, True])
def test_a_write_that_fails_is_named_after_the_destination(tmp_path, zipped):
    """"A write that fails there (a full disk, a file-size limit) is named after the
    destination … `<destination as given>: <the file-system advice of docs/limits.md>
    (writing <path inside the bag>)` … Exit 1, nothing at the destination, no work folder
    left." The advice for EFBIG is docs/limits.md's line 58."""
    site = hand_site(tmp_path / "w", {"small.txt": b"s", "big.bin": os.urandom(300_000)})
    dest = "out.zip" if zipped else "out"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    p = dossier("archive", "--site", site, "--output", dest, cwd=tmp_path, preexec_fn=limit)
    assert p.returncode == 1, p.out
    advice = ("the file is too large for this file system or for the size limit set for this process "
              "(`ulimit -f`); write it to another disk or raise the limit")
    assert f"{dest}: {advice} (writing data/site/big.bin)" in p.stderr, p.stderr
    assert ".tmp-" not in p.stderr
    assert not (tmp_path / dest).exists()
    assert leftovers(tmp_path) == []


def test_a_zip_the_zip_writer_cannot_write(tmp_path):
    """"a zip the zip writer cannot write gives `<destination>: cannot write the zip
    (<strerror text>)`. Exit 1, nothing at the destination, no work folder left." Every bag
    file fits the size limit, the zip of them does not (random bytes are stored)."""
    site = hand_site(tmp_path / "w", {"a.bin": os.urandom(60_000), "b.bin": os.urandom(60_000)})

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    p = dossier("archive", "--site", site, "--output", "out.zip", cwd=tmp_path, preexec_fn=limit)
    assert p.returncode == 1, p.out
    assert f"out.zip: cannot write the zip ({os.strerror(27)})" in p.stderr, p.stderr
    assert not (tmp_path / "out.zip").exists()
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("change", ["same-size", "longer"])
def test_a_site_file_changed_since_its_manifest_stops_the_bag(tmp_path, change):
    """"each checked against its SHA-256 and size while it is copied (a mismatch stops with
    "changed since the site manifest was written; rebuild the site (dossier build --clean: a
    build keeps a file edited by hand)")"."""
    root = project(tmp_path)
    page = root / "_site" / "index.html"
    data = page.read_bytes()
    page.write_bytes(data[:-1] + b"X" if change == "same-size" else data + b"<!-- edit -->")
    p = dossier("archive", root, "--output", tmp_path / "bag")
    assert p.returncode == 1, p.out
    assert ("changed since the site manifest was written; rebuild the site (dossier build --clean: "
            "a build keeps a file edited by hand)") in p.stderr
    assert "index.html" in p.stderr
    assert not (tmp_path / "bag").exists() and leftovers(tmp_path) == []


def test_archive_waits_for_a_build_holding_the_lock(tmp_path):
    """"Writing a bag holds the site's lock shared, so it waits for a build of the same site to
    finish" — docs/output-manifest.md: it writes `waiting for dossier build (pid <n>) to finish
    with this site …` and waits. The lock is held here by the test, as a build would."""
    root = project(tmp_path)
    lock = root / "._site.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} build\n".encode(), 0)
        proc = subprocess.Popen([BIN, "archive", str(root), "--output", str(tmp_path / "bag")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = proc.stderr.readline()  # blocks until the waiting line is written
        assert line.startswith(f"waiting for dossier build (pid {os.getpid()}) to finish with this site"), line
        assert proc.poll() is None and not (tmp_path / "bag").exists()
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    assert (tmp_path / "bag" / "bagit.txt").exists()


def test_the_zip_is_byte_for_byte_the_documented_one(tmp_path):
    """"The zip's bytes": entries in byte order of `<bag name>/<path>`, deflate level 6 raw
    (or stored when not smaller — an empty file, random bytes), flags 0x0800, time 0,
    date = Bagging-Date as MS-DOS date, made by 0x0314, external attributes 0x81A40000, no
    folder entries, no comments; "the same bag gives the same zip"."""
    files = {"index.html": b"<h1>hello</h1>\n" * 50, "empty.txt": b"", "noise.bin": os.urandom(3000),
             "B.txt": b"upper", "a/b.txt": b"nested", "\u00e9t\u00e9.txt": b"utf-8 name"}
    site = hand_site(tmp_path / "w", files)
    ok("archive", "--site", site, "--output", tmp_path / "study-2026", "--date", "2026-07-15")
    ok("archive", "--site", site, "--output", tmp_path / "study-2026.zip", "--date", "2026-07-15")
    got = (tmp_path / "study-2026.zip").read_bytes()
    assert got == zip_bytes("study-2026", tree(tmp_path / "study-2026"), "2026-07-15")
    ok("archive", "--site", site, "--output", tmp_path / "again" / "study-2026.zip", "--date", "2026-07-15")
    assert (tmp_path / "again" / "study-2026.zip").read_bytes() == got


@pytest.mark.parametrize("date,word", [("1979-12-31", 0x0021), ("2107-12-31", (127 << 9) | (12 << 5) | 31),
                                       ("2108-01-01", 0x0021), ("1980-01-01", 0x0021)])
def test_zip_dates_outside_1980_to_2107(tmp_path, date, word):
    """"date = the bag's `Bagging-Date` as an MS-DOS date … (1980-01-01, `0x0021`, outside
    1980–2107)"."""
    site = hand_site(tmp_path / "w", {"a.txt": b"a"})
    ok("archive", "--site", site, "--output", tmp_path / "b.zip", "--date", date)
    raw = (tmp_path / "b.zip").read_bytes()
    assert raw[:4] == b"PK\x03\x04"
    assert int.from_bytes(raw[10:12], "little") == 0 and int.from_bytes(raw[12:14], "little") == word
    assert f"Bagging-Date: {date}".encode() in zipfile.ZipFile(tmp_path / "b.zip").read("b/bag-info.txt")


def test_zip_flag_and_default_names(tmp_path):
    """"`--output x.zip` or `--zip` (adds `.zip`); the zip holds one top-level folder named
    like the zip without `.zip`". "Default output: `<output folder>-bag` beside the output
    folder (`_site-bag/`, `_site-bag.zip`)"."""
    root = project(tmp_path)
    ok("archive", root, "--zip")
    ok("archive", root)
    assert (root / "_site-bag" / "bagit.txt").is_file()
    names = zipfile.ZipFile(root / "_site-bag.zip").namelist()
    assert "_site-bag/bagit.txt" in names and {n.split("/")[0] for n in names} == {"_site-bag"}
    ok("archive", root, "--zip", "--output", tmp_path / "named")
    assert {n.split("/")[0] for n in zipfile.ZipFile(tmp_path / "named.zip").namelist()} == {"named"}


@pytest.mark.parametrize("dest", ["afile/bag", "afile/bag.zip"])
def test_a_destination_under_a_regular_file_is_named_in_plain_words(tmp_path, dest):
    """"A write that fails there … is named after the destination, never the work folder …
    Exit 1, nothing at the destination, no work folder left", and docs/limits.md: a file-system
    error is "printed in plain words with the path … never as `Error Domain=NSCocoaErrorDomain
    …`" (an errno not in its table "in the system's own words (`strerror`)")."""
    site = hand_site(tmp_path / "w", {"a.txt": b"x"})
    (tmp_path / "afile").write_text("a file where a folder is expected\n")
    p = dossier("archive", "--site", site, "--output", dest, cwd=tmp_path)
    assert p.returncode == 1, p.out
    assert p.stderr.startswith(f"{dest}: ") or f"\n{dest}: " in p.stderr, p.stderr
    assert ".tmp-" not in p.stderr and "CocoaError" not in p.stderr and "Error Domain" not in p.stderr
    assert (tmp_path / "afile").read_text() == "a file where a folder is expected\n"


def test_two_runs_on_the_same_site_write_the_same_bag(tmp_path):
    """Bags are made from the site manifest alone: two runs with the same date give the same
    files, byte for byte (and a missing parent folder of --output is no obstacle)."""
    root = project(tmp_path, static={"x/y.txt": b"why\n"})
    ok("archive", root, "--output", tmp_path / "one", "--date", "2026-05-06")
    ok("archive", root, "--output", tmp_path / "two" / "deeper" / "one", "--date", "2026-05-06")
    assert tree(tmp_path / "one") == tree(tmp_path / "two" / "deeper" / "one")
