"""`dossier game ingest --from URL`: pull sealed uploads from a WebDAV drop folder (real
wsgidav on loopback), removing each only after it is stored; a kill between storing and
removing loses nothing and the next run converges."""
import json
import shutil
import sqlite3
import sys
import pathlib

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from webdav_server import PASSWORD, USER, WebDAVServer  # noqa: E402
from test_drop_folder_hostile import sealed_game_uploads  # noqa: E402

ENV = {"DOSSIER_WEBDAV_USER": USER, "DOSSIER_WEBDAV_PASSWORD": PASSWORD}


def test_ingest_from_webdav_drop_folder_survives_a_crash(run_dossier, tmp_path):
    cohort, up = sealed_game_uploads(run_dossier, tmp_path, 6)
    root = tmp_path / "srv"
    drop = root / "drop"
    drop.mkdir(parents=True)
    for f in up.glob("*.rmu"):
        shutil.copy(f, drop / f.name)
    bad = bytearray((drop / sorted(p.name for p in drop.iterdir())[0]).read_bytes())
    bad[-20] ^= 1
    (drop / "zz-tampered.rmu").write_bytes(bytes(bad))
    db = tmp_path / "s.sqlite"
    key = tmp_path / "study.key"
    # The server dies when the 4th DELETE arrives: 4 uploads stored, 3 removed.
    with WebDAVServer(root, die_before="DELETE:3") as dav:
        p = run_dossier("game", "ingest", "--key", key, "--from", dav.url + "drop/", "--db", db, env=ENV, check=False)
    assert p.returncode == 1
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM uploads").fetchone() == (4,)
    con.close()
    assert len(list(drop.glob("*.rmu"))) == 4      # 3 removed; the 4th was stored but not yet removed
    # The next run converges: the stored-but-not-removed upload is a duplicate, then moved.
    with WebDAVServer(root) as dav:
        p = run_dossier("game", "ingest", "--key", key, "--from", dav.url + "drop/", "--move-to", "done",
                        "--db", db, env=ENV, check=False)
    assert p.returncode == 1 and "zz-tampered.rmu: rejected: authentication failed" in p.stderr
    assert "2 stored, 1 duplicates, 1 rejected" in p.stdout
    assert sorted(f.name for f in drop.glob("*.rmu")) == ["zz-tampered.rmu"]
    assert len(list((drop / "done").glob("*.rmu"))) == 3
    a = json.loads(run_dossier("game", "analyze", "--json", cohort).stdout)
    b = json.loads(run_dossier("game", "analyze", "--json", "--db", db).stdout)
    assert a == b
    assert PASSWORD not in p.stdout + p.stderr
