"""A WebDAV drop folder takes files from anyone, so one file must not stop an ingest:
a file whose GET never ends (fault_dav.py's `endless`) is read only to the client's
answer limit (256 MiB), refused like any bad upload and left in the folder, and every
other upload is still stored and removed (docs/game-telemetry.md, "Ingest from a WebDAV
drop folder"; docs/recall-upload.md). Before, the first such file stopped the run with
"the answer is longer than …", and every later run stopped at the same file."""
import json
import os
import shutil
import sqlite3
import subprocess

from webdav_server import PASSWORD, USER, WebDAVServer

ENV = {"DOSSIER_WEBDAV_USER": USER, "DOSSIER_WEBDAV_PASSWORD": PASSWORD}
TOO_LONG = "rejected: the file is longer than 268435456 bytes (256 MiB), more than any upload may be"


def drop_with_an_endless_file(tmp_path, uploads, name):
    """srv/drop/ with the uploads and `name` (sorted first), whose GET never ends."""
    drop = tmp_path / "srv" / "drop"
    drop.mkdir(parents=True)
    for f in uploads:
        shutil.copy(f, drop / f.name)
    (drop / name).write_bytes(b"not an upload")
    rules = tmp_path / "faults.json"
    rules.write_text(json.dumps({"rules": [{"method": "GET", "path": f"/drop/{name}", "fault": "endless"}]}))
    return drop, WebDAVServer(tmp_path / "srv", faults=rules)


def sealed_game_uploads(run_dossier, tmp_path, players):
    """A study key pair (tmp_path/study.key, .pub), `players` simulated players (seed 17)
    and their sealed uploads: (cohort file, uploads folder)."""
    run_dossier("game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    cohort = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", str(players), "--seed", "17", "--out", cohort)
    up = tmp_path / "up"
    run_dossier("game", "seal", "--public", tmp_path / "study.pub", "--out", up, cohort)
    return cohort, up


def test_game_ingest_refuses_an_endless_file_and_stores_the_rest(run_dossier, tmp_path):
    _, up = sealed_game_uploads(run_dossier, tmp_path, 3)
    drop, dav = drop_with_an_endless_file(tmp_path, sorted(up.glob("*.rmu")), "0-endless.rmu")
    db = tmp_path / "s.sqlite"
    with dav:
        p = run_dossier("game", "ingest", "--key", tmp_path / "study.key", "--from", dav.url + "drop/", "--db", db,
                        env=ENV, check=False)
        assert any(k == "endless" for _, _, k in dav.faults_fired())
    assert p.returncode == 1, p.stderr
    assert f"0-endless.rmu: {TOO_LONG}" in p.stderr, p.stderr
    assert "3 stored, 0 duplicates, 1 rejected" in p.stdout, p.stdout
    assert [f.name for f in drop.glob("*.rmu")] == ["0-endless.rmu"]
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM uploads").fetchone() == (3,)
    con.close()
    assert PASSWORD not in p.stdout + p.stderr


def test_recall_ingest_refuses_an_endless_file_and_stores_the_rest(dossier_bin, run_dossier, tmp_path):
    run_dossier("recall", "keygen", "--output", tmp_path / "study", "--bits", "2048")
    src = tmp_path / "src"
    run_dossier("recall", "simulate", "--participants", "2", "--seed", "5", "--output", src)
    up = tmp_path / "uploads"
    run_dossier("recall", "seal", "--public", tmp_path / "study.pub", "--output", up, *sorted(src.glob("S*.jsonl")))
    drop, dav = drop_with_an_endless_file(tmp_path, sorted(up.glob("*.rcu")), "0-endless.rcu")
    logs = tmp_path / "logs"
    logs.mkdir()
    with dav:
        p = subprocess.run([dossier_bin, "recall", "ingest", "--key", str(tmp_path / "study.key"),
                            "--from", dav.url + "drop/", "--logs", str(logs)],
                           env={**os.environ, **ENV}, capture_output=True, text=True, timeout=300)
        assert any(k == "endless" for _, _, k in dav.faults_fired())
    assert p.returncode == 1, p.stderr
    assert "0-endless.rcu: refused: the file is longer than 268435456 bytes" in p.stderr, p.stderr
    assert [f.name for f in drop.glob("*.rcu")] == ["0-endless.rcu"]
    assert sorted(f.name for f in logs.glob("S*.jsonl")) == sorted(f.name for f in src.glob("S*.jsonl"))
    assert PASSWORD not in p.stdout + p.stderr


def peak_kb(p):
    return int(p.stderr.rsplit("maxrss=", 1)[1].split()[0])


def test_local_drops_refuse_a_huge_file_unread_and_never_wait_on_a_pipe(dossier_bin, run_dossier, tmp_path):
    """A 3 GB (sparse) file and a named pipe among the uploads of a local drop: the huge
    file is refused from its size, unread (the old binary read it whole: 6 GB of memory);
    the pipe is passed over, never waited on (the reader opens files itself, without
    blocking); the rest is stored."""
    _, up = sealed_game_uploads(run_dossier, tmp_path, 2)
    for drop, ext in ((up, ".rmu"), (tmp_path / "rdrop", ".rcu")):
        drop.mkdir(exist_ok=True)
        with open(drop / f"0-huge{ext}", "wb") as f:
            f.truncate(3 << 30)
        os.mkfifo(drop / f"1-pipe{ext}")
    run_dossier("recall", "keygen", "--output", tmp_path / "rstudy", "--bits", "2048")
    src = tmp_path / "src"
    run_dossier("recall", "simulate", "--participants", "1", "--seed", "5", "--output", src)
    run_dossier("recall", "seal", "--public", tmp_path / "rstudy.pub", "--output", tmp_path / "rdrop",
                *sorted(src.glob("S*.jsonl")))
    logs = tmp_path / "logs"
    logs.mkdir()
    timed = ["/usr/bin/time", "-f", "maxrss=%M", dossier_bin]
    game = subprocess.run([*timed, "game", "ingest", "--key", str(tmp_path / "study.key"), "--db",
                           str(tmp_path / "s.sqlite"), str(up)], capture_output=True, text=True, timeout=60)
    recall = subprocess.run([*timed, "recall", "ingest", "--key", str(tmp_path / "rstudy.key"), "--from",
                             str(tmp_path / "rdrop"), "--logs", str(logs)], capture_output=True, text=True, timeout=60)
    for p, ext, word in ((game, ".rmu", "rejected"), (recall, ".rcu", "refused")):
        assert p.returncode == 1, p.stderr
        assert f"0-huge{ext}: {word}: the file is longer than 268435456 bytes" in p.stderr, p.stderr
        assert peak_kb(p) < 300 * 1024, peak_kb(p)
    assert "2 stored, 0 duplicates," in game.stdout, game.stdout
    assert "1 stored, 0 already stored," in recall.stdout, recall.stdout
    assert [f.name for f in logs.glob("S*.jsonl")] == ["S001.jsonl"]
