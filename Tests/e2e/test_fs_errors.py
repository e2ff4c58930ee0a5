"""File-system errors in plain words, with the path and what to do (issue #42).

Before: a read-only or full disk printed raw Foundation errors (`Error Domain=
NSCocoaErrorDomain Code=513 …`) or bare `strerror` texts. A small tmpfs is mounted for the
full and read-only cases (root only: skipped otherwise); the too-large case lowers the
process's file-size limit (RLIMIT_FSIZE, with SIGXFSZ ignored so the write fails with EFBIG).
"""
import contextlib
import os
import resource
import signal
import subprocess

import pytest

RAW = ("NSCocoaErrorDomain", "Error Domain", "No space left on device", "Read-only file system", "File too large")


@contextlib.contextmanager
def tmpfs(folder, size):
    folder.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def project(run_dossier, root, static_bytes):
    p = root / "p"
    run_dossier("new", p, "-q")
    (p / "static").mkdir()
    (p / "static" / "big.bin").write_bytes(os.urandom(static_bytes))
    return p


def build(dossier_bin, p, preexec=None):
    return subprocess.run([dossier_bin, "build", str(p), "-q"], capture_output=True, text=True, timeout=300,
                          preexec_fn=preexec)


def plain(r, path_part, words):
    assert r.returncode == 1, r.stderr
    assert path_part in r.stderr and words in r.stderr, r.stderr
    assert not any(raw in r.stderr for raw in RAW), r.stderr


def test_a_full_disk(dossier_bin, run_dossier, tmp_path):
    with tmpfs(tmp_path / "m", "2m") as m:
        p = project(run_dossier, m, 150_000)
        free = os.statvfs(m).f_bavail * os.statvfs(m).f_frsize
        (m / "fill").write_bytes(b"\0" * max(0, free - 40_000))
        r = build(dossier_bin, p)
        # named in the site, never in the staging folder removed before it is read
        plain(r, "_site/", "cannot write: the disk is full")
        assert ".staging-" not in r.stderr and "the previous site is unchanged" in r.stderr
        assert "free some space" in r.stderr
        assert not (p / "_site").exists()


def test_a_read_only_disk(dossier_bin, run_dossier, tmp_path):
    with tmpfs(tmp_path / "m", "2m") as m:
        p = project(run_dossier, m, 1000)
        subprocess.run(["mount", "-o", "remount,ro", str(m)], check=True)
        r = build(dossier_bin, p)
        plain(r, str(p), "read-only disk")
        assert "choose a writable folder" in r.stderr


def test_a_file_too_large(dossier_bin, run_dossier, tmp_path):
    p = project(run_dossier, tmp_path, 300_000)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    r = build(dossier_bin, p, preexec=limit)
    plain(r, "big.bin", "too large")
    assert "ulimit -f" in r.stderr


@pytest.mark.parametrize("output", ["bag", "bag.zip"])
def test_a_bag_that_cannot_be_written_says_why_in_plain_words(dossier_bin, run_dossier, tmp_path, output):
    """`dossier archive` copies the site into a temporary bag; a copy that fails (here a
    file-size limit) is reported with its path and plain words, exit 1, and leaves no bag
    and no temporary folder. Before, the raw `CocoaError(… EFBIG …)` was printed."""
    p = project(run_dossier, tmp_path, 300_000)
    assert build(dossier_bin, p).returncode == 0

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    before = sorted(os.listdir(tmp_path))
    r = subprocess.run([dossier_bin, "archive", str(p), "--output", str(tmp_path / output)], capture_output=True,
                       text=True, timeout=300, preexec_fn=limit)
    plain(r, "big.bin", "too large")
    assert "CocoaError" not in r.stderr and "POSIXError" not in r.stderr
    assert sorted(os.listdir(tmp_path)) == before


def test_a_study_database_that_cannot_grow_says_why(dossier_bin, tmp_path):
    """`game ingest` into a SQLite file on a full disk (here a file-size limit): SQLite's
    "disk I/O error" comes with the plain words for the system's error, so the person
    knows what to do; the uploads stay, and the next ingest with room stores them."""
    def run(*args, preexec=None):
        return subprocess.run([dossier_bin, *map(str, args)], capture_output=True, text=True, timeout=300,
                              preexec_fn=preexec)
    assert run("game", "keygen", "--output", tmp_path / "study", "-q").returncode == 0
    assert run("game", "simulate", "--players", 3, "--output", tmp_path / "c.jsonl", "-q").returncode == 0
    assert run("game", "seal", "--public", tmp_path / "study.pub", "--output", tmp_path / "up",
               tmp_path / "c.jsonl", "-q").returncode == 0

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))
    db = tmp_path / "s.sqlite"
    r = run("game", "ingest", "--key", tmp_path / "study.key", tmp_path / "up", "--db", db, preexec=limit)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "disk I/O error (the file is too large" in r.stderr and "ulimit -f" in r.stderr, r.stderr
    assert len(list((tmp_path / "up").glob("*.rmu"))) == 3
    again = run("game", "ingest", "--key", tmp_path / "study.key", tmp_path / "up", "--db", db)
    assert again.returncode == 0 and "3 stored" in again.stdout + again.stderr, again.stdout + again.stderr
