"""docs/game-telemetry.md, "SQLite schema", "Where the database is" and the writer's
promises ("Edge cases"): the database `game simulate --db` writes holds exactly the JSON
Lines records, `analyze --db` equals `analyze` of the files, and bad database paths."""
import contextlib
import json
import os
import sqlite3
import subprocess

import pytest
from conftest import dossier_path  # noqa: E402

BIN = dossier_path()   # (DOSSIER_BIN, else the built one)
ORDER = {"survey": ["type", "player", "complete", "diagnosed", "medicated", "age", "gender"],
         "session": ["type", "player", "session", "start", "end", "score", "seed", "obstacles", "taps", "jumps",
                     "collisions", "volume", "errors"]}


def run(*args, cwd=None):
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120)


@contextlib.contextmanager
def opened(path):
    c = sqlite3.connect(path)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def cohort(tmp_path_factory):
    d = tmp_path_factory.mktemp("tdb")
    assert run("game", "simulate", "--players", "9", "--seed", "4", "--obstacles", "12", "--output", d / "c.jsonl",
               "--db", d / "s.sqlite", "-q").returncode == 0
    return d


def records(path):
    return [json.loads(l) for l in open(path, encoding="utf-8").read().splitlines()]


def test_the_writer_is_compact_ordered_and_deterministic(cohort, tmp_path):
    raw = (cohort / "c.jsonl").read_bytes()
    assert run("game", "simulate", "--players", "9", "--seed", "4", "--obstacles", "12", "--output",
               tmp_path / "again.jsonl", "-q").returncode == 0
    assert (tmp_path / "again.jsonl").read_bytes() == raw
    lines = raw.decode().splitlines()
    recs = [json.loads(l) for l in lines]
    for l, r in zip(lines, recs):
        assert l == json.dumps(r, separators=(",", ":"), ensure_ascii=False)
        order = [k for k in ORDER[r["type"]] if k in r]
        assert list(r) == order
    ids = [r["player"] for r in recs]
    assert ids == sorted(ids)
    for p in sorted(set(ids)):
        mine = [r for r in recs if r["player"] == p]
        assert mine[0]["type"] == "survey"
        nums = [r["session"] for r in mine[1:]]
        assert nums == sorted(nums) and all(r["type"] == "session" for r in mine[1:])


def test_the_database_holds_exactly_the_records(cohort):
    recs = records(cohort / "c.jsonl")
    with opened(cohort / "s.sqlite") as c:
        surveys = c.execute("SELECT player, complete, diagnosed, medicated, age, gender FROM surveys ORDER BY player").fetchall()
        sessions = c.execute("SELECT player, session, start_ms, end_ms, score FROM sessions ORDER BY player, session").fetchall()
        events = c.execute("SELECT player, session, kind, seq, t_ms, interval_ms, obstacle_kind, volume_on, message "
                           "FROM events ORDER BY player, session, kind, seq").fetchall()
        meta = dict(c.execute("SELECT key, value FROM meta"))
    b = lambda v: None if v is None else int(v)
    assert surveys == sorted((r["player"], int(r["complete"]), b(r.get("diagnosed")), b(r.get("medicated")), r.get("age"),
                              r.get("gender")) for r in recs if r["type"] == "survey")
    sess = [r for r in recs if r["type"] == "session"]
    assert sessions == sorted((r["player"], r["session"], r["start"], r["end"], r["score"]) for r in sess)
    want = []
    for r in sess:
        k = (r["player"], r["session"])
        want += [(*k, "obstacle", i, t, iv, kind, None, None) for i, (t, iv, kind) in enumerate(r.get("obstacles", []))]
        for kind, field in (("tap", "taps"), ("jump", "jumps"), ("collision", "collisions")):
            want += [(*k, kind, i, t, None, None, None, None) for i, t in enumerate(r.get(field, []))]
        want += [(*k, "volume", i, t, None, None, on, None) for i, (t, on) in enumerate(r.get("volume", []))]
        want += [(*k, "error", i, t, None, None, None, m) for i, (t, m) in enumerate(r.get("errors", []))]
    assert events == sorted(want, key=lambda e: (e[0], e[1], e[2], e[3]))
    assert meta.get("schema_version") == "3"


def test_the_schema_has_the_documented_tables_and_columns(cohort):
    cols = {"meta": ["key", "value"], "surveys": ["player", "complete", "diagnosed", "medicated", "age", "gender"],
            "sessions": ["player", "session", "start_ms", "end_ms", "score"],
            "events": ["player", "session", "kind", "seq", "t_ms", "interval_ms", "obstacle_kind", "volume_on", "message"],
            "uploads": ["content_sha256", "player", "sessions"], "devices": ["player", "signing_key", "result_key"]}
    with opened(cohort / "s.sqlite") as c:
        for table, names in cols.items():
            assert [r[1] for r in c.execute(f"PRAGMA table_info({table})")] == names, table
        assert c.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"


def test_analyze_of_the_database_equals_analyze_of_the_files(cohort):
    a = run("game", "analyze", "--json", cohort / "c.jsonl")
    b = run("game", "analyze", "--json", "--db", cohort / "s.sqlite")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert json.loads(a.stdout) == json.loads(b.stdout)


def test_a_database_row_outside_the_ranges_is_refused(cohort, tmp_path):
    import shutil
    shutil.copy(cohort / "s.sqlite", tmp_path / "s.sqlite")
    with opened(tmp_path / "s.sqlite") as c:
        c.execute("UPDATE sessions SET end_ms = start_ms + 86400001 WHERE rowid = (SELECT min(rowid) FROM sessions)")
        c.commit()
    p = run("game", "analyze", "--json", "--db", tmp_path / "s.sqlite")
    assert p.returncode == 1 and "86400001" in p.stderr


def test_same_uploads_in_the_same_order_give_the_same_content(cohort, tmp_path):
    assert run("game", "keygen", "--output", tmp_path / "k", "--bits", "2048", "-q").returncode == 0
    assert run("game", "seal", "--public", tmp_path / "k.pub", "--output", tmp_path / "up", cohort / "c.jsonl",
               "-q").returncode == 0
    dumps = []
    for name in ("one.sqlite", "two.sqlite"):
        assert run("game", "ingest", "--key", tmp_path / "k.key", tmp_path / "up", "--db", tmp_path / name,
                   "-q").returncode == 0
        with opened(tmp_path / name) as c:
            dumps.append([sorted(c.execute(f"SELECT * FROM {t}")) for t in
                          ("meta", "surveys", "sessions", "events", "uploads", "devices")])
    assert dumps[0] == dumps[1]
    assert dumps[0][1] and dumps[0][4]


@pytest.mark.parametrize("make, arg, message", [
    (None, "missing/x.sqlite", "missing/x.sqlite: cannot create the database: the folder missing does not exist (create it first)"),
    ("dir", "here", "here: is a folder, not a database file"),
    ("file", "here/x.sqlite", "here/x.sqlite: cannot create the database"),
])
@pytest.mark.parametrize("command", ["simulate", "ingest"])
def test_a_bad_database_path_is_named_and_nothing_is_made(tmp_path, make, arg, message, command):
    if make == "dir":
        (tmp_path / "here").mkdir()
    elif make == "file":
        (tmp_path / "here").write_text("x")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    if command == "simulate":
        p = run("game", "simulate", "--players", "2", "--db", arg, cwd=tmp_path)
    else:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        (tmp_path / "k.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                           serialization.NoEncryption()))
        before = sorted(p.name for p in tmp_path.rglob("*"))
        p = run("game", "ingest", "--key", "k.key", ".", "--db", arg, cwd=tmp_path)
    assert p.returncode == 1
    assert message in p.stderr, p.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_analyze_never_creates_a_database(tmp_path):
    p = run("game", "analyze", "--json", "--db", "none.sqlite", cwd=tmp_path)
    assert p.returncode == 1 and "database not found" in p.stderr
    assert list(tmp_path.iterdir()) == []
