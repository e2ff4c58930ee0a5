"""Data-edge decisions (docs/game-telemetry.md, "Edge cases"): NUL characters are kept
whole, duplicate JSON keys are refused, a negative time is "before the session start",
and a stale incomplete survey after a complete one is ignored."""
import json
import sqlite3

SURVEY = {"type": "survey", "player": "p1", "complete": True, "diagnosed": False, "age": 30, "gender": "female"}
SESSION = {"type": "session", "player": "p1", "session": 1, "start": 0, "end": 60000, "score": 10,
           "obstacles": [[1000, 1000, "crate"]], "taps": [1300], "errors": [[2000, "audio\u0000interrupted"]]}


def test_duplicate_keys_are_refused_with_line(run_dossier, tmp_path):
    f = tmp_path / "dup.jsonl"
    f.write_text(json.dumps(SURVEY) + "\n" + json.dumps(SESSION)[:-1] + ', "score": 99}\n')
    proc = run_dossier("game", "analyze", "--json", f, check=False)
    assert proc.returncode == 1
    assert "dup.jsonl:2:" in proc.stderr and "'score' appears twice" in proc.stderr


def test_nul_in_text_survives_the_database_and_a_repeat_upload(run_dossier, tmp_path):
    f = tmp_path / "nul.jsonl"
    f.write_text(json.dumps(SURVEY) + "\n" + json.dumps(SESSION) + "\n")
    run_dossier("game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    up = tmp_path / "up"
    run_dossier("game", "seal", "--public", tmp_path / "study.pub", "--out", up, f)
    db = tmp_path / "s.sqlite"
    run_dossier("game", "ingest", "--key", tmp_path / "study.key", up, "--db", db)
    con = sqlite3.connect(db)
    (msg,) = con.execute("SELECT message FROM events WHERE kind='error'").fetchone()
    con.close()
    assert msg == "audio\u0000interrupted"
    # A later upload repeats session 1 (identical, NUL included) and adds session 2: only
    # session 2 is new; a cut-off NUL would make session 1 "different data".
    s2 = dict(SESSION, session=2)
    f.write_text(json.dumps(SURVEY) + "\n" + json.dumps(SESSION) + "\n" + json.dumps(s2) + "\n")
    run_dossier("game", "seal", "--public", tmp_path / "study.pub", "--out", up, f)
    out = run_dossier("game", "ingest", "--key", tmp_path / "study.key", up, "--db", db).stdout
    assert "(1 new sessions)" in out and "0 rejected" in out
    a = json.loads(run_dossier("game", "analyze", "--json", f).stdout)
    b = json.loads(run_dossier("game", "analyze", "--json", "--db", db).stdout)
    assert a == b


def test_incomplete_survey_after_complete_is_ignored(run_dossier, tmp_path):
    f = tmp_path / "s.jsonl"
    stale = {"type": "survey", "player": "p1", "complete": False, "age": 30}
    f.write_text(json.dumps(SURVEY) + "\n" + json.dumps(stale) + "\n" + json.dumps(SESSION) + "\n")
    out = json.loads(run_dossier("game", "analyze", "--json", f).stdout)
    assert out["players"][0]["survey"]["complete"] is True
    # Through ingest too: the complete survey first, then a stale draft in a later upload.
    run_dossier("game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(json.dumps(SURVEY) + "\n")
    second.write_text(json.dumps(stale) + "\n")
    db = tmp_path / "s.sqlite"
    for src in (first, second):
        up = tmp_path / ("up-" + src.stem)
        run_dossier("game", "seal", "--public", tmp_path / "study.pub", "--out", up, "--devices", tmp_path / "dev", src)
        run_dossier("game", "ingest", "--key", tmp_path / "study.key", up, "--db", db)
    con = sqlite3.connect(db)
    assert con.execute("SELECT complete FROM surveys").fetchone() == (1,)
    con.close()
