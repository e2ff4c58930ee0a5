"""The PostgreSQL store when things go wrong (docs/store.md, "When something fails"),
against a real server: a wrong password, an unreachable server, a missing database, a
database of a newer schema, a password written where it does not belong — each a
clear message naming what to fix and never the password; and the server stopped in
the middle of an ingest (exit 1, a re-run stores the rest exactly once) and of a build
(exit 1, the previous site untouched). The stops happen at named pause points
(DOSSIER_PAUSE_AT, debug builds): the process waits there until the test has stopped
the server."""
import os
import subprocess
import time

import pytest

from pg_server import free_port
from test_game_release_data import sealed_players
from test_store_postgres import game_project, tree


@pytest.fixture(scope="module")
def study(tmp_path_factory, dossier_bin):
    root = tmp_path_factory.mktemp("pgfaults")       # (root, its sealed uploads)
    return root, sealed_players(dossier_bin, root, players=8, seed=41)


def no_secret(proc, secret):
    assert secret not in proc.stdout and secret not in proc.stderr, "the password was shown"


def test_wrong_password_unreachable_missing_database_and_password_in_files(study, pg_database, run_dossier, tmp_path):
    pg, db = pg_database
    root, uploads = study
    key = root / "study.key"
    wrong = pg.client_env()
    wrong["PGPASSWORD"] = "Wrong" + pg.password
    bad = run_dossier("game", "ingest", "--key", key, *uploads, "--db", pg.url(db), env=wrong, check=False)
    assert bad.returncode == 1
    assert "refused the password of user dossier_test" in bad.stderr and "PGPASSWORD" in bad.stderr
    no_secret(bad, wrong["PGPASSWORD"])
    no_secret(bad, pg.password)
    # No password at all: say where one goes.
    none = pg.client_env(password=False)
    none["PGPASSFILE"] = str(tmp_path / "no-such-pgpass")
    missing = run_dossier("game", "analyze", "--db", pg.url(db), env=none, check=False)
    assert missing.returncode == 1 and "none was found" in missing.stderr and ".pgpass" in missing.stderr
    # Nothing listens on this port.
    port = free_port()
    far = run_dossier("game", "analyze", "--db", f"postgres://{pg.user}@127.0.0.1:{port}/{db}", env=pg.client_env(),
                      check=False)
    assert far.returncode == 1
    assert f"cannot reach the PostgreSQL server at 127.0.0.1:{port}" in far.stderr and "PGHOST" in far.stderr
    no_secret(far, pg.password)
    gone = run_dossier("game", "analyze", "--db", pg.url("no_such_db"), env=pg.client_env(), check=False)
    assert gone.returncode == 1 and "the database no_such_db does not exist" in gone.stderr
    assert "createdb no_such_db" in gone.stderr
    # A password in dossier.yml or on the command line is refused before any connection.
    proj = game_project(tmp_path / "p", pg.url(db, with_password=True))
    yml = run_dossier("build", proj, env=pg.client_env(), check=False)
    assert yml.returncode == 1 and "dossier.yml" in yml.stderr and "game.database holds a database password" in yml.stderr
    assert "PGPASSWORD" in yml.stderr and ".pgpass" in yml.stderr
    no_secret(yml, pg.password)
    cli = run_dossier("game", "analyze", "--db", pg.url(db, with_password=True), check=False)
    assert cli.returncode == 1 and "holds a database password" in cli.stderr
    no_secret(cli, pg.password)
    copy = run_dossier("db", "copy", tmp_path / "x.sqlite", pg.url(db, with_password=True), check=False)
    assert copy.returncode == 1
    no_secret(copy, pg.password)
    # Without libpq (here: a file that is not there) PostgreSQL is unavailable, and says so.
    nolib = dict(pg.client_env(), DOSSIER_LIBPQ=str(tmp_path / "libpq.so.5"))
    lib = run_dossier("db", "migrate", "--database", pg.url(db), env=nolib, check=False)
    assert lib.returncode == 1 and "PostgreSQL support needs libpq" in lib.stderr and "apt install libpq5" in lib.stderr


def test_a_database_of_a_newer_schema_is_refused_untouched(study, pg_database, run_dossier, tmp_path):
    pg, db = pg_database
    env = pg.client_env()
    root, uploads = study
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads[:2], "--db", pg.url(db), env=env)
    pg.psql(db, "update meta set value = '99' where key = 'schema_version'")
    before = pg.psql(db, "select count(*) from uploads")
    for args in (["game", "ingest", "--key", root / "study.key", *uploads, "--db", pg.url(db)],
                 ["db", "migrate", "--database", pg.url(db)],
                 ["build", game_project(tmp_path / "p", pg.url(db))]):
        proc = run_dossier(*args, env=env, check=False)
        assert proc.returncode == 1, proc
        assert "schema version 99, newer than this dossier knows (3)" in proc.stderr
        no_secret(proc, pg.password)
    assert pg.psql(db, "select count(*) from uploads") == before
    assert pg.psql(db, "select value from meta where key = 'schema_version'").strip() == "99"


def paused(dossier_bin, args, env, point, flag):
    """Starts dossier with a pause at `point`; returns the process once it waits there."""
    full = dict(os.environ)
    full.update(env)
    full["DOSSIER_PAUSE_AT"] = point
    full["DOSSIER_PAUSE_FILE"] = str(flag)
    proc = subprocess.Popen([dossier_bin, *map(str, args)], env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    reached = flag.parent / (flag.name + ".reached")
    deadline = time.monotonic() + 300
    while not reached.exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"ended before the pause point {point}: {proc.returncode}\n{out}\n{err}")
        assert time.monotonic() < deadline, f"never reached {point}"
        time.sleep(0.02)
    return proc


def test_server_stopped_mid_ingest_then_a_rerun_stores_the_rest_exactly_once(study, pg_server_own, dossier_bin,
                                                                            run_dossier, tmp_path):
    pg = pg_server_own
    db = pg.create_database()
    env = pg.client_env()
    root, uploads = study
    # The third upload's transaction is about to commit when the server stops.
    proc = paused(dossier_bin, ["game", "ingest", "--key", root / "study.key", *uploads, "--db", pg.url(db)], env,
                  "commit:3", tmp_path / "go")
    pg.stop(mode="immediate")
    (tmp_path / "go").touch()
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, (out, err)
    assert "connection to the PostgreSQL server" in err and "run the ingest again" in err
    assert pg.password not in out + err
    assert out.count(": stored player") == 2
    pg.start()
    assert int(pg.psql(db, "select count(*) from uploads")) == 2
    rerun = run_dossier("game", "ingest", "--key", root / "study.key", *uploads, "--db", pg.url(db), env=env)
    assert "6 stored, 2 duplicates, 0 rejected" in rerun.stdout
    # Exactly once: the same rows as one clean ingest of all eight into SQLite.
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads, "--db", tmp_path / "clean.sqlite")
    run_dossier("db", "copy", pg.url(db), tmp_path / "after.sqlite", env=env)
    from test_store_postgres import sqlite_rows
    assert sqlite_rows(tmp_path / "after.sqlite") == sqlite_rows(tmp_path / "clean.sqlite")


def test_server_stopped_mid_build_leaves_the_previous_site(study, pg_server_own, dossier_bin, run_dossier, tmp_path):
    pg = pg_server_own
    db = pg.create_database()
    env = pg.client_env()
    root, uploads = study
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads[:6], "--db", pg.url(db), env=env)
    proj = game_project(tmp_path / "p", pg.url(db))
    run_dossier("build", proj, env=env)
    before = tree(proj / "_site")
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads[6:], "--db", pg.url(db), env=env)
    proc = paused(dossier_bin, ["build", proj], env, "snapshot:1", tmp_path / "go")
    pg.stop(mode="immediate")
    (tmp_path / "go").touch()
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, (out, err)
    assert "connection to the PostgreSQL server" in err
    assert pg.password not in out + err
    assert tree(proj / "_site") == before
    pg.start()
    run_dossier("build", proj, env=env)
    assert tree(proj / "_site") != before


def test_two_ingests_of_one_upload_at_once_store_it_once(study, pg_database, dossier_bin, tmp_path):
    """Ingest A holds its transaction open just before it commits (it has claimed the
    upload's hash); ingest B, with the same upload, is then seen waiting on A's row lock
    in the server; A commits; B's SERIALIZABLE transaction fails to serialize, is run
    again, and finds a duplicate. Each upload once, both exit 0."""
    pg, db = pg_database
    env = pg.client_env()
    root, uploads = study
    args = ["game", "ingest", "--key", root / "study.key", uploads[0], "--db", pg.url(db)]
    a = paused(dossier_bin, args, env, "commit:1", tmp_path / "go")
    full = dict(os.environ)
    full.update(env)
    b = subprocess.Popen([dossier_bin, *map(str, args)], env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.monotonic() + 120
    while int(pg.psql(db, "select count(*) from pg_stat_activity where wait_event_type = 'Lock' "
                          f"and datname = '{db}'")) < 1:
        assert b.poll() is None, b.communicate()
        assert time.monotonic() < deadline, "ingest B never waited for A's lock"
        time.sleep(0.05)
    (tmp_path / "go").touch()
    out_a, err_a = a.communicate(timeout=300)
    out_b, err_b = b.communicate(timeout=300)
    assert a.returncode == 0 and b.returncode == 0, (err_a, err_b)
    assert "1 stored, 0 duplicates" in out_a
    assert "0 stored, 1 duplicates" in out_b
    assert int(pg.psql(db, "select count(*) from uploads")) == 1
    sessions = int(pg.psql(db, "select count(*) from sessions"))
    assert sessions > 0 and int(pg.psql(db, "select sessions from uploads")) == sessions


@pytest.mark.parametrize("link", ["symbolic", "hard", "dot"])
def test_db_copy_onto_its_own_file_by_another_name_is_refused(run_dossier, tmp_path, link):
    """`db copy` compared the two locations as text only: a link to FROM, or `./FROM`, was
    taken for another database. Same device and inode: refused before either is opened."""
    logs = tmp_path / "logs"
    run_dossier("recall", "simulate", "--participants", "2", "--seed", "3", "--out", logs)
    db = tmp_path / "a.sqlite"
    run_dossier("db", "import-logs", "--database", db, logs)
    before = db.read_bytes()
    other = {"symbolic": tmp_path / "link.sqlite", "hard": tmp_path / "hard.sqlite", "dot": None}[link]
    if link == "symbolic":
        other.symlink_to(db)
    elif link == "hard":
        os.link(db, other)
    to = str(other) if other else "./a.sqlite"
    proc = run_dossier("db", "copy", "a.sqlite", to, "--replace", cwd=tmp_path, check=False)
    assert proc.returncode == 2 and "FROM and TO are the same database" in proc.stderr, proc.stdout + proc.stderr
    assert db.read_bytes() == before
