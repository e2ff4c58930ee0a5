"""docs/limits.md "File-system errors": the plain words after `<path>: `, `cannot write: `
before them for a file written through a temporary file, exit status 1, never the raw
Cocoa error, and the live site left as it was. Errors are made deterministic: a file-size
limit (RLIMIT_FSIZE), a name too long, a process without rights (setuid nobody), and
small tmpfs mounts (root only; skipped elsewhere)."""
import os
import pathlib
import re
import resource
import shutil
import signal
import subprocess
import tempfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
WORDS = {
    "ENOSPC": "the disk is full (no space left on the device, or the quota is used up); free some space or "
              "choose a folder on another disk, then run the command again",
    "EROFS": "this folder is on a read-only disk; choose a writable folder (or make the disk writable), "
             "then run the command again",
    "EFBIG": "the file is too large for this file system or for the size limit set for this process "
             "(`ulimit -f`); write it to another disk or raise the limit",
    "EACCES": "permission denied; make the file and its folder readable and writable for you (or choose "
              "another folder), then run the command again",
    "ENAMETOOLONG": "the name is too long for this file system; choose a shorter name",
}


def run(bin_, *args, cwd, fsize=None, nobody=False):
    def pre():
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if nobody:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run([bin_, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          preexec_fn=pre, timeout=300)


def project(root):
    (root / "content").mkdir(parents=True)
    (root / "dossier.yml").write_text("title: F\n")
    (root / "content/index.md").write_text("# Home\n\nHello.\n")
    return root


def site_bytes(p):
    return {q.relative_to(p).as_posix(): q.read_bytes() for q in (p / "_site").rglob("*") if q.is_file()}


def plain(proc, cause, prefix=""):
    assert proc.returncode == 1, proc.stderr
    assert "NSCocoaErrorDomain" not in proc.stderr and "Error Domain" not in proc.stderr
    pattern = re.compile(r"^\S.*: " + re.escape(prefix + WORDS[cause]) + "$")
    assert [l for l in proc.stderr.splitlines() if pattern.match(l)], proc.stderr


def test_a_site_file_over_the_processs_size_limit(dossier_bin, tmp_path):
    p = project(tmp_path / "p")
    assert run(dossier_bin, "build", ".", cwd=p).returncode == 0
    before, manifest = site_bytes(p), (p / "_site.manifest.json").read_bytes()
    (p / "content/big.md").write_text("# Big\n\n" + "word " * 40000 + "\n")
    proc = run(dossier_bin, "build", ".", cwd=p, fsize=100_000)
    plain(proc, "EFBIG", prefix="cannot write: ")
    assert site_bytes(p) == before and (p / "_site.manifest.json").read_bytes() == manifest
    assert not list(p.glob("._site.staging-*"))


def test_a_new_skeleton_file_over_the_processs_size_limit(dossier_bin, tmp_path):
    proc = run(dossier_bin, "new", "fresh", cwd=tmp_path, fsize=100)
    plain(proc, "EFBIG", prefix="cannot write: ")


def test_an_output_name_too_long_for_the_file_system(dossier_bin, tmp_path):
    p = project(tmp_path / "p")
    (p / "dossier.yml").write_text("title: F\noutput: " + "o" * 250 + "\n")
    proc = run(dossier_bin, "build", ".", cwd=p)
    plain(proc, "ENAMETOOLONG")
    assert sorted(x.name for x in p.iterdir() if not x.name.endswith(".lock")) == ["content", "dossier.yml"]


@pytest.fixture
def public_dir():
    """A folder the user nobody can enter (pytest's own tmp folders are private)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run the binary as nobody")
    d = pathlib.Path(tempfile.mkdtemp(prefix="doc-limits-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d)


def public_bin(dossier_bin, public_dir):
    """A copy of the binary nobody may run (a fresh clone's .build may sit in a private folder)."""
    copy = public_dir / "bin" / "dossier"
    copy.parent.mkdir(mode=0o755)
    shutil.copy(dossier_bin, copy)
    copy.chmod(0o755)
    return str(copy)


def test_a_project_folder_the_user_cannot_write(dossier_bin, public_dir):
    p = project(public_dir / "p")
    for q in [p, *p.rglob("*")]:
        q.chmod(0o755 if q.is_dir() else 0o644)
    proc = run(public_bin(dossier_bin, public_dir), "build", ".", cwd=p, nobody=True)
    plain(proc, "EACCES")
    assert not (p / "_site").exists()


def test_a_content_page_the_user_cannot_read(dossier_bin, public_dir):
    p = project(public_dir / "p")
    (p / "content/secret.md").write_text("# Secret\n")
    for q in [p, *p.rglob("*")]:
        os.chown(q, 65534, 65534)
    (p / "content/secret.md").chmod(0)
    proc = run(public_bin(dossier_bin, public_dir), "build", ".", cwd=p, nobody=True)
    assert proc.returncode == 1
    assert f"content/secret.md: {WORDS['EACCES']}" in proc.stderr.splitlines(), proc.stderr


@pytest.fixture
def tmpfs(tmp_path):
    mounts = []

    def mount(size, at):
        at.mkdir()
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(at)], capture_output=True)
        if r.returncode != 0:
            pytest.skip("cannot mount a tmpfs here (needs root)")
        mounts.append(at)
        return at
    yield mount
    for at in reversed(mounts):
        subprocess.run(["umount", "-l", str(at)])


def test_a_full_disk(dossier_bin, tmp_path, tmpfs):
    p = project(tmpfs("1m", tmp_path / "m"))
    (p / "static").mkdir()
    (p / "static/a.bin").write_bytes(os.urandom(300_000))
    assert run(dossier_bin, "build", ".", cwd=p).returncode == 0
    before = site_bytes(p)
    (p / "static/b.bin").write_bytes(os.urandom(250_000))
    proc = run(dossier_bin, "build", ".", cwd=p)
    plain(proc, "ENOSPC")
    assert site_bytes(p) == before
    assert not list(p.glob("._site.staging-*"))


def test_a_read_only_disk(dossier_bin, tmp_path, tmpfs):
    p = project(tmpfs("2m", tmp_path / "m"))
    r = subprocess.run(["mount", "-o", "remount,ro", str(p)], capture_output=True)
    assert r.returncode == 0, r.stderr
    proc = run(dossier_bin, "build", ".", cwd=p)
    plain(proc, "EROFS")


def test_a_patch_writes_only_changed_files_even_on_a_nearly_full_disk(dossier_bin, tmp_path, tmpfs):
    """docs/output-manifest.md "Patch": the staging folder holds only the files whose bytes
    changed; a file whose SHA-256 and size equal the live copy's is not written at all. So a
    one-line page change needs room for that page, not for a second copy of static/."""
    p = project(tmpfs("1m", tmp_path / "m"))
    (p / "static").mkdir()
    (p / "static/a.bin").write_bytes(os.urandom(450_000))
    assert run(dossier_bin, "build", ".", cwd=p).returncode == 0
    ino = (p / "_site/a.bin").stat().st_ino
    (p / "content/index.md").write_text("# Home\n\nchanged\n")
    proc = run(dossier_bin, "build", ".", cwd=p)
    assert proc.returncode == 0, proc.stderr
    assert (p / "_site/a.bin").stat().st_ino == ino
