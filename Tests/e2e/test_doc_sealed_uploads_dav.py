"""Sealed uploads pulled from a WebDAV drop, from the docs alone.

docs/recall-upload.md "Ingest" (`--from http://127.0.0.1…/`: stored uploads are deleted
or moved into `--move-to`, refused ones stay, exit 1) and docs/game-telemetry.md "Ingest
from a WebDAV drop folder" (GET, ingest, DELETE only after the commit; `--move-to`; a
rejected upload stays). The drop is a plain wsgidav server on 127.0.0.1 in tmp_path.
"""
import socket
import subprocess
import time
import urllib.request

import pytest

from test_doc_sealed_uploads import (LOG_NAME, Device, Study, dossier, recall_keys,  # noqa: F401
                                     recall_log, recall_plaintext, seal, summary)
from test_doc_sealed_uploads_game import PLAYER, GameDevice, GameStudy, game_keys, jl, session  # noqa: F401


@pytest.fixture
def dav(tmp_path, monkeypatch):
    monkeypatch.setenv("DOSSIER_WEBDAV_USER", "study")  # the server takes anyone; the client wants a name
    monkeypatch.setenv("DOSSIER_WEBDAV_PASSWORD", "secret")
    root = tmp_path / "dav"
    (root / "drop").mkdir(parents=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["wsgidav", "--host", "127.0.0.1", "--port", str(port), "--root", str(root),
                             "--auth", "anonymous", "--no-config", "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/drop/"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.skip("wsgidav did not start")
        yield root / "drop", url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_recall_ingest_from_webdav_deletes_or_moves_stored_uploads_and_keeps_refused_ones(tmp_path, dav,
                                                                                          recall_keys):
    drop, url = dav
    study = Study(tmp_path, recall_keys)
    dev = Device()
    stored = "rc-" + "1" * 24 + ".rcu"
    moved = "rc-" + "2" * 24 + ".rcu"
    bad = "rc-" + "3" * 24 + ".rcu"
    (drop / stored).write_bytes(seal(study.pub, recall_plaintext(dev, stored, LOG_NAME, recall_log())))
    (drop / bad).write_bytes(b"RMU2" + b"\0" * 400)
    proc = dossier("recall", "ingest", "--key", study.key_path, "--from", url, "--logs", study.logs)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{stored}: stored {LOG_NAME}" in proc.stdout
    assert f"{bad}: refused: not a sealed upload (the first bytes are not RMU1) (kept in the drop)" in proc.stderr
    assert summary(1, 0, 1) in proc.stdout + proc.stderr
    assert sorted(p.name for p in drop.iterdir()) == [bad]
    assert (study.logs / LOG_NAME).read_bytes() == recall_log()
    (drop / bad).unlink()
    (drop / moved).write_bytes(seal(study.pub, recall_plaintext(dev, moved, "second.jsonl", recall_log("P-2"))))
    proc = dossier("recall", "ingest", "--key", study.key_path, "--from", url, "--logs", study.logs,
                   "--move-to", "done")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (drop / "done" / moved).exists() and not (drop / moved).exists()
    assert (study.logs / "second.jsonl").read_bytes() == recall_log("P-2")


def test_game_ingest_from_webdav_deletes_stored_and_keeps_rejected(tmp_path, dav, game_keys):
    drop, url = dav
    game = GameStudy(tmp_path, game_keys)
    (drop / "a.rmu").write_bytes(seal(game.pub, GameDevice().plaintext(PLAYER, jl(session()))))
    (drop / "b.rmu").write_bytes(b"RMU1")
    (drop / "c.txt").write_bytes(b"not an upload")
    proc = dossier("game", "ingest", "--key", game.key_path, "--db", game.db, "--from", url, "--move-to", "done")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert game.rows("SELECT player, session FROM sessions") == [(PLAYER, 1)]
    assert sorted(p.name for p in drop.iterdir()) == ["b.rmu", "c.txt", "done"]
    assert [p.name for p in (drop / "done").iterdir()] == ["a.rmu"]
    assert [x for x in proc.stderr.splitlines() if "b.rmu" in x and "rejected: " in x]
