"""docs/store.md on a real PostgreSQL server: the version-3 schema as the doc's block gives
it with BIGINT/BYTEA, migrate's messages and an upgrade, a newer schema refused, `db copy`
SQLite → PostgreSQL → SQLite (free text holding U+0000), the `database:` forms and where
the password comes from, each failure's message, and two migrations at once."""
import os
import re
import shutil
import sqlite3
import subprocess

import pytest
from conftest import soak_only  # noqa: E402
pytestmark = soak_only("the PostgreSQL doc oracle (minutes on two cores)")

from store_helpers import HeldSession, WAITING_ON_LOCK, wait_until
from test_doc_store_sqlite import COPY_TABLES, TELEMETRY_MD, doc_v3_sql

LOCK_KEY = 7236411305822471


class Run:
    """A finished dossier run whose texts never hold the server's password."""

    def __init__(self, proc, secret):
        raw = proc.stdout + proc.stderr
        self.leaked = secret in raw
        self.code = proc.returncode
        self.out = proc.stdout.replace(secret, "(pw)")
        self.err = proc.stderr.replace(secret, "(pw)")
        self.err_lines = [re.sub(r"^error: ", "", l) for l in self.err.splitlines()]


@pytest.fixture
def pg_run(dossier_bin):
    def run(pg, *args, env=None, cwd=None, unset=()):
        full = {k: v for k, v in os.environ.items() if not k.startswith("PG") and not k.startswith("DOSSIER_")}
        full.update(pg.client_env())
        full.update(env or {})
        for k in unset:
            full.pop(k, None)
        proc = subprocess.run([dossier_bin, *map(str, args)], env=full, cwd=cwd, capture_output=True,
                              text=True, timeout=120)
        r = Run(proc, pg.password)
        assert not r.leaked, "the password appears in dossier's output"
        return r
    return run


def url(pg, db):
    return pg.url(db)


def pg_shape(pg, db):
    cols = pg.psql(db, "SELECT table_name, column_name, data_type, is_nullable, ordinal_position "
                       "FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 5")
    cons = pg.psql(db, "SELECT c.conrelid::regclass::text, c.contype, pg_get_constraintdef(c.oid) "
                       "FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
                       "WHERE n.nspname = 'public' ORDER BY 1, 2, 3")
    return cols, cons


def test_migrate_creates_the_documented_schema_on_postgresql(pg_database, pg_run):
    pg, db = pg_database
    first = pg_run(pg, "db", "migrate", "--database", url(pg, db))
    assert first.code == 0, first.err
    assert first.out.strip() == f"{url(pg, db)}: no schema → schema version 3"
    again = pg_run(pg, "db", "migrate", "--database", url(pg, db))
    assert again.out.strip() == f"{url(pg, db)}: schema version 3, up to date"
    ref = pg.create_database()
    pg.psql(ref, doc_v3_sql("pg"))
    assert pg_shape(pg, db) == pg_shape(pg, ref)
    assert pg.psql(db, "SELECT value FROM meta WHERE key = 'schema_version'").strip() == "3"


def test_migrate_upgrades_a_version_1_database_on_postgresql(pg_database, pg_run):
    pg, db = pg_database
    block = TELEMETRY_MD.split("## SQLite schema", 1)[1].split("```sql", 1)[1].split("```", 1)[0]
    stmts = [s.strip() for s in re.sub(r"--[^\n]*", "", block).split(";") if s.strip()]
    v1 = ";\n".join(s for s in stmts if not s.startswith("CREATE TABLE devices")) + ";"
    v1 = v1.replace("INTEGER", "BIGINT").replace("obstacle_kind TEXT", "obstacle_kind BYTEA") \
           .replace("message TEXT", "message BYTEA")
    pg.psql(db, v1 + "INSERT INTO meta VALUES('schema_version','1');"
                     "INSERT INTO surveys VALUES('p1',1,0,NULL,33,'f');")
    out = pg_run(pg, "db", "migrate", "--database", url(pg, db))
    assert out.code == 0, out.err
    assert out.out.strip() == f"{url(pg, db)}: version 1 → schema version 3"
    ref = pg.create_database()
    pg.psql(ref, doc_v3_sql("pg"))
    assert pg_shape(pg, db)[0] == pg_shape(pg, ref)[0]   # every table and column of version 3
    assert pg.psql(db, "SELECT player, age FROM surveys").strip() == "p1\t33"


def test_a_newer_schema_is_refused_untouched_on_postgresql(pg_database, pg_run, tmp_path):
    pg, db = pg_database
    pg.psql(db, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                "INSERT INTO meta VALUES('schema_version','4');")
    (tmp_path / "S1.jsonl").write_bytes(b"{}\n")
    for argv in (["db", "migrate", "--database", url(pg, db)],
                 ["db", "import-logs", "--database", url(pg, db), tmp_path / "S1.jsonl"]):
        r = pg_run(pg, *argv)
        assert r.code == 1
        want = (f"{url(pg, db)}: the database has schema version 4, newer than this dossier knows (3): "
                "use a newer dossier")
        assert any(l.startswith(want) for l in r.err_lines), r.err
    assert pg.psql(db, "SELECT table_name FROM information_schema.tables WHERE table_schema='public'").split() == ["meta"]
    assert pg.psql(db, "SELECT key, value FROM meta").strip() == "schema_version\t4"


FREE_TEXT = ["cr\x00ate", "boom \x00 ☃ \U0001F600", "é"]


def _sqlite_study(run_dossier, path):
    run_dossier("db", "migrate", "--database", path)
    con = sqlite3.connect(path)
    con.execute("INSERT INTO surveys VALUES('Bp',1,1,0,30,'fé')")
    con.execute("INSERT INTO surveys VALUES('ap',0,NULL,NULL,12,NULL)")
    con.execute("INSERT INTO sessions VALUES('Bp',1,1000,9000000000,42)")
    con.execute("INSERT INTO events VALUES('Bp',1,'obstacle',0,100,1000,?,NULL,NULL)", (FREE_TEXT[0],))
    con.execute("INSERT INTO events VALUES('Bp',1,'error',0,200,NULL,NULL,NULL,?)", (FREE_TEXT[1],))
    con.execute("INSERT INTO events VALUES('Bp',1,'error',1,201,NULL,NULL,NULL,?)", (FREE_TEXT[2],))
    con.execute("INSERT INTO events VALUES('Bp',1,'volume',0,300,NULL,NULL,1,NULL)")
    con.execute("INSERT INTO events VALUES('Bp',1,'tap',0,-5,NULL,NULL,NULL,NULL)")
    con.execute("INSERT INTO uploads VALUES('ab12','Bp',1)")
    con.execute("INSERT INTO devices VALUES('Bp','c2s=',NULL)")
    con.execute("INSERT INTO recall_logs VALUES('S9.jsonl',x'00ff10','deadbeef')")
    con.execute("INSERT INTO privacy_key VALUES(1,?,?,18000)", ("ab" * 32, "cd" * 16))
    con.execute("INSERT INTO privacy_ledger VALUES('r','1','0','game','2026-01-01T00:00:00Z',1)")
    con.execute("INSERT INTO meta VALUES('note','hello')")
    con.commit()
    con.close()


def _all_rows(path):
    con = sqlite3.connect(path)
    try:
        return {t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in ["meta"] + COPY_TABLES}
    finally:
        con.close()


def _count_line(frm, to, rows):
    return f"copied {frm} → {to}: " + ", ".join(f"{t} {len(rows[t])}" for t in COPY_TABLES)


def test_sqlite_to_postgresql_to_sqlite_gives_the_same_rows(pg_database, pg_run, run_dossier, tmp_path):
    pg, db = pg_database
    src = tmp_path / "a.sqlite"
    _sqlite_study(run_dossier, src)
    want = _all_rows(src)
    there = pg_run(pg, "db", "copy", src, url(pg, db))
    assert there.code == 0, there.err
    assert there.out.strip() == _count_line(src, url(pg, db), want)
    # free text is BYTEA holding its UTF-8 bytes
    got = pg.psql(db, "SELECT encode(obstacle_kind,'hex'), encode(message,'hex') FROM events "
                      "WHERE kind IN ('obstacle','error') ORDER BY kind, seq").split("\n")
    assert got[:3] == ["\t" + FREE_TEXT[1].encode().hex(), "\t" + FREE_TEXT[2].encode().hex(),
                       FREE_TEXT[0].encode().hex() + "\t"]
    back = tmp_path / "b.sqlite"
    home = pg_run(pg, "db", "copy", url(pg, db), back)
    assert home.code == 0, home.err
    assert home.out.strip() == _count_line(url(pg, db), back, want)
    assert _all_rows(back) == want
    con = sqlite3.connect(back)
    assert con.execute("SELECT DISTINCT typeof(message) FROM events WHERE kind='error'").fetchall() == [("text",)]


def test_copy_into_postgresql_carries_recall_device_pins(pg_database, pg_run, run_dossier, tmp_path):
    pg, db = pg_database
    src = tmp_path / "a.sqlite"
    run_dossier("db", "migrate", "--database", src)
    con = sqlite3.connect(src)
    con.execute("INSERT INTO recall_devices VALUES('a1933db60635ad2591a6829e88d236e3','TKdBAmYUI4Tz=')")
    con.commit()
    con.close()
    r = pg_run(pg, "db", "copy", src, url(pg, db))
    assert r.code == 0, r.err
    assert pg.psql(db, "SELECT device, signing_key FROM recall_devices").strip() == \
        "a1933db60635ad2591a6829e88d236e3\tTKdBAmYUI4Tz="


def test_copy_into_a_non_empty_postgresql_database(pg_database, pg_run, run_dossier, tmp_path):
    pg, db = pg_database
    src = tmp_path / "a.sqlite"
    _sqlite_study(run_dossier, src)
    assert pg_run(pg, "db", "migrate", "--database", url(pg, db)).code == 0
    pg.psql(db, "INSERT INTO recall_logs VALUES('old.jsonl','\\x01','h1'),('old2.jsonl','\\x02','h2'),"
                "('old3.jsonl','\\x03','h3')")
    r = pg_run(pg, "db", "copy", src, url(pg, db))
    assert r.code == 1
    want = (f"{url(pg, db)} is not empty (table recall_logs holds 3 rows): copy into an empty database, "
            "or give --replace")
    assert any(l.startswith(want) for l in r.err_lines), r.err
    # a copy that fails half-way keeps what TO held
    pg.psql(db, "CREATE FUNCTION no_events() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "RAISE EXCEPTION 'refused by the test'; END $$;"
                "CREATE TRIGGER no_events BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION no_events();")
    before = pg.psql(db, "SELECT name, sha256 FROM recall_logs ORDER BY 1")
    failed = pg_run(pg, "db", "copy", src, url(pg, db), "--replace")
    assert failed.code == 1
    assert len(failed.err.strip().splitlines()) == 1, failed.err
    assert pg.psql(db, "SELECT name, sha256 FROM recall_logs ORDER BY 1") == before
    assert pg.psql(db, "SELECT count(*) FROM surveys").strip() == "0"
    pg.psql(db, "DROP TRIGGER no_events ON events")
    ok = pg_run(pg, "db", "copy", src, url(pg, db), "--replace")
    assert ok.code == 0, ok.err
    assert pg.psql(db, "SELECT name FROM recall_logs").split() == ["S9.jsonl"]


def _forms(pg, db, tmp_path):
    """(text for --database, extra env, variables to unset) for each documented form."""
    svc = tmp_path / "pg_service.conf"
    svc.write_text(f"[study]\nhost=127.0.0.1\nport={pg.port}\nuser={pg.user}\ndbname={db}\n"
                   f"password={pg.password}\nsslmode=disable\n", encoding="utf-8")
    os.chmod(svc, 0o600)
    pgpass = pg.write_pgpass(tmp_path)
    nopw = ("PGPASSWORD",)
    return {
        "uri": (pg.url(db), {}, ()),
        "postgresql-uri": (pg.url(db).replace("postgres://", "postgresql://"), {}, ()),
        "env": ("postgres:", {"PGDATABASE": db}, ()),
        "keyvalue": (f"postgres:dbname={db}", {}, ()),
        "service": ("postgres:service=study", {"PGSERVICEFILE": str(svc), "PGPASSFILE": "/nonexistent"},
                    nopw + ("PGHOST", "PGPORT", "PGUSER")),
        "pgpass": (pg.url(db), {"PGPASSFILE": str(pgpass)}, nopw),
    }


@pytest.mark.parametrize("form", ["uri", "postgresql-uri", "env", "keyvalue", "service", "pgpass"])
def test_the_database_forms_and_where_the_password_comes_from(pg_database, pg_run, tmp_path, form):
    pg, db = pg_database
    text, env, unset = _forms(pg, db, tmp_path)[form]
    r = pg_run(pg, "db", "migrate", "--database", text, env=dict(env, HOME=str(tmp_path)), unset=unset)
    assert r.code == 0, r.err
    shown = "postgres: (from the PG* environment variables)" if text == "postgres:" else text
    assert r.out.strip() == f"{shown}: no schema → schema version 3"


def test_each_connection_failure_is_one_line(pg_database, pg_run, tmp_path):
    pg, db = pg_database
    at = f"127.0.0.1:{pg.port}"
    home = {"HOME": str(tmp_path), "PGPASSFILE": str(tmp_path / "none")}
    cases = [
        (pg.url(db), {"PGPASSWORD": "wrong-password-here"}, (),
         f"the PostgreSQL server at {at} refused the password of user {pg.user}: fix the password in "
         "PGPASSWORD, ~/.pgpass (or PGPASSFILE) or the service file"),
        (pg.url(db), {}, ("PGPASSWORD",),
         f"the PostgreSQL server at {at} asks for a password for user {pg.user} and none was found: set "
         "PGPASSWORD, or add a line to ~/.pgpass (or PGPASSFILE)"),
        (pg.url("nosuchdb"), {}, (),
         f"the database nosuchdb does not exist on the PostgreSQL server at {at}: create it (createdb "
         "nosuchdb) or fix the database name, then run dossier db migrate"),
    ]
    for text, env, unset, message in cases:
        r = pg_run(pg, "db", "migrate", "--database", text, env=dict(home, **env), unset=unset)
        assert r.code == 1
        assert r.err_lines == [f"{text}: {message}"], r.err
    import socket
    with socket.socket() as s:          # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        text = f"postgres://{pg.user}@127.0.0.1:{port}/{db}"
        r = pg_run(pg, "db", "migrate", "--database", text)
    assert r.code == 1
    assert len(r.err_lines) == 1 and re.fullmatch(
        re.escape(f"{text}: cannot reach the PostgreSQL server at 127.0.0.1:{port} (") + r".+" +
        re.escape("): check that it is running and that the host and port are right (PGHOST and PGPORT, "
                  "or the URL)"), r.err_lines[0]), r.err


def test_the_value_of_pgpassword_is_never_shown(pg_database, dossier_bin):
    """'any text Dossier shows has the value of PGPASSWORD (4 bytes or more) replaced by (password)'."""
    pg, db = pg_database
    name = f"x{pg.password}y"
    text = pg.url(name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.update(pg.client_env())
    proc = subprocess.run([dossier_bin, "db", "migrate", "--database", text], env=env,
                          capture_output=True, text=True, timeout=60)
    shown = proc.stdout + proc.stderr
    leaked = pg.password in shown
    shown = shown.replace(pg.password, "LEAKED")
    assert proc.returncode == 1
    assert "x(password)y" in shown, shown
    assert not leaked, "the value of PGPASSWORD appears in the output: " + shown


def test_a_missing_libpq_is_named_and_sqlite_never_loads_it(pg_database, pg_run, tmp_path):
    pg, db = pg_database
    r = pg_run(pg, "db", "migrate", "--database", pg.url(db), env={"DOSSIER_LIBPQ": str(tmp_path / "libpq.so.5")})
    assert r.code == 1
    assert len(r.err_lines) == 1
    assert r.err_lines[0].startswith(f"{pg.url(db)}: PostgreSQL support needs libpq, the PostgreSQL client library (cannot load ")
    assert r.err_lines[0].endswith("): apt install libpq5")
    real = [p for p in ("/usr/lib/x86_64-linux-gnu/libpq.so.5", "/usr/lib/aarch64-linux-gnu/libpq.so.5")
            if os.path.exists(p)]
    if real:   # DOSSIER_LIBPQ names another file
        shutil.copy(real[0], tmp_path / "libpq.so.5")
        ok = pg_run(pg, "db", "migrate", "--database", pg.url(db), env={"DOSSIER_LIBPQ": str(tmp_path / "libpq.so.5")})
        assert ok.code == 0, ok.err
    lite = pg_run(pg, "db", "migrate", "--database", tmp_path / "s.sqlite", env={"LD_DEBUG": "libs"})
    assert lite.code == 0
    assert "libpq" not in lite.err


def test_a_second_migration_waits_on_the_advisory_lock_and_finds_the_work_done(pg_database, dossier_bin):
    pg, db = pg_database
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.update(pg.client_env(db))
    with HeldSession(pg, db) as first:
        first.run(f"BEGIN; SELECT pg_advisory_xact_lock({LOCK_KEY});")
        proc = subprocess.Popen([dossier_bin, "db", "migrate", "--database", "postgres:"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_until(pg, db, WAITING_ON_LOCK, proc=proc)
            first.run(doc_v3_sql("pg") + "INSERT INTO meta VALUES('schema_version','3'); COMMIT;")
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0, err.replace(pg.password, "(pw)")
    assert out.strip().endswith(": schema version 3, up to date")


def test_migrate_gives_an_existing_version_2_ledger_its_seq_on_postgresql(pg_database, pg_run):
    """'from 2: the four tables are created when missing, and an existing privacy_ledger
    gets seq = rowid (its insertion order)'."""
    pg, db = pg_database
    v2 = [s.replace("INTEGER", "BIGINT") for s in doc_v3_sql("pg").split(";")
          if re.search(r"CREATE TABLE (meta|surveys|sessions|events|uploads|devices)\(", s)]
    pg.psql(db, ";".join(v2) + ";INSERT INTO meta VALUES('schema_version','2');"
                "CREATE TABLE privacy_ledger(release TEXT PRIMARY KEY, epsilon TEXT NOT NULL, delta TEXT NOT NULL, "
                "section TEXT NOT NULL, published TEXT NOT NULL);"
                "INSERT INTO privacy_ledger VALUES('ffff000000000000','1','0','game','2026-01-03T00:00:00Z');"
                "INSERT INTO privacy_ledger VALUES('0000000000000000','2','0','game','2026-01-01T00:00:00Z');"
                "INSERT INTO privacy_ledger VALUES('8888000000000000','3','0','game','2026-01-02T00:00:00Z');")
    out = pg_run(pg, "db", "migrate", "--database", url(pg, db))
    assert out.out.strip() == f"{url(pg, db)}: version 2 → schema version 3"
    cols = pg.psql(db, "SELECT column_name FROM information_schema.columns WHERE table_name = 'privacy_ledger' "
                       "ORDER BY ordinal_position").split()
    assert cols == ["release", "epsilon", "delta", "section", "published", "seq"]
    assert pg.psql(db, "SELECT release, seq FROM privacy_ledger ORDER BY seq").split() == \
        ["ffff000000000000", "1", "0000000000000000", "2", "8888000000000000", "3"]


class _Silent:
    """A TCP listener that accepts connections and never answers (a host that hangs)."""

    def __enter__(self):
        import socket
        import threading
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.held = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()
        return self

    def _accept(self):
        try:
            while True:
                self.held.append(self.sock.accept()[0])
        except OSError:
            pass

    def __exit__(self, *exc):
        self.sock.close()
        for c in self.held:
            c.close()


@pytest.mark.parametrize("given", [None, "2"])
def test_a_host_that_never_answers_is_unreachable_after_the_connect_timeout(pg_database, pg_run, given):
    """Without PGCONNECT_TIMEOUT (nor a timeout in the location) Dossier waits 15 s."""
    import time as _time
    pg, db = pg_database
    with _Silent() as silent:
        text = f"postgres://{pg.user}@127.0.0.1:{silent.port}/{db}"
        env = {"PGCONNECT_TIMEOUT": given} if given else {}
        unset = () if given else ("PGCONNECT_TIMEOUT",)
        t0 = _time.monotonic()
        r = pg_run(pg, "db", "migrate", "--database", text, env=env, unset=unset)
        took = _time.monotonic() - t0
    assert r.code == 1
    assert r.err_lines and r.err_lines[0].startswith(f"{text}: cannot reach the PostgreSQL server at 127.0.0.1:{silent.port} (")
    # libpq 15 counts the timeout in whole seconds: n seconds end after n-1 to n (docs/store.md)
    low, high = (13.9, 60) if given is None else (0.9, 12)
    assert low <= took <= high, took


@pytest.mark.parametrize("secret,shown", [("ghst", "(password)"), ("gho", "gho")])
def test_only_a_pgpassword_of_4_bytes_or_more_is_replaced(pg_database, pg_run, secret, shown):
    pg, db = pg_database
    text = f"postgres://{secret}@127.0.0.1:{pg.port}/{db}"
    r = pg_run(pg, "db", "migrate", "--database", text, env={"PGPASSWORD": secret})
    assert r.code == 1
    body = r.err_lines[0].split(": ", 1)[1] if r.err_lines else ""
    assert f"of user {shown}: " in body, body
