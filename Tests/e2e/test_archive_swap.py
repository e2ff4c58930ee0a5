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
