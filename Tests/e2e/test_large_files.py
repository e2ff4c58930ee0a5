"""Large static files are copied, hashed and published in chunks (issue #42).

Before: a static file was read whole into memory by the build and again by publish
(2.1 GB resident for a 2 GB file). Now both stay under 200 MB resident whatever the
size. `make test` uses a 256 MiB file (sparse on disk; more than the bound, so reading it
whole fails the check); `make soak` (DOSSIER_SOAK_RUNS ≥ 20) the 3 GB file of the issue.
"""
import os
import subprocess
import sys

from webdav_server import PASSWORD, USER, WebDAVServer

SIZE = 3 * 1000 ** 3 if int(os.environ.get("DOSSIER_SOAK_RUNS", "6")) >= 20 else 256 << 20
BOUND_KB = 200 * 1024

MEASURE = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
           "print('maxrss', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
           "sys.exit(r.returncode)")


def measured(args, env=None):
    """Runs `args` in a fresh Python process whose only child it is: its peak resident size."""
    p = subprocess.run([sys.executable, "-c", MEASURE, *map(str, args)], capture_output=True, text=True,
                       env=env, timeout=1800, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    return int(p.stderr.rsplit("maxrss ", 1)[1].split()[0]), p


def test_a_large_static_file_builds_and_publishes_in_flat_memory(dossier_bin, run_dossier, tmp_path):
    proj = tmp_path / "p"
    run_dossier("new", proj, "-q")
    (proj / "static").mkdir()
    big = proj / "static" / "big.bin"
    with open(big, "wb") as f:
        f.truncate(SIZE)              # sparse: no disk used for the source
        f.seek(SIZE - 5)
        f.write(b"tail\n")
    rss, _ = measured([dossier_bin, "build", proj, "-q"])
    assert rss < BOUND_KB, f"build peaked at {rss} KB"
    assert (proj / "_site" / "big.bin").stat().st_size == SIZE
    srv = tmp_path / "srv"
    with WebDAVServer(srv) as dav:
        env = dict(os.environ, DOSSIER_WEBDAV_PASSWORD=PASSWORD, DOSSIER_WEBDAV_USER=USER)
        rss, p = measured([dossier_bin, "publish", proj, "--to", dav.url + "s/"], env=env)
        assert rss < BOUND_KB, f"publish peaked at {rss} KB"
        copy = srv / "s" / "big.bin"
        assert copy.stat().st_size == SIZE
        with open(copy, "rb") as f:
            f.seek(SIZE - 5)
            assert f.read() == b"tail\n"
    # Neither the built nor the published copy is needed any more: free the disk at once.
    os.unlink(copy)
    os.unlink(proj / "_site" / "big.bin")


def test_a_session_log_over_the_maximum_is_refused_before_it_is_read(dossier_bin, tmp_path):
    """A recall log is still read whole: past its documented maximum (256 MiB,
    docs/limits.md) it is refused with the path, before any of it is read."""
    log = tmp_path / "big.jsonl"
    with open(log, "wb") as f:
        f.truncate((256 << 20) + 1)
    p = subprocess.run([dossier_bin, "recall", "parse", str(log)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert str(log) in p.stderr and "more than the maximum of 256 MiB" in p.stderr, p.stderr
