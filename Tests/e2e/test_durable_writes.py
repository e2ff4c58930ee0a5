"""Files that cannot be rebuilt (key files, the game's privacy key) are written durably: flushed, renamed into place, and the
folder flushed after the rename, so the new name survives a power cut.

The order of the system calls is read from `strace` of the real binary: nothing else
shows a missing `fsync`, since a test machine does not lose power.
"""
import re
import shutil
import subprocess

import pytest

from conftest import dossier_path

LINE = re.compile(r"^(?:\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+)")


def traced_calls(log_text):
    """[(name, args, result)] in the order the calls returned (finished lines only)."""
    calls = []
    for line in log_text.splitlines():
        m = LINE.match(line)
        if m:
            calls.append((m.group(1), m.group(2), int(m.group(3))))
    return calls


def assert_durable(calls, target, folder):
    """The write of `target`: its temporary file fsynced before the rename over
    `target`, then `folder` opened and fsynced after it."""
    renames = [i for i, (name, args, res) in enumerate(calls)
               if name.startswith("rename") and args.rstrip().endswith(f'"{target}"') and res == 0]
    assert len(renames) == 1, f"expected one rename onto {target}, saw {len(renames)}"
    r = renames[0]
    temp = re.search(r'"([^"]+)"', calls[r][1]).group(1)
    opened = [(i, res) for i, (name, args, res) in enumerate(calls[:r])
              if name in ("open", "openat") and f'"{temp}"' in args and res >= 0]
    assert opened, f"the temporary file {temp} was not opened before the rename"
    first, fd = opened[-1]
    assert any(name == "fsync" and args == str(fd) and res == 0 for name, args, res in calls[first:r]), \
        f"{temp} was renamed onto {target} without an fsync of its own"
    folder_fds = [(i, res) for i, (name, args, res) in enumerate(calls[r:], start=r)
                  if name in ("open", "openat") and f'"{folder}"' in args and "O_DIRECTORY" in args and res >= 0]
    assert folder_fds, f"{folder} was not opened after the rename onto {target}"
    i, dfd = folder_fds[0]
    assert any(name == "fsync" and args == str(dfd) and res == 0 for name, args, res in calls[i:]), \
        f"{folder} was not fsynced after the rename onto {target}"


def test_key_pair_files_are_flushed_with_their_folder_after_the_rename(tmp_path):
    keys = tmp_path / "keys"
    keys.mkdir()
    calls = trace(tmp_path, "recall", "keygen", "--output", keys / "study", "--bits", "2048")
    for name in ("study.key", "study.pub"):
        assert_durable(calls, str(keys / name), str(keys))


def trace(tmp_path, *args):
    strace = shutil.which("strace")
    assert strace, "strace is missing (scripts/deps/core.apt installs it)"
    log = tmp_path / "trace.log"
    proc = subprocess.run([strace, "-f", "-qq", "-o", str(log), "-e",
                           "trace=open,openat,fsync,rename,renameat,renameat2", dossier_path(), *map(str, args)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return traced_calls(log.read_text())


def test_the_game_privacy_key_is_flushed_with_its_folder_when_a_build_makes_it(tmp_path):
    """A key lost in a crash after a release was built would mean fresh noise over the
    same data (docs/game-privacy.md)."""
    data = tmp_path / "cohort.jsonl"
    subprocess.run([dossier_path(), "game", "simulate", "--players", "30", "--seed", "3", "--out", str(data)],
                   check=True, capture_output=True, timeout=300)
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "dossier.yml").write_text(f"title: Game\noutput: _site\ngame:\n  telemetry: {data}\n")
    calls = trace(tmp_path, "build", "--quiet", proj)
    key = proj / ".dossier" / "privacy.key"
    assert len(key.read_text().strip()) == 64
    assert_durable(calls, str(key), str(key.parent))


@pytest.mark.parametrize("fsync_dir", [True, False])
def test_the_order_check_fails_when_the_folder_is_not_flushed(fsync_dir):
    """The checker above, on a made-up trace: it must refuse a write without the
    folder's fsync (so the test above can fail)."""
    trace = "\n".join([
        'openat(AT_FDCWD, "/k/.a.tmp-1", O_WRONLY|O_CREAT|O_EXCL, 0600) = 3',
        "fsync(3) = 0",
        'rename("/k/.a.tmp-1", "/k/a") = 0',
        'openat(AT_FDCWD, "/k", O_RDONLY|O_DIRECTORY) = 4',
    ] + (["fsync(4) = 0"] if fsync_dir else []))
    if fsync_dir:
        assert_durable(traced_calls(trace), "/k/a", "/k")
    else:
        with pytest.raises(AssertionError, match="not fsynced after the rename"):
            assert_durable(traced_calls(trace), "/k/a", "/k")
