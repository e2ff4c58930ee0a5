"""`game ingest` recomputes every session the game kit recorded (it carries its obstacle
`seed`) from the seed, the taps and the end (docs/game-kit.md, "The game model";
docs/game-telemetry.md, "Ingest"), and refuses one whose obstacles, jumps, collisions,
end or score contradict the model — naming the file, the line, the field and the first
difference — storing nothing of that upload. The expected sessions come from the
independent Python model of game_kit_driver.py. Also `game seal` of unchanged data keeps
the device's result key, so the device still finds its result after the duplicate."""
import base64
import hashlib
import hmac
import json
import sqlite3

import pytest

from game_kit_driver import expected_session, obstacles

SEED = 977
SURVEY = {"type": "survey", "player": "kit1", "complete": True, "diagnosed": False, "age": 30, "gender": "female"}


def kit_session():
    """A game as the kit records it: obstacle 0 cleared by a tap, then three collisions."""
    a = [o[0] for o in obstacles(SEED, 6)]
    taps = [a[0] + 400, a[1] + 100]
    m = expected_session(SEED, taps)
    assert len(m["collisions"]) == 3 and m["jumps"] == taps
    return {"type": "session", "player": "kit1", "session": 1, "start": 5000, "end": 5000 + m["end"], "score": m["score"],
            "seed": SEED, "obstacles": m["obstacles"], "taps": m["taps"], "jumps": m["jumps"],
            "collisions": m["collisions"], "volume": [], "errors": []}


def tampered(field):
    s = kit_session()
    if field == "obstacles":
        o = s["obstacles"][1]
        o[2] = "spike" if o[2] != "spike" else "crate"
        return s, f'obstacles differ at obstacle 2: recorded [{o[0]},{o[1]},"{o[2]}"]'
    if field == "jumps":
        s["jumps"] = s["jumps"][1:]
        return s, f"jumps differ at jump 1: recorded {s['jumps'][0]}, the model gives {s['taps'][0]}"
    if field == "collisions":
        # What a frame loop that missed a late tap records: a collision the jump contradicts.
        first = s["collisions"][0]
        s["collisions"] = [s["taps"][0] + 240] + s["collisions"][:2]
        return s, f"collisions differ at collision 1: recorded {s['taps'][0] + 240}, the model gives {first}"
    if field == "end":
        third, later = s["end"] - 5000, s["end"] - 5000 + 300
        s["end"] = 5000 + later
        s["obstacles"] = [o for o in obstacles(SEED, 20) if o[0] <= later]
        return s, f"end differs: recorded {later} ms after the start, the model ends at the third collision, {third}"
    s["score"] += 10
    return s, f"score differs: recorded {s['score']}, the model gives {s['score'] - 10}"


def seal(run_dossier, tmp_path, records, name="in", devices=None):
    src = tmp_path / f"{name}.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    up = tmp_path / f"up-{name}"
    run_dossier("game", "seal", "--public", tmp_path / "study.pub", "--out", up, "--devices", devices or tmp_path / "dev", src)
    return up


def stored_sessions(db):
    if not db.exists():
        return 0
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT count(*) FROM sessions").fetchone()[0]
    finally:
        con.close()


@pytest.fixture
def study(run_dossier, tmp_path):
    run_dossier("game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    return tmp_path


def test_a_session_that_agrees_with_its_model_is_stored(run_dossier, study):
    up = seal(run_dossier, study, [SURVEY, kit_session()])
    db = study / "s.sqlite"
    out = run_dossier("game", "ingest", "--key", study / "study.key", up, "--db", db).stdout
    assert "stored player kit1 (1 new sessions)" in out
    assert stored_sessions(db) == 1


@pytest.mark.parametrize("field", ["obstacles", "jumps", "collisions", "end", "score"])
def test_a_session_contradicting_the_model_is_refused_naming_the_field_and_first_difference(run_dossier, study, field):
    record, difference = tampered(field)
    up = seal(run_dossier, study, [SURVEY, record])
    db = study / "s.sqlite"
    r = run_dossier("game", "ingest", "--key", study / "study.key", up, "--db", db, check=False)
    assert r.returncode == 1
    (line,) = [l for l in r.stderr.splitlines() if "rejected" in l]
    assert line.startswith(str(up / "kit1.rmu") + ": rejected: line 3: session 1 contradicts the game model (seed 977): ")
    assert difference in line, line
    assert "0 stored" in r.stdout + r.stderr and "1 rejected" in r.stdout + r.stderr
    assert stored_sessions(db) == 0, "nothing of a refused upload is stored"


def result_name(key_b64):
    key = base64.b64decode(key_b64)
    return hmac.new(key, b"RocketMouse result name v1", hashlib.sha256).digest()[:16].hex() + ".rmr"


def test_sealing_unchanged_data_again_keeps_the_result_key_the_study_stores(run_dossier, study):
    dev = study / "dev"
    root = study / "project"
    root.mkdir()
    db = root / "study.sqlite"
    up = seal(run_dossier, study, [SURVEY, kit_session()], devices=dev)
    run_dossier("game", "ingest", "--key", study / "study.key", up, "--db", db)
    first = json.loads((dev / "kit1.device.json").read_text())["result_key"]
    up = seal(run_dossier, study, [SURVEY, kit_session()], name="again", devices=dev)
    assert "duplicate" in run_dossier("game", "ingest", "--key", study / "study.key", up, "--db", db).stdout
    held = json.loads((dev / "kit1.device.json").read_text())["result_key"]
    assert held == first
    con = sqlite3.connect(db)
    (stored,) = con.execute("SELECT result_key FROM devices WHERE player = 'kit1'").fetchone()
    con.close()
    assert stored == held
    # The build encrypts the result with that key: the device finds its file.
    (root / "dossier.yml").write_text("game:\n  database: study.sqlite\n", encoding="utf-8")
    run_dossier("build", root)
    assert (root / "_site" / "game" / "results" / result_name(held)).exists()
    # Changed data gives a new key, which ingest stores.
    more = dict(kit_session(), session=2)
    up = seal(run_dossier, study, [SURVEY, kit_session(), more], name="more", devices=dev)
    run_dossier("game", "ingest", "--key", study / "study.key", up, "--db", db)
    newest = json.loads((dev / "kit1.device.json").read_text())["result_key"]
    con = sqlite3.connect(db)
    (stored,) = con.execute("SELECT result_key FROM devices WHERE player = 'kit1'").fetchone()
    con.close()
    assert newest != held and stored == newest
