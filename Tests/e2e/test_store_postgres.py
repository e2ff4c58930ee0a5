"""PostgreSQL as the shared study store (docs/store.md), against a real server
(Tests/e2e/pg_server.py): the same game study and the same recall study give the same
site bytes from SQLite and from PostgreSQL; `dossier db copy` SQLite → PostgreSQL →
SQLite keeps every row; `dossier db migrate` creates and reports the schema."""
import json
import os
import shutil
import sqlite3

import pytest

from test_game_release_data import sealed_players

REPO_EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "demo", "data", "recall")


def tree(root):
    """Every file under `root` → its bytes."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def assert_same_tree(a, b):
    ta, tb = tree(a), tree(b)
    assert sorted(ta) == sorted(tb), set(ta) ^ set(tb)
    differ = [k for k in ta if ta[k] != tb[k]]
    assert not differ, f"files differ: {differ[:10]}"


def sqlite_rows(path):
    """Every table of a study database (SQLite) → its rows, sorted (an independent read
    with Python's sqlite3)."""
    con = sqlite3.connect(path)
    try:
        out = {}
        for (name,) in con.execute("select name from sqlite_master where type = 'table' order by name"):
            cols = [r[1] for r in con.execute(f"pragma table_info({name})")]
            rows = con.execute(f"select {', '.join(cols)} from {name}").fetchall()
            out[name] = sorted(rows, key=repr)
        return out
    finally:
        con.close()


@pytest.fixture(scope="module")
def study(tmp_path_factory, dossier_bin):
    root = tmp_path_factory.mktemp("pgstudy")        # (root, its sealed uploads)
    return root, sealed_players(dossier_bin, root, players=24, seed=31)


def game_project(folder, database):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dossier.yml").write_text(
        f"title: Game\noutput: _site\ngame:\n  database: {database}\n  results_capacity: 40\n", encoding="utf-8")
    return folder


def test_the_same_game_study_on_sqlite_and_postgres_gives_the_same_site(study, pg_database, run_dossier, tmp_path):
    pg, db = pg_database
    env = pg.client_env()
    root, uploads = study
    a = game_project(tmp_path / "a", "study.sqlite")
    b = game_project(tmp_path / "b", pg.url(db))
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads, "--db", a / "study.sqlite")
    ingest = run_dossier("game", "ingest", "--key", root / "study.key", *uploads, "--db", pg.url(db), env=env)
    assert "24 stored, 0 duplicates, 0 rejected" in ingest.stdout
    # The same uploads again: every one a duplicate, nothing changes.
    again = run_dossier("game", "ingest", "--key", root / "study.key", *uploads, "--db", pg.url(db), env=env)
    assert "0 stored, 24 duplicates, 0 rejected" in again.stdout
    run_dossier("build", a)
    # The privacy key is the database's own secret: give the PostgreSQL study the same one
    # (as `db copy` would), so that both draw the same noise for the same rows.
    key = sqlite3.connect(a / "study.sqlite").execute("select key, database_id, lifetime_milli from privacy_key").fetchone()
    pg.psql(db, f"insert into privacy_key(id, key, database_id, lifetime_milli) values (1, '{key[0]}', '{key[1]}', {key[2]})")
    run_dossier("build", b, env=env)
    assert_same_tree(a / "_site", b / "_site")
    # The release (keyed by the rows digest) changes exactly when the data does: built
    # again it is the same; with one survey answer changed it is another; changed back,
    # the first again.
    release = lambda: json.loads((b / "_site" / "game" / "privacy.json").read_text())["release"]
    first = release()
    run_dossier("build", b, env=env)
    assert release() == first
    player = pg.psql(db, "select min(player) from surveys where age is not null").strip()
    pg.psql(db, f"update surveys set age = age + 1 where player = '{player}'")
    run_dossier("build", b, env=env)
    assert release() != first
    pg.psql(db, f"update surveys set age = age - 1 where player = '{player}'")
    run_dossier("build", b, env=env)
    assert release() == first
    assert_same_tree(a / "_site", b / "_site")
    # Both engines hold the same rows: the PostgreSQL study copied back to SQLite.
    run_dossier("db", "copy", pg.url(db), tmp_path / "back.sqlite", env=env)
    assert sqlite_rows(tmp_path / "back.sqlite") == sqlite_rows(a / "study.sqlite")


def test_the_analysis_reads_the_same_cohort_from_both_engines(study, pg_database, run_dossier, tmp_path):
    pg, db = pg_database
    root, uploads = study
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads[:12], "--db", tmp_path / "s.sqlite")
    # postgres: alone takes everything from the PG* variables, here with the password in
    # a pgpass file (PGPASSFILE) instead of PGPASSWORD.
    env = pg.client_env(db, password=False)
    env["PGPASSFILE"] = str(pg.write_pgpass(tmp_path))
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads[:12], "--db", "postgres:", env=env)
    one = run_dossier("game", "analyze", "--db", tmp_path / "s.sqlite", "--json").stdout
    two = run_dossier("game", "analyze", "--db", "postgres:", "--json", env=env).stdout
    assert one == two and '"players"' in one


def test_db_copy_round_trip_keeps_every_row(study, pg_database, run_dossier, tmp_path):
    pg, db = pg_database
    env = pg.client_env()
    root, uploads = study
    proj = game_project(tmp_path / "p", "study.sqlite")
    src = proj / "study.sqlite"
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads[:10], "--db", src)
    run_dossier("build", proj)                          # makes the privacy key
    run_dossier("db", "import-logs", "--database", src, os.path.join(REPO_EXAMPLES, "logs"))
    con = sqlite3.connect(src)
    con.execute("insert into privacy_ledger(release, epsilon, delta, section, published, seq) "
                "values ('r2', '6', '0', 'game', '2026-01-02', 2), ('r1', '6', '0', 'game', '2026-01-01', 1)")
    con.commit()
    con.close()
    before = sqlite_rows(src)
    assert len(before["recall_logs"]) == 31 and len(before["privacy_key"]) == 1 and before["events"]
    out = run_dossier("db", "copy", src, pg.url(db), env=env).stdout
    assert "recall_logs 31" in out
    assert int(pg.psql(db, "select count(*) from events")) == len(before["events"])
    run_dossier("db", "copy", pg.url(db), tmp_path / "back.sqlite", env=env)
    assert sqlite_rows(tmp_path / "back.sqlite") == before
    # A target that holds a study is refused unless --replace, and left as it was.
    refused = run_dossier("db", "copy", src, pg.url(db), env=env, check=False)
    assert refused.returncode == 1 and "--replace" in refused.stderr and "is not empty" in refused.stderr
    assert int(pg.psql(db, "select count(*) from recall_logs")) == 31
    run_dossier("db", "copy", "--replace", tmp_path / "back.sqlite", pg.url(db), env=env)
    assert int(pg.psql(db, "select count(*) from uploads")) == 10


def recall_project(folder, source):
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(os.path.join(REPO_EXAMPLES, "strings.txt"), folder / "strings.txt")
    (folder / "dossier.yml").write_text(f"title: Recall\noutput: _site\nrecall:\n  strings: strings.txt\n  {source}\n",
                                        encoding="utf-8")
    return folder


def test_the_same_recall_study_from_a_folder_sqlite_and_postgres_gives_the_same_site(pg_database, run_dossier, tmp_path):
    pg, db = pg_database
    env = pg.client_env()
    logs = os.path.join(REPO_EXAMPLES, "logs")
    folder = recall_project(tmp_path / "folder", "logs: recall_logs")
    shutil.copytree(logs, folder / "recall_logs")
    lite = recall_project(tmp_path / "lite", "database: study.sqlite")
    run_dossier("db", "import-logs", "--database", lite / "study.sqlite", logs)
    shared = recall_project(tmp_path / "shared", f"database: {pg.url(db)}")
    run_dossier("db", "import-logs", "--database", pg.url(db), logs, env=env)
    again = run_dossier("db", "import-logs", "--database", pg.url(db), logs, env=env)
    assert "0 stored, 31 already there" in again.stdout
    for p in (folder, lite, shared):
        run_dossier("build", p, env=env)
    assert_same_tree(folder / "_site", lite / "_site")
    assert_same_tree(folder / "_site", shared / "_site")
    # A row whose bytes do not match its hash is refused, named, and the site kept.
    before = tree(shared / "_site")
    pg.psql(db, "insert into recall_logs(name, bytes, sha256) values "
                f"('S998.jsonl', convert_to('{{}}', 'UTF8'), '{'0' * 64}')")
    bad = run_dossier("build", shared, env=env, check=False)
    assert bad.returncode == 1 and "recall_logs row S998.jsonl: its bytes do not match its sha256" in bad.stderr
    assert tree(shared / "_site") == before


def test_db_migrate_creates_then_reports_the_schema(pg_database, run_dossier, tmp_path):
    pg, db = pg_database
    env = pg.client_env()
    first = run_dossier("db", "migrate", "--database", pg.url(db), env=env).stdout
    assert "no schema → schema version 3" in first
    assert "up to date" in run_dossier("db", "migrate", "--database", pg.url(db), env=env).stdout
    tables = set(pg.psql(db, "select table_name from information_schema.tables where table_schema = 'public'").split())
    assert {"meta", "surveys", "sessions", "events", "uploads", "devices", "privacy_key", "privacy_ledger",
            "recall_logs"} <= tables
    lite = run_dossier("db", "migrate", "--database", tmp_path / "s.sqlite").stdout
    assert "schema version 3" in lite
