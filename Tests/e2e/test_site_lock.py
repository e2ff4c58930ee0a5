"""One command at a time per site (docs/output-manifest.md, "One command at a time"): a
build holds `.<output>.lock` (beside the output folder) exclusively, a publish or an
archive holds it shared, with flock(2).

Each seam is made to happen, not hoped for: a first build is held (debug builds:
`DOSSIER_PAUSE_AT=site-committed`) after it has put its files in place and before it has
written their manifest and its state; or the test itself holds the lock as the document
says another program may. A second command then says whom it waits for, and is seen to be
still running, before the first is let go. Without the lock the second build patched the
same folder in between and the first then wrote a manifest of its own files over a site
holding the second's: `publish` refused that site until yet another build.
"""
import fcntl
import hashlib
import json
import os
import subprocess

from test_input_written_during_build import held_build
from test_recall_incremental import tree


def project(dossier_bin, tmp_path):
    root = tmp_path / "p"
    subprocess.run([dossier_bin, "new", str(root)], check=True, capture_output=True)
    (root / "content" / "notes.md").write_text("# Notes\n\nversion zero\n", encoding="utf-8")
    run(dossier_bin, "build", "--quiet", str(root))
    return root


def run(dossier_bin, *args):
    r = subprocess.run([dossier_bin, *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def started(dossier_bin, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOSSIER_FAULT", "DOSSIER_PAUSE"))}
    return subprocess.Popen([dossier_bin, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def says_it_waits(p, holder):
    """The first line `p` writes on standard error names `holder`, and `p` is still running
    (an old binary, which does not wait, finishes instead: readline then meets the end)."""
    line = p.stderr.readline()
    if not (line.startswith("waiting for ") and holder in line):
        p.kill()   # (it may be waiting for this test's lock: never read its standard error to the end first)
        assert False, line + p.communicate()[1]
    assert p.poll() is None


def finished(p):
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, out + err
    return out + err


def manifest_agrees_with_site(root):
    m = json.loads((root / "_site.manifest.json").read_text())
    files = {f["path"]: f["sha256"] for f in m["files"]}
    on_disk = {k: hashlib.sha256(v).hexdigest() for k, v in tree(root / "_site").items()}
    assert files == on_disk
    return m


def test_a_second_build_waits_and_the_manifest_describes_the_site(dossier_bin, tmp_path):
    root = project(dossier_bin, tmp_path)
    page = root / "content" / "notes.md"
    page.write_text("# Notes\n\nversion one\n", encoding="utf-8")
    pause = tmp_path / "pause"
    first = held_build(dossier_bin, root, pause, at="site-committed:1")
    page.write_text("# Notes\n\nversion two, longer\n", encoding="utf-8")
    second = started(dossier_bin, "build", "--quiet", str(root))   # quiet: the wait is still said
    says_it_waits(second, f"dossier build (pid {first.pid})")
    pause.touch()
    finished(first)
    finished(second)
    m = manifest_agrees_with_site(root)
    assert "version two" in (root / "_site" / "notes" / "index.html").read_text()
    digest = hashlib.sha256(page.read_bytes()).hexdigest()
    assert [i["sha256"] for i in m["inputs"] if i["path"] == "content/notes.md"] == [digest]
    before = tree(root / "_site")
    out = run(dossier_bin, "build", str(root)).stderr
    assert "0 pages rendered" in out and tree(root / "_site") == before   # the state agrees too
    run(dossier_bin, "archive", str(root), "--output", str(tmp_path / "bag"))


def held(root, mode):
    """The site's lock taken by this test, as docs/output-manifest.md says any program may."""
    fd = os.open(root / "._site.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, mode)
    return fd


def test_a_build_waits_for_a_reader_and_readers_wait_for_a_build(dossier_bin, tmp_path):
    root = project(dossier_bin, tmp_path)
    (root / "content" / "notes.md").write_text("# Notes\n\nversion one\n", encoding="utf-8")
    fd = held(root, fcntl.LOCK_SH)
    build = started(dossier_bin, "build", str(root))
    says_it_waits(build, "dossier")
    check = run(dossier_bin, "check", str(root))   # a check writes nothing: it never waits
    assert "waiting" not in check.stderr
    os.close(fd)
    finished(build)
    manifest_agrees_with_site(root)

    fd = held(root, fcntl.LOCK_EX)
    os.ftruncate(fd, 0)   # as a holder writes it: the whole file (a longer pid left there made a second line)
    os.pwrite(fd, f"{os.getpid()} build\n".encode(), 0)
    archive = started(dossier_bin, "archive", str(root), "--output", str(tmp_path / "bag"))
    publish = started(dossier_bin, "publish", str(root), "--to", "http://127.0.0.1:9/", "--dry-run")
    for p in (archive, publish):
        says_it_waits(p, f"dossier build (pid {os.getpid()})")
    assert not (tmp_path / "bag").exists()
    os.close(fd)
    assert "payload files" in finished(archive)
    publish.communicate(timeout=300)   # no server there: it only had to get past the lock
    assert (tmp_path / "bag" / "bagit.txt").exists()
