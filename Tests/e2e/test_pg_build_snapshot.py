"""A build while an ingest commits sees each upload entirely or not at all (docs/multi-site.md,
"Build and publish"; docs/store.md, "Transactions"), on a real PostgreSQL server.

Both seams are held open on purpose, not hit by timing, with the store's pause points
(`DOSSIER_PAUSE_AT`, Sources/StudyStore/PausePoint.swift):

- the ingest is held at its commit point — every row of the upload written (its survey,
  session, events, device pin and upload hash), nothing committed — while a whole build
  runs;
- the build is held inside its snapshot, after its first query, while an ingest stores
  an upload and commits; the build then reads the rest of its data.

The oracles are sites built from SQLite databases by a plain sequential ingest: one
without the held upload (R0), one with it (R1), both with the privacy key the
PostgreSQL study uses, so that all draw the same noise (the same rows give the same
release, docs/store.md). A build during the held commit must equal R0 byte for byte;
after the commit, R1. R0 and R1 differ (the upload adds a player), so each comparison
can fail.
"""
import shutil
import sqlite3
import subprocess
import time

import pytest

from store_campaign import scrub_environment
from test_game_release_data import sealed_players
from test_store_postgres import assert_same_tree, game_project, tree

PLAYERS = 24


@pytest.fixture(scope="module")
def study(tmp_path_factory, dossier_bin):
    """A key, 24 sealed uploads (one per player) and the two reference sites."""
    root = tmp_path_factory.mktemp("snapshot")
    uploads = sealed_players(dossier_bin, root, players=PLAYERS, seed=43)
    base, held = uploads[:-1], uploads[-1]

    def run(*args):
        subprocess.run([dossier_bin, *map(str, args)], check=True, capture_output=True, text=True)

    r0 = game_project(root / "r0", "study.sqlite")
    run("game", "ingest", "--key", root / "study.key", *base, "--db", r0 / "study.sqlite")
    run("build", r0)                                   # makes the study's privacy key
    con = sqlite3.connect(r0 / "study.sqlite")
    key = con.execute("select key, database_id, lifetime_milli from privacy_key").fetchone()
    con.close()
    r1 = game_project(root / "r1", "study.sqlite")
    run("game", "ingest", "--key", root / "study.key", *base, held, "--db", r1 / "study.sqlite")
    con = sqlite3.connect(r1 / "study.sqlite")
    con.execute("insert into privacy_key(id, key, database_id, lifetime_milli) values (1, ?, ?, ?)", key)
    con.commit()
    con.close()
    run("build", r1)
    assert tree(r0 / "_site") != tree(r1 / "_site")   # the held upload shows in the site
    return {"root": root, "base": base, "held": held, "key": key, "r0": r0 / "_site", "r1": r1 / "_site"}


def client_env(pg):
    """A scrubbed environment (store_campaign) with the server's PGPASSFILE and friends."""
    env = scrub_environment()
    env.update(pg.client_env())
    return env


def postgres_study(pg, run_dossier, study, folder):
    """A PostgreSQL study holding the base uploads and the reference sites' privacy key:
    (database, project, environment for the client commands)."""
    db = pg.create_database()
    env = pg.client_env()
    run_dossier("game", "ingest", "--key", study["root"] / "study.key", *study["base"], "--db", pg.url(db), env=env)
    k = study["key"]
    pg.psql(db, f"insert into privacy_key(id, key, database_id, lifetime_milli) values (1, '{k[0]}', '{k[1]}', {k[2]})")
    return db, game_project(folder, pg.url(db)), client_env(pg)


def held(argv, env, label, folder):
    """Starts `argv` held at pause point `label`; returns (process, release file) once it
    is there (its `.reached` file exists), or fails if it ends before."""
    release = folder / f"release-{label.replace(':', '-')}"
    env = dict(env, DOSSIER_PAUSE_AT=label, DOSSIER_PAUSE_FILE=str(release))
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reached = folder / (release.name + ".reached")
    deadline = time.monotonic() + 300
    while not reached.exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"{argv[1:3]} ended ({proc.returncode}) before {label}:\n{out}\n{err}")
        assert time.monotonic() < deadline, f"{label} not reached"
        time.sleep(0.02)
    return proc, release


def let_go(proc, release):
    release.write_text("go\n")
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out, err


def test_a_build_during_a_held_commit_sees_none_of_the_upload_then_all(
        study, pg_database, run_dossier, dossier_bin, tmp_path):
    pg, _ = pg_database
    db, proj, env = postgres_study(pg, run_dossier, study, tmp_path / "p")
    ingest, release = held([dossier_bin, "game", "ingest", "--key", str(study["root"] / "study.key"),
                            str(study["held"]), "--db", pg.url(db)], env, "commit:1", tmp_path)
    # Held at its commit: an open transaction that has written into every game table,
    # and none of it visible to another connection.
    open_writes = pg.psql(db, "select string_agg(distinct c.relname, ',' order by c.relname) from pg_locks l "
                              "join pg_class c on c.oid = l.relation where l.mode = 'RowExclusiveLock' "
                              "and l.pid <> pg_backend_pid()").strip().split(",")
    assert {"devices", "events", "sessions", "uploads"} <= set(open_writes), open_writes
    assert pg.psql(db, "select count(*) from uploads").strip() == str(PLAYERS - 1)
    run_dossier("build", "--clean", proj, env=env)
    assert_same_tree(proj / "_site", study["r0"])
    code, out, err = let_go(ingest, release)
    assert code == 0 and "1 stored, 0 duplicates, 0 rejected" in out, err
    run_dossier("build", "--clean", proj, env=env)
    assert_same_tree(proj / "_site", study["r1"])


def test_a_build_held_inside_its_snapshot_does_not_see_an_upload_committed_meanwhile(
        study, pg_database, run_dossier, dossier_bin, tmp_path):
    pg, _ = pg_database
    db, proj, env = postgres_study(pg, run_dossier, study, tmp_path / "p")
    build, release = held([dossier_bin, "build", "--clean", str(proj)], env, "snapshot:1", tmp_path)
    ingest = run_dossier("game", "ingest", "--key", study["root"] / "study.key", study["held"], "--db", pg.url(db),
                         env=env)
    assert "1 stored, 0 duplicates, 0 rejected" in ingest.stdout
    assert pg.psql(db, "select count(*) from uploads").strip() == str(PLAYERS)
    code, out, err = let_go(build, release)
    assert code == 0, err
    assert_same_tree(proj / "_site", study["r0"])
    run_dossier("build", "--clean", proj, env=env)
    assert_same_tree(proj / "_site", study["r1"])


# MARK: - Recall logs in the database: the same two seams

def recall_references(tmp_path, run_dossier):
    """Six demo logs: five stored first, the sixth held; reference sites from folders
    named `recall_logs` (what a database-built recall site equals, docs/store.md)."""
    from test_store_postgres import REPO_EXAMPLES, recall_project
    logs = sorted((__import__("pathlib").Path(REPO_EXAMPLES) / "logs").glob("*.jsonl"))[:6]
    refs = {}
    for name, part in (("r0", logs[:5]), ("r1", logs)):
        proj = recall_project(tmp_path / name, "logs: recall_logs")
        (proj / "recall_logs").mkdir()
        for f in part:
            shutil.copy(f, proj / "recall_logs" / f.name)
        run_dossier("build", proj)
        refs[name] = proj / "_site"
    assert tree(refs["r0"]) != tree(refs["r1"])
    return logs, refs


@pytest.mark.parametrize("held_side", ["ingest at its commit", "build in its snapshot"])
def test_a_recall_build_sees_a_log_stored_meanwhile_entirely_or_not_at_all(
        held_side, pg_database, run_dossier, dossier_bin, tmp_path):
    from test_store_postgres import recall_project
    pg, db = pg_database
    env = client_env(pg)
    logs, refs = recall_references(tmp_path, run_dossier)
    run_dossier("db", "import-logs", "--database", pg.url(db), *logs[:5], env=env)
    proj = recall_project(tmp_path / "p", f"database: {pg.url(db)}")
    store_sixth = [dossier_bin, "db", "import-logs", "--database", pg.url(db), str(logs[5])]
    if held_side == "ingest at its commit":
        proc, release = held(store_sixth, env, "commit:1", tmp_path)
        run_dossier("build", "--clean", proj, env=env)
        assert_same_tree(proj / "_site", refs["r0"])
        code, out, err = let_go(proc, release)
        assert code == 0, err
    else:
        proc, release = held([dossier_bin, "build", "--clean", str(proj)], env, "snapshot:1", tmp_path)
        subprocess.run(store_sixth, env=env, check=True, capture_output=True)
        code, out, err = let_go(proc, release)
        assert code == 0, err
        assert_same_tree(proj / "_site", refs["r0"])
    assert pg.psql(db, "select count(*) from recall_logs").strip() == "6"
    run_dossier("build", "--clean", proj, env=env)
    assert_same_tree(proj / "_site", refs["r1"])
