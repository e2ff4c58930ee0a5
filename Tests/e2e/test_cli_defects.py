"""Small defects of the first hour (issue #36): each bad input is refused with the file,
the line when there is one, and what is wrong; exit status 1; nothing half-written.

- `game ingest` / `game simulate --db dir/x.sqlite` with a missing folder
  (docs/game-telemetry.md, "Where the database is");
- a native recall log whose participant number is only white space
  (docs/recall-events.md);
- a build with an `sms` block whose keystore folder may not be written: it writes
  nothing there, not even a lock file, and does not count a wrong password
  (docs/securesms-keystore.md, "Read-only folders"): a folder made read-only with
  `chmod a-w` (read-only for root too), and a folder the builder may not write (when the
  tests run as root, the build then runs as the user `nobody`, with setpriv).
"""
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest


def tree(folder: pathlib.Path):
    """Every file under `folder` with its bytes (folders as None)."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def test_a_database_in_a_missing_folder_is_named_and_nothing_is_made(run_dossier, tmp_path):
    run_dossier("game", "keygen", "--output", "study", "--bits", "2048", "-q", cwd=tmp_path)
    run_dossier("game", "simulate", "--players", "2", "--output", "c.jsonl", "-q", cwd=tmp_path)
    run_dossier("game", "seal", "--public", "study.pub", "--output", "up", "c.jsonl", "-q", cwd=tmp_path)
    before = tree(tmp_path)
    for args in (["game", "ingest", "--key", "study.key", "up", "--db", "dir/x.sqlite"],
                 ["game", "simulate", "--players", "2", "--db", "dir/x.sqlite"]):
        r = run_dossier(*args, cwd=tmp_path, check=False)
        assert r.returncode == 1, r
        assert r.stderr == ("dir/x.sqlite: cannot create the database: the folder dir does not exist "
                            "(create it first)\n"), r.stderr
        assert r.stdout == ""
        assert tree(tmp_path) == before            # no folder, no database, no journal
    (tmp_path / "dir").write_text("a file")
    r = run_dossier("game", "ingest", "--key", "study.key", "up", "--db", "dir/x.sqlite", cwd=tmp_path, check=False)
    assert r.returncode == 1 and "dir is a file, not a folder" in r.stderr, r.stderr
    (tmp_path / "dir").unlink()
    (tmp_path / "dir").mkdir()
    r = run_dossier("game", "ingest", "--key", "study.key", "up", "--db", "dir", cwd=tmp_path, check=False)
    assert r.returncode == 1 and "dir: is a folder, not a database file" in r.stderr, r.stderr
    # the folder made, the same command works
    run_dossier("game", "ingest", "--key", "study.key", "up", "--db", "dir/x.sqlite", "-q", cwd=tmp_path)
    assert (tmp_path / "dir" / "x.sqlite").is_file()


def test_a_participant_number_of_white_space_alone_is_refused_at_its_line(run_dossier, tmp_path):
    run_dossier("new", "p", "--with", "recall-kit", "-q", cwd=tmp_path)
    logs = tmp_path / "p" / "data" / "recall" / "logs"
    run_dossier("recall", "simulate", "--participants", "1", "--output", logs, "--strings",
                tmp_path / "p" / "data" / "recall" / "strings.txt", "-q")
    run_dossier("build", "p", "-q", cwd=tmp_path)
    site = tree(tmp_path / "p" / "_site")
    good = (logs / "S001.jsonl").read_text().splitlines()
    header = json.loads(good[0])
    for blank in ["   ", "\u3000", " \u00a0\ufeff"]:
        header["participant"] = blank
        (logs / "S002.jsonl").write_text("\n".join([json.dumps(header)] + good[1:]) + "\n")
        r = run_dossier("build", "p", cwd=tmp_path, check=False)
        assert r.returncode == 1, r
        assert ("data/recall/logs/S002.jsonl:1: the participant number is only white space "
                "(it needs at least one other character)") in r.stderr, r.stderr
        assert tree(tmp_path / "p" / "_site") == site   # the previous site, untouched
    header["participant"] = " S 2 "                        # spaces around and inside are a number
    (logs / "S002.jsonl").write_text("\n".join([json.dumps(header)] + good[1:]) + "\n")
    run_dossier("build", "p", "-q", cwd=tmp_path)


@pytest.fixture
def shared_tmp():
    """A folder another user may enter (pytest's own temp folders are private to root)."""
    d = pathlib.Path(tempfile.mkdtemp(prefix="dossier-ro-"))
    os.chmod(d, 0o755)
    yield d
    for p in [d, *d.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            os.chmod(p, 0o755)
    shutil.rmtree(d)


def as_other_user(cmd):
    """The command as the user `nobody`, who may not write root's folders (needs root)."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to build as another user")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]


@pytest.mark.parametrize("how", ["chmod a-w", "another user's folder"])
def test_a_build_writes_nothing_beside_a_keystore_in_a_read_only_folder(dossier_bin, run_dossier, shared_tmp, how):
    password = {"DOSSIER_SMS_PASSWORD": "plover quartz minnow 7 lantern"}
    proj = shared_tmp / "p"
    run_dossier("new", str(proj), "--with", "sms", "-q")
    store = proj / "data" / "sms" / "my.keystore"
    run_dossier("sms", "init", "--keystore", store, "--account", "me", "--kdf-log2n", "10", "-q", env=password)
    # a copy as a read-only folder holds it: no lock file
    (store.parent / "my.keystore.lock").unlink(missing_ok=True)
    os.chmod(store, 0o444)
    if how == "chmod a-w":
        # read-only by its mode, for every user: root too, whom modes do not stop
        os.chmod(store.parent, 0o555)
        wrap = list
    else:
        # a folder the builder has no write permission for: root's (mode 755), built by nobody
        os.chmod(store.parent, 0o755)
        wrap = as_other_user
        for p in [proj, *proj.rglob("*")]:
            if p != store.parent and p.parent != store.parent:
                os.chown(p, 65534, 65534)              # the builder owns the project, not data/sms
    env = dict(os.environ, HOME=str(shared_tmp), **password)
    keystore = store.read_bytes()

    def build(**extra):
        return subprocess.run(wrap([dossier_bin, "build", str(proj)]), env=dict(env, **extra),
                              capture_output=True, text=True, timeout=300)

    r = build()
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(store.parent)) == ["my.keystore"]      # no lock file, no temp file
    assert store.read_bytes() == keystore
    assert (proj / "_site" / "sms" / "index.html").is_file()
    site = tree(proj / "_site")
    for _ in range(4):   # more than max_failures (3): not counted, so never locked
        bad = build(DOSSIER_SMS_PASSWORD="not the password")
        assert bad.returncode == 1
        assert "data/sms/my.keystore" in bad.stderr and "wrong password (not counted" in bad.stderr, bad.stderr
        assert store.read_bytes() == keystore and sorted(os.listdir(store.parent)) == ["my.keystore"]
        assert tree(proj / "_site") == site
    assert build().returncode == 0
    # the same keystore in a folder the builder may write: the try is counted there
    os.chmod(store.parent, 0o777)
    bad = build(DOSSIER_SMS_PASSWORD="not the password")
    assert bad.returncode == 1 and "2 more tries before the keystore locks" in bad.stderr, bad.stderr
    assert json.loads(store.read_text())["lockout"]["failures"] == 1
