"""`dossier archive --force` killed at every write point (issue #34): the destination
always holds a complete bag, the old one or the new one, and the next run sweeps what the
dead one left. Before the fix the old bag was removed before the new one was moved in,
so a kill there destroyed it."""
import os
import shutil
import subprocess

import pytest

from test_archive import bagit_validate
from webdav_server import make_site, tree, write_manifest

KILLED = 86


def archive(dossier_bin, site, out, *extra, fault=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_FAULT")}
    if fault:
        env["DOSSIER_FAULT_AT"], env["DOSSIER_FAULT_MODE"] = str(fault), "kill"
    return subprocess.run([dossier_bin, "archive", "--site", str(site), "--output", str(out), *extra],
                          env=env, capture_output=True, text=True, timeout=300)


def payload(bag):
    return tree(bag / "data" / "site")


def unpacked(bag, tmp):
    if bag.suffix != ".zip":
        return bag
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.unpack_archive(bag, tmp)
    (top,) = list(tmp.iterdir())
    return top


@pytest.mark.parametrize("name", ["bag", "bag.zip"])
def test_a_kill_at_any_write_point_of_archive_force_leaves_a_complete_bag(dossier_bin, tmp_path, name):
    old_site = make_site(tmp_path / "old", pages=2)
    new_site = make_site(tmp_path / "new", pages=3)
    (new_site / "index.html").write_text("<h1>Study, new</h1>\n")
    write_manifest(new_site)
    dest = tmp_path / "out" / name
    dest.parent.mkdir()
    n = 0
    while True:
        n += 1
        if dest.exists():
            shutil.rmtree(dest) if dest.is_dir() else dest.unlink()
        assert archive(dossier_bin, old_site, dest).returncode == 0
        p = archive(dossier_bin, new_site, dest, "--force", fault=n)
        if "fault injected" not in p.stderr:
            assert p.returncode == 0, p.stderr
            break
        assert p.returncode == KILLED, p.stderr
        bag = unpacked(dest, tmp_path / "unz")
        assert payload(bag) in (tree(old_site), tree(new_site)), n
        assert subprocess.run([dossier_bin, "archive", "--verify", str(dest)], capture_output=True).returncode == 0, n
        assert bagit_validate(bag).returncode == 0, n
        # The next run sweeps the dead run's work folder and writes the new bag.
        assert archive(dossier_bin, new_site, dest, "--force").returncode == 0
        assert payload(unpacked(dest, tmp_path / "unz")) == tree(new_site)
        assert [p.name for p in dest.parent.iterdir()] == [name], n
    assert n > 10


@pytest.mark.parametrize("name, what", [("bag", "data/site/big.bin"), ("bag.zip", "data/site/big.bin"),
                                        ("bag.zip", "the zip")])
def test_a_failed_write_names_the_bag_not_its_work_folder(dossier_bin, tmp_path, name, what):
    """A write that fails inside the work folder (`.bag.tmp-<pid>`, gone once the command
    ends) is named after the bag and the path inside it. Made to happen by the process's
    file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored: the write fails with EFBIG): below the
    largest site file, or between it and the zip's size."""
    import resource
    import signal
    site = make_site(tmp_path / "s", pages=2)
    big = os.urandom(200_000)
    (site / "big.bin").write_bytes(big)
    write_manifest(site)
    limit = 100_000 if what != "the zip" else len(big) + 1

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_FAULT")}
    proc = subprocess.run([dossier_bin, "archive", "--site", str(site), "--output", name], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, preexec_fn=limited)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.startswith(f"{name}: "), proc.stderr
    assert ".tmp-" not in proc.stderr, proc.stderr
    if what == "the zip":   # the zip writer's own words
        assert proc.stderr.strip() == f"{name}: cannot write the zip (File too large)", proc.stderr
    else:
        assert f"(writing {what})" in proc.stderr and "ulimit -f" in proc.stderr, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]   # no bag, no work folder left
