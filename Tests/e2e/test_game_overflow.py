"""#14: huge scores, durations and times are refused at the edge with file and line —
in `game analyze`, `dossier build` and `game analyze --db` — never an integer-overflow trap."""
import json
import sqlite3

SURVEY = '{"type":"survey","player":"p1","complete":true,"diagnosed":false,"age":30,"gender":"female"}\n'


def _session(**kw):
    rec = {"type": "session", "player": "p1", "session": 1, "start": 0, "end": 60000, "score": 10,
           "obstacles": [[1000, 1000, "crate"]], "taps": [1300]}
    rec.update(kw)
    return json.dumps(rec) + "\n"


HOSTILE = [
    (dict(score=8_000_000_000_000_000), "score 8000000000000000 is above 1000000000"),
    (dict(score=2 ** 63), "'score' must be a whole number"),
    (dict(start=0, end=8_999_999_999_999_999), "more than the 24 h"),
    (dict(start=-8_999_999_999_999_999, end=8_999_999_999_999_999), "start -8999999999999999 is outside"),
    (dict(taps=[-5]), "time -5 is before the session start"),
]


def test_analyze_and_build_refuse_huge_values_with_file_and_line(run_dossier, tmp_path):
    for i, (fields, message) in enumerate(HOSTILE):
        f = tmp_path / f"h{i}.jsonl"
        f.write_text(SURVEY + _session(**fields))
        proc = run_dossier("game", "analyze", "--json", f, check=False)
        assert proc.returncode == 1, proc.stderr
        assert f"h{i}.jsonl:2:" in proc.stderr and message in proc.stderr, proc.stderr
        assert "Fatal error" not in proc.stderr and "overflow" not in proc.stderr.lower()
        proj = tmp_path / f"p{i}"
        proj.mkdir()
        (proj / "dossier.yml").write_text(f"title: G\noutput: _site\ngame:\n  telemetry: {f}\n")
        proc = run_dossier("build", proj, check=False)
        assert proc.returncode == 1 and message in proc.stderr, proc.stderr
        assert not (proj / "_site" / "game").exists()


def test_analyze_db_refuses_huge_stored_values(run_dossier, tmp_path):
    db = tmp_path / "study.sqlite"
    run_dossier("game", "simulate", "--players", "6", "--seed", "5", "--db", db)
    for sql, message in [
        ("UPDATE sessions SET score = 9223372036854775807 WHERE rowid = 1", "is above 1000000000"),
        ("UPDATE sessions SET end_ms = 9223372036854775807 WHERE rowid = 1", "is outside 0…"),
        ("UPDATE sessions SET start_ms = -9223372036854775808 WHERE rowid = 1", "is outside 0…"),
        ("UPDATE events SET t_ms = 9223372036854775807 WHERE rowid = (SELECT max(rowid) FROM events WHERE kind='obstacle')",
         "after the session end"),
    ]:
        copy = tmp_path / "c.sqlite"
        copy.write_bytes(db.read_bytes())
        con = sqlite3.connect(copy)
        con.execute(sql)
        con.commit()
        con.close()
        proc = run_dossier("game", "analyze", "--json", "--db", copy, check=False)
        assert proc.returncode == 1, (sql, proc.stderr)
        assert message in proc.stderr and "c.sqlite" in proc.stderr, proc.stderr


def test_largest_accepted_values_analyse_exactly(run_dossier, tmp_path):
    day = 86_400_000
    lines = SURVEY + "".join(
        _session(session=k, start=9_007_199_254_740_991 - day, end=9_007_199_254_740_991, score=1_000_000_000)
        for k in (1, 2, 3))
    f = tmp_path / "big.jsonl"
    f.write_text(lines)
    out = json.loads(run_dossier("game", "analyze", "--json", f).stdout)
    m = out["players"][0]["measures"]
    assert m["playedMs"] == 3 * day
    assert m["meanScore"] == 1_000_000_000
    assert m["bestScore"] == 1_000_000_000
