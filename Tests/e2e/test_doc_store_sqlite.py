"""docs/store.md on SQLite, reimplemented from the doc alone: the version-3 schema (taken
from the doc's own SQL block), `dossier db migrate` and its messages, the upgrades from
versions 1 and 2, a newer schema refused untouched, `dossier db copy` (counts, refusals,
--replace, a failed copy, FROM and TO naming one file) and `dossier db import-logs`."""
import hashlib
import os
import pathlib
import re
import sqlite3

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
STORE_MD = (REPO / "docs" / "store.md").read_text(encoding="utf-8")
TELEMETRY_MD = (REPO / "docs" / "game-telemetry.md").read_text(encoding="utf-8")

# The copy's table order as store.md lists it ("`meta`, the game tables, `privacy_key`,
# `privacy_ledger`, `recall_logs`, `recall_devices`"; the game tables in schema order).
COPY_TABLES = ["surveys", "sessions", "events", "uploads", "devices", "privacy_key",
               "privacy_ledger", "recall_logs", "recall_devices"]


def doc_v3_sql(engine):
    """The doc's version-3 block with I/B/F replaced for `engine` ('sqlite' or 'pg')."""
    block = STORE_MD.split("Version 3, with `I`", 1)[1].split("```sql", 1)[1].split("```", 1)[0]
    i, b, f = ("INTEGER", "BLOB", "TEXT") if engine == "sqlite" else ("BIGINT", "BYTEA", "BYTEA")
    return re.sub(r"\b([IBF])\b", lambda m: {"I": i, "B": b, "F": f}[m.group(1)], block)


def doc_v1_v2_sql(version):
    """Version 1 (game-telemetry.md's block minus devices) or 2 (with devices), as SQLite."""
    block = TELEMETRY_MD.split("## SQLite schema", 1)[1].split("```sql", 1)[1].split("```", 1)[0]
    stmts = [s.strip() for s in re.sub(r"--[^\n]*", "", block).split(";") if s.strip()]
    if version == 1:
        stmts = [s for s in stmts if not s.startswith("CREATE TABLE devices")]
    return ";\n".join(stmts) + ";"


def table_shape(con):
    out = {}
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
        cols = [tuple(r[1:]) for r in con.execute(f"PRAGMA table_info({name})")]
        uniq = sorted(tuple(c[2] for c in con.execute(f"PRAGMA index_info({ix[1]})"))
                      for ix in con.execute(f"PRAGMA index_list({name})") if ix[2])
        out[name] = (cols, uniq)
    return out


PROBES = [  # (sql, params): each is accepted or refused the same way by the doc's schema
    ("INSERT INTO surveys VALUES('p',2,NULL,NULL,NULL,NULL)", ()),
    ("INSERT INTO surveys VALUES('q',1,2,NULL,NULL,NULL)", ()),
    ("INSERT INTO surveys VALUES('r',0,1,-1,NULL,NULL)", ()),
    ("INSERT INTO surveys VALUES('s',1,1,0,30,'x')", ()),
    ("INSERT INTO events VALUES('p',1,'bogus',0,0,NULL,NULL,NULL,NULL)", ()),
    ("INSERT INTO events VALUES('p',1,'volume',0,0,NULL,NULL,1,NULL)", ()),
    ("INSERT INTO events VALUES('p',1,'volume',0,5,NULL,NULL,0,NULL)", ()),
    ("INSERT INTO privacy_key VALUES(2,'k','d',1)", ()),
    ("INSERT INTO privacy_key VALUES(1,'k','d',1)", ()),
    ("INSERT INTO recall_logs VALUES('a.jsonl',x'00','h')", ()),
    ("INSERT INTO recall_logs VALUES('b.jsonl',x'01','h')", ()),
    ("INSERT INTO recall_logs VALUES('c.jsonl',NULL,'i')", ()),
    ("INSERT INTO uploads VALUES('h',NULL,1)", ()),
    ("INSERT INTO devices VALUES('p',NULL,NULL)", ()),
    ("INSERT INTO privacy_ledger VALUES('r','1','0','game','t',NULL)", ()),
    ("INSERT INTO recall_devices VALUES('d',NULL)", ()),
    ("INSERT INTO sessions VALUES('p',1,0,1,NULL)", ()),
]


def probe(con):
    out = []
    for sql, params in PROBES:
        try:
            con.execute(sql, params)
            out.append("ok")
        except sqlite3.Error:
            out.append("refused")
    con.rollback()
    return out


def err_lines(proc):
    """stderr's lines, an `error: ` prefix (the argument parser's) taken off."""
    return [re.sub(r"^(error|Error): ", "", l) for l in proc.stderr.splitlines()]


def rows(path, table):
    con = sqlite3.connect(path)
    try:
        return sorted(con.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
    finally:
        con.close()


def counts(path):
    con = sqlite3.connect(path)
    try:
        return {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in COPY_TABLES}
    finally:
        con.close()


def test_migrate_creates_the_documented_schema(run_dossier, tmp_path):
    db = tmp_path / "study.sqlite"
    first = run_dossier("db", "migrate", "--database", "study.sqlite", cwd=tmp_path)
    assert first.stdout.strip() == "study.sqlite: no schema → schema version 3"
    again = run_dossier("db", "migrate", "--database", "study.sqlite", cwd=tmp_path)
    assert again.stdout.strip() == "study.sqlite: schema version 3, up to date"
    doc = sqlite3.connect(":memory:")
    doc.executescript(doc_v3_sql("sqlite"))
    got = sqlite3.connect(db)
    assert table_shape(got) == table_shape(doc)
    assert got.execute("SELECT value, typeof(value) FROM meta WHERE key='schema_version'").fetchone() == ("3", "text")
    assert probe(got) == probe(doc)
    assert got.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def _make_old(path, version, ledger_rows=()):
    con = sqlite3.connect(path)
    con.executescript(doc_v1_v2_sql(version))
    con.execute("INSERT INTO meta VALUES('schema_version', ?)", (str(version),))
    con.execute("INSERT INTO surveys VALUES('p1',1,0,NULL,33,'f')")
    if ledger_rows:   # a version-2 database that made its ledger on first use (no seq yet)
        con.execute("CREATE TABLE privacy_ledger(release TEXT PRIMARY KEY, epsilon TEXT NOT NULL, "
                    "delta TEXT NOT NULL, section TEXT NOT NULL, published TEXT NOT NULL)")
        for rowid, release in ledger_rows:
            con.execute("INSERT INTO privacy_ledger(rowid, release, epsilon, delta, section, published) "
                        "VALUES(?,?,'1','0','game','2026-01-01T00:00:00Z')", (rowid, release))
    con.commit()
    con.close()


@pytest.mark.parametrize("version", [1, 2])
def test_migrate_upgrades_an_older_database(run_dossier, tmp_path, version):
    db = tmp_path / "old.sqlite"
    ledger = [(3, "ffff000000000000"), (8, "0000000000000000"), (20, "8888000000000000")] if version == 2 else []
    _make_old(db, version, ledger)
    out = run_dossier("db", "migrate", "--database", "old.sqlite", cwd=tmp_path)
    assert out.stdout.strip() == f"old.sqlite: version {version} → schema version 3"
    con = sqlite3.connect(db)
    doc = sqlite3.connect(":memory:")
    doc.executescript(doc_v3_sql("sqlite"))
    assert table_shape(con) == table_shape(doc)   # every table, every column as listed in version 3
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == "3"
    assert con.execute("SELECT * FROM surveys").fetchall() == [("p1", 1, 0, None, 33, "f")]
    # an existing ledger gets seq = rowid (its insertion order)
    assert con.execute("SELECT rowid, release, seq FROM privacy_ledger ORDER BY rowid").fetchall() == \
        [(r, rel, r) for r, rel in ledger]


def _newer(path):
    run_db = sqlite3.connect(path)
    run_db.executescript(doc_v3_sql("sqlite"))
    run_db.execute("INSERT INTO meta VALUES('schema_version','4')")
    run_db.execute("INSERT INTO surveys VALUES('p1',1,0,NULL,33,'f')")
    run_db.commit()
    run_db.close()


NEWER = ("the database has schema version 4, newer than this dossier knows (3): use a newer dossier")


def _content(path):
    con = sqlite3.connect(path)
    try:
        tables = con.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
        return tables, {t[1]: con.execute(f"SELECT * FROM {t[1]}").fetchall() for t in tables if t[0] == "table"}
    finally:
        con.close()


NEWER_ARGV = {"migrate": ["db", "migrate", "--database", "new.sqlite"],
              "import-logs": ["db", "import-logs", "--database", "new.sqlite", "logs"],
              "copy-from": ["db", "copy", "new.sqlite", "other.sqlite"],
              "copy-to": ["db", "copy", "other.sqlite", "new.sqlite", "--replace"]}


def _newer_setup(run_dossier, tmp_path):
    _newer(tmp_path / "new.sqlite")
    run_dossier("db", "migrate", "--database", "other.sqlite", cwd=tmp_path)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "S1.jsonl").write_bytes(b"x\n")


@pytest.mark.parametrize("how", list(NEWER_ARGV))
def test_a_newer_schema_is_refused_and_its_data_left_untouched(run_dossier, tmp_path, how):
    _newer_setup(run_dossier, tmp_path)
    before = {n: _content(tmp_path / n) for n in ("new.sqlite", "other.sqlite")}
    proc = run_dossier(*NEWER_ARGV[how], cwd=tmp_path, check=False)
    assert proc.returncode == 1
    assert NEWER in proc.stderr
    assert {n: _content(tmp_path / n) for n in before} == before


@pytest.mark.parametrize("how", list(NEWER_ARGV))
def test_a_newer_schema_refusal_names_that_database(run_dossier, tmp_path, how):
    """'Each failure is one line naming the database as written': the newer one."""
    _newer_setup(run_dossier, tmp_path)
    proc = run_dossier(*NEWER_ARGV[how], cwd=tmp_path, check=False)
    assert [l for l in err_lines(proc) if l.startswith(f"new.sqlite: {NEWER}")], proc.stderr


@pytest.mark.parametrize("how", ["migrate", "import-logs"])
def test_a_newer_schema_file_is_not_written_at_all(run_dossier, tmp_path, how):
    """'refused and left untouched': not one byte of the file changes (here a database in
    the rollback-journal mode a newer dossier may have left it in)."""
    _newer_setup(run_dossier, tmp_path)
    before = (tmp_path / "new.sqlite").read_bytes()
    proc = run_dossier(*NEWER_ARGV[how], cwd=tmp_path, check=False)
    assert proc.returncode == 1
    assert (tmp_path / "new.sqlite").read_bytes() == before


def _populated(run_dossier, tmp_path, name="from.sqlite"):
    """A small study: a simulated cohort, two logs, a key, two ledger rows, a pin, a meta row."""
    db = tmp_path / name
    run_dossier("game", "simulate", "--players", "3", "--seed", "5", "--obstacles", "6", "--db", db)
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    (logs / "S1.jsonl").write_bytes(b'{"a":1}\n')
    (logs / "S2.csv").write_bytes(b"x,y\n\x00\xff\n")
    run_dossier("db", "import-logs", "--database", db, logs)
    con = sqlite3.connect(db)
    con.execute("INSERT INTO devices VALUES('p0','c2s=','cms=')")
    con.execute("INSERT INTO uploads VALUES(?, 'p0', 2)", (hashlib.sha256(b"u").hexdigest(),))
    con.execute("INSERT INTO privacy_key VALUES(1, ?, ?, 18000)", ("ab" * 32, "cd" * 16))
    con.execute("INSERT INTO privacy_ledger VALUES('r2','1','0','game','2026-01-02T00:00:00Z',2)")
    con.execute("INSERT INTO privacy_ledger VALUES('r1','2','0','game','2026-01-01T00:00:00Z',1)")
    con.commit()
    con.close()
    return db


def _copied_line(frm, to, n):
    return f"copied {frm} → {to}: " + ", ".join(f"{t} {n[t]}" for t in COPY_TABLES)


def test_copy_prints_the_counts_and_gives_the_same_rows(run_dossier, tmp_path):
    src = _populated(run_dossier, tmp_path)
    out = run_dossier("db", "copy", "from.sqlite", "to.sqlite", cwd=tmp_path)
    assert out.stdout.strip() == _copied_line("from.sqlite", "to.sqlite", counts(src))
    for t in ["meta"] + COPY_TABLES:
        assert rows(tmp_path / "to.sqlite", t) == rows(src, t), t


def test_copy_carries_the_recall_device_pins(run_dossier, tmp_path):
    run_dossier("db", "migrate", "--database", "from.sqlite", cwd=tmp_path)
    con = sqlite3.connect(tmp_path / "from.sqlite")
    con.execute("INSERT INTO recall_devices VALUES('a1933db60635ad2591a6829e88d236e3', 'TKdBAmYUI4Tz=')")
    con.commit()
    con.close()
    out = run_dossier("db", "copy", "from.sqlite", "to.sqlite", cwd=tmp_path, check=False)
    assert out.returncode == 0, out.stderr
    n = dict.fromkeys(COPY_TABLES, 0)
    n["recall_devices"] = 1
    assert out.stdout.strip() == _copied_line("from.sqlite", "to.sqlite", n)
    assert rows(tmp_path / "to.sqlite", "recall_devices") == rows(tmp_path / "from.sqlite", "recall_devices")


def test_copy_refuses_a_non_empty_target_unless_replace(run_dossier, tmp_path):
    src = _populated(run_dossier, tmp_path)
    run_dossier("db", "migrate", "--database", "to.sqlite", cwd=tmp_path)
    con = sqlite3.connect(tmp_path / "to.sqlite")
    con.executemany("INSERT INTO privacy_ledger VALUES(?,'1','0','game','t',?)", [("x", 1), ("y", 2)])
    con.execute("INSERT INTO meta VALUES('note','kept out of the count')")
    con.commit()
    con.close()
    before = (tmp_path / "to.sqlite").read_bytes()
    proc = run_dossier("db", "copy", "from.sqlite", "to.sqlite", cwd=tmp_path, check=False)
    assert proc.returncode == 1
    want = "to.sqlite is not empty (table privacy_ledger holds 2 rows): copy into an empty database, or give --replace"
    assert any(l.startswith(want) for l in err_lines(proc)), proc.stderr
    assert (tmp_path / "to.sqlite").read_bytes() == before
    out = run_dossier("db", "copy", "from.sqlite", "to.sqlite", "--replace", cwd=tmp_path)
    assert out.stdout.strip() == _copied_line("from.sqlite", "to.sqlite", counts(src))
    for t in COPY_TABLES:
        assert rows(tmp_path / "to.sqlite", t) == rows(src, t), t


def test_a_failed_copy_leaves_the_target_as_it_was(run_dossier, tmp_path):
    _populated(run_dossier, tmp_path)
    run_dossier("db", "migrate", "--database", "to.sqlite", cwd=tmp_path)
    con = sqlite3.connect(tmp_path / "to.sqlite")
    con.execute("INSERT INTO surveys VALUES('old',1,1,1,40,'m')")
    con.execute("CREATE TRIGGER no_logs BEFORE INSERT ON recall_logs BEGIN SELECT RAISE(ABORT, 'no'); END")
    con.commit()
    con.close()
    want = {t: rows(tmp_path / "to.sqlite", t) for t in ["meta"] + COPY_TABLES}
    proc = run_dossier("db", "copy", "from.sqlite", "to.sqlite", "--replace", cwd=tmp_path, check=False)
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert {t: rows(tmp_path / "to.sqlite", t) for t in want} == want


@pytest.mark.parametrize("form", ["same-text", "dot-slash", "symlink", "hardlink", "missing-file"])
def test_copy_from_and_to_one_database_is_a_usage_error(run_dossier, tmp_path, form):
    if form != "missing-file":
        run_dossier("db", "migrate", "--database", "a.sqlite", cwd=tmp_path)
    if form == "symlink":
        os.symlink("a.sqlite", tmp_path / "b.sqlite")
    if form == "hardlink":
        os.link(tmp_path / "a.sqlite", tmp_path / "b.sqlite")
    frm, to = {"same-text": ("a.sqlite", "a.sqlite"), "dot-slash": ("a.sqlite", "./a.sqlite"),
               "symlink": ("a.sqlite", "b.sqlite"), "hardlink": ("b.sqlite", "a.sqlite"),
               "missing-file": ("z.sqlite", "z.sqlite")}[form]
    before = sorted(p.name for p in tmp_path.iterdir())
    proc = run_dossier("db", "copy", frm, to, cwd=tmp_path, check=False)
    assert proc.returncode == 2
    assert "FROM and TO are the same database" in err_lines(proc), proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before   # neither was opened


def test_import_logs_stores_each_log_once_by_name_and_hash(run_dossier, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    files = {"b.jsonl": b'{"b":1}\n', "a.csv": b"x,y\n1,2\n", "c.txt": b"not a log\n", "d.JSONL.bak": b"z"}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    out = run_dossier("db", "import-logs", "--database", "s.sqlite", "logs", cwd=tmp_path)
    assert out.stdout.strip().splitlines()[-1] == "2 stored, 0 already there"
    want = sorted((n, files[n], hashlib.sha256(files[n]).hexdigest()) for n in ("a.csv", "b.jsonl"))
    assert rows(tmp_path / "s.sqlite", "recall_logs") == want
    again = run_dossier("db", "import-logs", "--database", "s.sqlite", "logs", cwd=tmp_path)
    assert again.stdout.strip().splitlines()[-1] == "0 stored, 2 already there"
    # the same bytes under another name: already there (once by hash), nothing added
    other = tmp_path / "other"
    other.mkdir()
    (other / "renamed.jsonl").write_bytes(files["b.jsonl"])
    dup = run_dossier("db", "import-logs", "--database", "s.sqlite", "other/renamed.jsonl", cwd=tmp_path)
    assert dup.stdout.strip().splitlines()[-1] == "0 stored, 1 already there"
    assert rows(tmp_path / "s.sqlite", "recall_logs") == want
    # another log under a stored name: an error naming it, nothing changed
    (other / "b.jsonl").write_bytes(b'{"b":2}\n')
    clash = run_dossier("db", "import-logs", "--database", "s.sqlite", "other/b.jsonl", cwd=tmp_path, check=False)
    assert clash.returncode == 1
    assert "b.jsonl" in clash.stderr
    assert rows(tmp_path / "s.sqlite", "recall_logs") == want


def test_every_open_upgrades_an_older_database(run_dossier, tmp_path):
    _make_old(tmp_path / "old.sqlite", 2)
    (tmp_path / "S1.jsonl").write_bytes(b"{}\n")
    out = run_dossier("db", "import-logs", "--database", "old.sqlite", "S1.jsonl", cwd=tmp_path)
    assert out.stdout.strip().splitlines()[-1] == "1 stored, 0 already there"
    con = sqlite3.connect(tmp_path / "old.sqlite")
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == "3"
    assert con.execute("SELECT name FROM recall_logs").fetchall() == [("S1.jsonl",)]


PW_FORMS = ["postgres://study:s3cr3tVALUE@127.0.0.1:1/study",
            "postgres://study@127.0.0.1:1/study?password=s3cr3tVALUE",
            "postgres:host=127.0.0.1 port=1 password=s3cr3tVALUE"]


@pytest.mark.parametrize("form", PW_FORMS)
def test_a_password_in_dossier_yml_is_refused_before_any_connection(run_dossier, tmp_path, form):
    (tmp_path / "dossier.yml").write_text(f"title: t\n\ngame:\n  database: \"{form}\"\n", encoding="utf-8")
    for cmd in ("build", "check"):
        proc = run_dossier(cmd, ".", cwd=tmp_path, check=False)
        assert proc.returncode == 1
        assert "s3cr3tVALUE" not in proc.stdout + proc.stderr
        want = ("dossier.yml:4: game.database holds a database password, which would be readable by "
                "anyone who reads it: remove it and give the password through PGPASSWORD, a ~/.pgpass "
                "line (or PGPASSFILE) or a service file (PGSERVICE)")
        assert want in proc.stderr.splitlines(), proc.stderr.replace("s3cr3tVALUE", "(pw)")
    assert not (tmp_path / "_site").exists()


@pytest.mark.parametrize("form", PW_FORMS)
def test_a_password_on_the_command_line_is_refused(run_dossier, tmp_path, form):
    proc = run_dossier("db", "migrate", "--database", form, cwd=tmp_path, check=False)
    assert proc.returncode == 1
    assert "s3cr3tVALUE" not in proc.stdout + proc.stderr
    assert "holds a database password" in proc.stderr
    assert "cannot reach" not in proc.stderr   # no connection was tried


def test_copy_brings_both_databases_to_the_current_schema_first(run_dossier, tmp_path):
    _make_old(tmp_path / "old.sqlite", 1)
    out = run_dossier("db", "copy", "old.sqlite", "new.sqlite", cwd=tmp_path)
    n = dict.fromkeys(COPY_TABLES, 0)
    n["surveys"] = 1
    assert out.stdout.strip().splitlines()[-1] == _copied_line("old.sqlite", "new.sqlite", n)
    for name in ("old.sqlite", "new.sqlite"):
        con = sqlite3.connect(tmp_path / name)
        assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == "3", name
        assert con.execute("SELECT * FROM surveys").fetchall() == [("p1", 1, 0, None, 33, "f")]
