"""Issue #35, game ingest: a replayed old upload is a duplicate that changes nothing (the
player's result key stays the latest), and an upload gone from the WebDAV drop folder
when fetched (404) is skipped with a warning while the run goes on
(docs/game-telemetry.md)."""
import json
import pathlib
import shutil
import sqlite3
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_game_release_data import sealed_players  # noqa: E402
from webdav_server import PASSWORD, USER, WebDAVServer  # noqa: E402

ENV = {"DOSSIER_WEBDAV_USER": USER, "DOSSIER_WEBDAV_PASSWORD": PASSWORD}


def test_a_replayed_old_upload_changes_nothing(run_dossier, tmp_path):
    run_dossier("game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    cohort = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", "1", "--seed", "23", "--obstacles", "10", "--out", cohort)
    lines = cohort.read_text(encoding="utf-8").splitlines()
    sessions = [k for k, l in enumerate(lines) if json.loads(l)["type"] == "session"]
    assert len(sessions) >= 2
    early = tmp_path / "early.jsonl"    # everything up to the first session: the device's first upload
    early.write_text("\n".join(l for k, l in enumerate(lines) if k not in sessions[1:]) + "\n", encoding="utf-8")
    devices = tmp_path / "devices"
    run_dossier("game", "seal", "--public", tmp_path / "study.pub", "--out", tmp_path / "u1", "--devices", devices, early)
    run_dossier("game", "seal", "--public", tmp_path / "study.pub", "--out", tmp_path / "u2", "--devices", devices, cohort)
    (device,) = devices.glob("*.device.json")
    latest = json.loads(device.read_text())["result_key"]
    (u1,) = (tmp_path / "u1").glob("*.rmu")
    (u2,) = (tmp_path / "u2").glob("*.rmu")
    db = tmp_path / "s.sqlite"
    key = tmp_path / "study.key"
    run_dossier("game", "ingest", "--key", key, "--db", db, u1)
    run_dossier("game", "ingest", "--key", key, "--db", db, u2)

    def state():
        con = sqlite3.connect(db)
        try:
            return [con.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ("devices", "uploads")]
        finally:
            con.close()

    before = state()
    assert before[0][0][2] == latest
    r = run_dossier("game", "ingest", "--key", key, "--db", db, u1)   # an attacker replays the old capture
    assert "duplicate" in r.stdout
    assert state() == before, "a duplicate must change nothing, not even the result key"


def test_an_upload_gone_when_fetched_is_skipped_with_a_warning(run_dossier, dossier_bin, tmp_path):
    sealed_players(dossier_bin, tmp_path, 3, 29, obstacles=10)
    up = tmp_path / "up"
    root = tmp_path / "srv"
    drop = root / "drop"
    drop.mkdir(parents=True)
    names = sorted(f.name for f in up.glob("*.rmu"))
    assert len(names) == 3
    for n in names:
        shutil.copy(up / n, drop / n)
    db = tmp_path / "s.sqlite"
    # When the first upload is fetched, the second vanishes (another ingest took it).
    with WebDAVServer(root, tamper=f"GET:/drop/{names[0]}:drop/{names[1]}:<remove>") as dav:
        p = run_dossier("game", "ingest", "--key", tmp_path / "study.key", "--from", dav.url + "drop/", "--db", db,
                        env=ENV, check=False)
    assert p.returncode == 0, p.stderr
    assert f"warning: {names[1]}: skipped: gone from the drop folder" in p.stderr and "HTTP 404" in p.stderr
    assert "2 stored, 0 duplicates, 0 rejected, 1 gone" in p.stdout
    assert list(drop.glob("*.rmu")) == []        # the later file was still fetched, stored and removed
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM uploads").fetchone() == (2,)
    con.close()
    assert PASSWORD not in p.stdout + p.stderr
