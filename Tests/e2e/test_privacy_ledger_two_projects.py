"""Two projects on one study database publish at the same moment (docs/game-privacy.md,
"One publish at a time per ledger"), on SQLite and on a real PostgreSQL server, made to
happen by a schedule, never by luck:

1. project A's publish is held inside its ledger transaction, its row written and not
   committed (pause point `commit`, Sources/StudyStore/PausePoint.swift);
2. project B's publish, with another release, has read the same ledger (A's row is not
   visible yet, so B's first check passes) and is held at its first request to the server
   (fault_dav.py `hold`), before it records anything;
3. A commits and publishes; then B goes on.

The lifetime budget has room for one release. B must be refused as it records, with
nothing of its site on the server. Before, the budget was checked when the ledger was
read and the row inserted in another transaction: both releases went public and the
database's ledger counted ε 12 against a lifetime of 6.

On PostgreSQL a second schedule lets B's ledger transaction start while A's is still open:
it waits for A's lock on `privacy_ledger` (seen in `pg_stat_activity`), then sees A's row.

And a publish killed between its two ledger writes (the database's row committed, the
project's text copy not yet written; pause point `ledger-copy`) leaves a copy that the next
publish of the same release mends, spending nothing more.

A publish's closing line names the total as committed: B records its release while A
waits at its first request, and A's line counts both.
"""
import json
import sqlite3
import subprocess
import time

import pytest

from store_campaign import scrub_environment
from test_game_release_data import sealed_players
from webdav_server import PASSWORD, USER, WebDAVServer

LIFETIME = 6   # each release spends ε = 6 (the default): room for one


@pytest.fixture(scope="module")
def study(tmp_path_factory, dossier_bin):
    root = tmp_path_factory.mktemp("two-projects")
    return root, sealed_players(dossier_bin, root, players=30, seed=58)


def projects(tmp_path, database, run_dossier, env, lifetime=LIFETIME):
    """Projects A and B on `database`, with different fold counts: two releases."""
    out = []
    for name, folds in (("a", 5), ("b", 4)):
        proj = tmp_path / name
        proj.mkdir()
        (proj / "dossier.yml").write_text(
            f"title: Game\noutput: _site\ngame:\n  database: {database}\n  results_capacity: 40\n  folds: {folds}\n"
            f"  privacy:\n    lifetime_epsilon: {lifetime}\n")
        run_dossier("build", proj, env=env)
        out.append(proj)
    releases = [json.loads((p / "_site" / "game" / "privacy.json").read_text())["release"] for p in out]
    assert releases[0] != releases[1]
    return out, releases


def start_publish(dossier_bin, proj, url, env, **extra):
    env = dict(env, DOSSIER_WEBDAV_PASSWORD=PASSWORD, DOSSIER_WEBDAV_USER=USER, **extra)
    return subprocess.Popen([dossier_bin, "publish", str(proj), "--to", url, "--jobs", "1"], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(what, done, proc):
    deadline = time.monotonic() + 120
    while not done():
        assert proc.poll() is None, f"ended before {what}: " + "\n".join(proc.communicate())
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def held_publishes(dav, rules, dossier_bin, a, b, env):
    """A held before its ledger commit, B held at its first server request (see above)."""
    gate = rules.parent / "A-commit"
    pa = start_publish(dossier_bin, a, dav.url + "a/", env,
                       DOSSIER_PAUSE_AT="commit:1", DOSSIER_PAUSE_FILE=str(gate))
    wait_for("A's ledger commit", lambda: gate.with_name(gate.name + ".reached").exists(), pa)
    port = dav.url.rsplit(":", 1)[1]
    pb = start_publish(dossier_bin, b, "http://localhost:" + port + "b/", env)
    wait_for("B's first request", lambda: any(k == "hold:B" for _, _, k in dav.faults_fired()), pb)
    return pa, gate, pb


def publish_rules(tmp_path):
    rules = tmp_path / "rules" / "faults.json"
    rules.parent.mkdir()
    rules.write_text(json.dumps({"rules": [{"host": "localhost", "fault": "hold", "gate": "B", "times": 1}]}))
    return rules


def check_outcome(pa, pb, releases, ledger_rows, server):
    out_a, err_a = pa.communicate(timeout=300)
    assert pa.returncode == 0, err_a
    out_b, err_b = pb.communicate(timeout=300)
    assert pb.returncode == 1, out_b + err_b            # an old binary published B too
    assert "past the lifetime budget" in err_b and "nothing was published" in err_b, err_b
    assert f"release {releases[1]}" in err_b and "ε = 6 already spent" in err_b, err_b
    rows = ledger_rows()
    assert [r for r, _ in rows] == [releases[0]], rows
    assert sum(float(e) for _, e in rows) <= LIFETIME
    assert (server / "a" / "game" / "privacy.json").is_file()
    assert not (server / "b").exists(), sorted(map(str, (server / "b").rglob("*")))


def test_two_projects_on_one_sqlite_database_meet_one_budget(study, run_dossier, dossier_bin, tmp_path):
    root, uploads = study
    db = tmp_path / "study.sqlite"
    env = scrub_environment()
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads, "--db", db, env=env)
    (a, b), releases = projects(tmp_path, db, run_dossier, env)
    rules = publish_rules(tmp_path)
    with WebDAVServer(tmp_path / "srv", faults=rules) as dav:
        pa, gate, pb = held_publishes(dav, rules, dossier_bin, a, b, env)
        gate.write_text("go\n")                           # A commits, then publishes
        pa.wait(timeout=300)
        (rules.parent / "B.go").touch()                   # B records (or is refused) now

        def rows():
            con = sqlite3.connect(db)
            try:
                return con.execute("select release, epsilon from privacy_ledger order by seq").fetchall()
            finally:
                con.close()
        check_outcome(pa, pb, releases, rows, tmp_path / "srv")
    # B's project copy of the ledger is untouched; A's is a copy of the database's.
    assert not (b / "privacy-ledger.txt").exists()
    assert releases[0] in (a / "privacy-ledger.txt").read_text()


def postgres_projects(pg, root, uploads, run_dossier, tmp_path):
    dbname = pg.create_database()
    env = scrub_environment()
    env.update(pg.client_env())
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads, "--db", pg.url(dbname), env=env)
    (a, b), releases = projects(tmp_path, pg.url(dbname), run_dossier, env)

    def rows():
        out = pg.psql(dbname, "select release || ' ' || epsilon from privacy_ledger order by seq").split("\n")
        return [tuple(l.split()) for l in out if l.strip()]
    return dbname, env, a, b, releases, rows


@pytest.mark.parametrize("order", ["a commits, then b records", "b's transaction waits for a's"])
def test_two_projects_on_one_postgres_database_meet_one_budget(study, pg_database, run_dossier, dossier_bin,
                                                               tmp_path, order):
    pg, _ = pg_database
    root, uploads = study
    dbname, env, a, b, releases, rows = postgres_projects(pg, root, uploads, run_dossier, tmp_path)
    rules = publish_rules(tmp_path)
    with WebDAVServer(tmp_path / "srv", faults=rules) as dav:
        pa, gate, pb = held_publishes(dav, rules, dossier_bin, a, b, env)
        if order.startswith("a commits"):
            gate.write_text("go\n")
            pa.wait(timeout=300)
            (rules.parent / "B.go").touch()
        else:
            (rules.parent / "B.go").touch()               # B's transaction starts while A's is open
            waiting = ("select count(*) from pg_stat_activity where wait_event_type = 'Lock' "
                       "and query like 'LOCK TABLE%'")
            wait_for("B waiting for A's ledger lock", lambda: pg.psql(dbname, waiting).strip() == "1", pb)
            assert pb.poll() is None
            gate.write_text("go\n")
        check_outcome(pa, pb, releases, rows, tmp_path / "srv")


def test_a_publish_killed_between_the_row_and_the_copy_is_mended_next_time(study, run_dossier, dossier_bin,
                                                                             tmp_path):
    root, uploads = study
    db = tmp_path / "study.sqlite"
    env = scrub_environment()
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads, "--db", db, env=env)
    (a, _), releases = projects(tmp_path, db, run_dossier, env)
    with WebDAVServer(tmp_path / "srv") as dav:
        gate = tmp_path / "copy-gate"
        p = start_publish(dossier_bin, a, dav.url + "a/", env, DOSSIER_PAUSE_AT="ledger-copy",
                          DOSSIER_PAUSE_FILE=str(gate))
        wait_for("the ledger copy", lambda: gate.with_name(gate.name + ".reached").exists(), p)
        p.kill()
        p.communicate()
        con = sqlite3.connect(db)
        rows = con.execute("select release from privacy_ledger").fetchall()
        con.close()
        assert rows == [(releases[0],)]                               # the row is committed
        copy = a / "privacy-ledger.txt"
        assert not copy.exists() or releases[0] not in copy.read_text()  # the copy is not
        again = start_publish(dossier_bin, a, dav.url + "a/", env)
        out, err = again.communicate(timeout=300)
        assert again.returncode == 0, err
        assert "already in the ledger" in out, out
        assert releases[0] in copy.read_text()                        # mended: a copy of the database's
        copy.unlink()                                                 # a deleted copy comes back too
        again = start_publish(dossier_bin, a, dav.url + "a/", env)
        out, err = again.communicate(timeout=300)
        assert again.returncode == 0 and "already in the ledger" in out, out + err
    assert copy.read_text().count(releases[0]) == 1


def test_the_total_a_publish_shows_counts_a_release_recorded_meanwhile(study, run_dossier, dossier_bin, tmp_path):
    root, uploads = study
    db = tmp_path / "study.sqlite"
    env = scrub_environment()
    run_dossier("game", "ingest", "--key", root / "study.key", *uploads, "--db", db, env=env)
    (a, b), releases = projects(tmp_path, db, run_dossier, env, lifetime=2 * LIFETIME)   # room for both
    rules = tmp_path / "rules" / "faults.json"
    rules.parent.mkdir()
    rules.write_text(json.dumps({"rules": [{"host": "127.0.0.1", "fault": "hold", "gate": "A", "times": 1}]}))
    with WebDAVServer(tmp_path / "srv", faults=rules) as dav:
        pa = start_publish(dossier_bin, a, dav.url + "a/", env)   # has read the ledger: empty
        wait_for("A's first request", lambda: any(k == "hold:A" for _, _, k in dav.faults_fired()), pa)
        port = dav.url.rsplit(":", 1)[1]
        pb = start_publish(dossier_bin, b, "http://localhost:" + port + "b/", env)
        out_b, err_b = pb.communicate(timeout=300)
        assert pb.returncode == 0, err_b
        assert f"privacy: recorded release {releases[1]}, ε = 6 (total ε = 6)" in out_b, out_b
        (rules.parent / "A.go").touch()
        out_a, err_a = pa.communicate(timeout=300)
        assert pa.returncode == 0, err_a
        # An old binary said "total ε = 6": the ledger as A read it, plus A's release.
        assert f"privacy: recorded release {releases[0]}, ε = 6 (total ε = 12)" in out_a, out_a
