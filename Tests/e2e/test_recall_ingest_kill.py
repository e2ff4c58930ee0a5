"""`dossier recall ingest` killed at each write point in turn (DOSSIER_FAULT_AT=N, debug
builds: Sources/WebDAV/FaultPoint.swift), from a local folder and from a WebDAV drop: after
every kill the logs folder holds only whole logs and every upload is either stored or
still in the drop; the re-run converges — every log stored exactly once (one upload is a
second sealing of the same log), the drop empty, no temporary file left
(docs/recall-upload.md, "Storing"). With --move-to, stored uploads are moved and a
refused one stays."""
import os
import shutil
import subprocess

import pytest

from webdav_server import PASSWORD, USER, WebDAVServer

KILLED = 86


def ingest(dossier_bin, key, source, logs, fault=None, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_FAULT")}
    e.update(env or {})
    if fault:
        e["DOSSIER_FAULT_AT"], e["DOSSIER_FAULT_MODE"] = str(fault), "kill"
    return subprocess.run([dossier_bin, "recall", "ingest", "--key", str(key), "--from", str(source), "--logs", str(logs)],
                          env=e, capture_output=True, text=True, timeout=300)


@pytest.fixture
def sealed(run_dossier, tmp_path):
    """Three simulated logs sealed as the kit would, one of them twice (a second upload
    of the same log): (key, uploads folder, {log name: bytes})."""
    run_dossier("recall", "keygen", "--output", tmp_path / "study", "--bits", "2048")
    src = tmp_path / "src"
    run_dossier("recall", "simulate", "--participants", "3", "--seed", "5", "--output", src)
    logs = sorted(src.glob("S*.jsonl"))
    up = tmp_path / "uploads"
    run_dossier("recall", "seal", "--public", tmp_path / "study.pub", "--output", up, *logs)
    run_dossier("recall", "seal", "--public", tmp_path / "study.pub", "--output", up, logs[0])
    assert len(list(up.glob("*.rcu"))) == 4
    return tmp_path / "study.key", up, {f.name: f.read_bytes() for f in logs}


def visible(folder):
    return {f.name: f.read_bytes() for f in folder.iterdir() if f.is_file() and not f.name.startswith(".")}


def check_after_kill(logs, drop, uploads, expected, n):
    stored = visible(logs)
    for name, data in stored.items():
        assert expected.get(name) == data, f"write point {n}: {name} is not a whole log"
    # Nothing lost: each log is stored or an upload of it is still in the drop.
    left = {f.name for f in drop.glob("*.rcu")}
    assert left <= uploads
    if len(stored) < len(expected):
        assert left, f"write point {n}: logs missing and no upload left to bring them"


@pytest.mark.parametrize("where", ["folder", "webdav"])
def test_a_kill_at_each_write_point_converges(dossier_bin, tmp_path, sealed, where):
    key, up, expected = sealed
    uploads = {f.name for f in up.glob("*.rcu")}
    root = tmp_path / "dav"
    drop = root / "drop"
    server = WebDAVServer(root).start() if where == "webdav" else None
    env = {"DOSSIER_WEBDAV_USER": USER, "DOSSIER_WEBDAV_PASSWORD": PASSWORD} if server else {}
    source = server.url + "drop/" if server else drop
    try:
        n, met = 0, 0
        while True:
            n += 1
            shutil.rmtree(drop, ignore_errors=True)
            shutil.copytree(up, drop)
            logs = tmp_path / f"logs-{n}"
            logs.mkdir()
            p = ingest(dossier_bin, key, source, logs, fault=n, env=env)
            if "fault injected" not in p.stderr:
                assert p.returncode == 0, p.stderr
                assert "3 stored, 1 already stored, 0 refused" in p.stdout
                break
            met += 1
            assert p.returncode == KILLED, p.stderr
            check_after_kill(logs, drop, uploads, expected, n)
            again = ingest(dossier_bin, key, source, logs, env=env)
            assert again.returncode == 0, (n, again.stdout, again.stderr)
            assert visible(logs) == expected, n
            assert list(drop.glob("*.rcu")) == [], n
            assert [f.name for f in logs.iterdir() if f.name.endswith(".partial")] == [], n
            assert len(list((logs / ".recall-devices").iterdir())) == 1, n
            assert PASSWORD not in p.stdout + p.stderr + again.stdout + again.stderr
        assert met >= 10, f"only {met} write points were met"
    finally:
        if server:
            server.stop()


def test_move_to_keeps_stored_uploads_and_refused_ones_stay(dossier_bin, tmp_path, sealed):
    key, up, expected = sealed
    drop = tmp_path / "drop"
    shutil.copytree(up, drop)
    names = sorted(f.name for f in drop.glob("*.rcu"))
    bad = drop / "rc-ffffffffffffffffffffffff.rcu"
    bad.write_bytes((drop / names[0]).read_bytes()[:-1])      # cut short: refused
    logs = tmp_path / "logs"
    logs.mkdir()
    e = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_FAULT")}
    p = subprocess.run([dossier_bin, "recall", "ingest", "--key", str(key), "--from", str(drop), "--logs", str(logs),
                        "--move-to", "done"], env=e, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "3 stored, 1 already stored, 1 refused" in p.stdout, p.stdout + p.stderr
    assert f"{bad.name}: refused: authentication failed" in p.stderr
    assert sorted(f.name for f in (drop / "done").glob("*.rcu")) == names
    assert [f.name for f in drop.glob("*.rcu")] == [bad.name]
    assert visible(logs) == expected
