"""docs/store.md on a PostgreSQL server of this module alone (it is reconfigured, stopped
and started): the statements Dossier sends (transactions, the migration lock, cursors,
values only as parameters, text ordered by bytes), a server lost in the middle of a write
or of a build, and the "no such user" message."""
import os
import pathlib
import re
import shutil
import subprocess
import time

import pytest

from conftest import soak_only  # noqa: E402

pytestmark = soak_only("the PostgreSQL doc oracle (minutes on two cores)")

from conftest import _started_pg_server


@pytest.fixture(scope="module")
def own():
    """A server of this module alone (its tests stop and restart it)."""
    yield from _started_pg_server()


def env_for(pg, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG") and not k.startswith("DOSSIER_")}
    env.update(pg.client_env())
    env.update(extra)
    return env


def run(dossier_bin, *args, env, check=True):
    proc = subprocess.run([dossier_bin, *map(str, args)], env=env, capture_output=True, text=True, timeout=180)
    if check and proc.returncode != 0:
        raise AssertionError(f"dossier {args[0]} exited {proc.returncode}: "
                             f"{proc.stderr.replace(env.get('PGPASSWORD', chr(0)), '(pw)')}")
    return proc


def paused(dossier_bin, argv, env, label, pause: pathlib.Path):
    proc = subprocess.Popen([dossier_bin, *map(str, argv)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(env, DOSSIER_PAUSE_AT=label, DOSSIER_PAUSE_FILE=str(pause)))
    deadline = time.monotonic() + 120
    while not pathlib.Path(str(pause) + ".reached").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"no pause at {label}: {proc.communicate()[1]}")
        time.sleep(0.02)
    return proc


def lose_server_while_paused(pg, proc, pause: pathlib.Path):
    """Stops the server at once while `proc` waits at its pause, lets it go on, starts the
    server again; returns the (stdout, stderr) of `proc`."""
    try:
        pg.stop(mode="immediate")
        pause.touch()
        return proc.communicate(timeout=120)
    finally:
        pg.start()


def statements(pg, app):
    """(kind, text) of every statement the connections named `app` sent."""
    out = []
    for line in pg.log.read_text(encoding="utf-8", errors="replace").splitlines():
        m = re.match(r"^\S+ \S+ \S+ \[\d+\] \S+ (\S+) LOG:  (statement|execute [^:]*): (.*)$", line)
        if m and m.group(1) == app:
            out.append(m.group(3))
    return out


TEXT_COLUMNS = {"player", "kind", "name", "release", "device", "content_sha256", "sha256", "key", "gender",
                "section", "published", "epsilon", "delta", "signing_key", "result_key", "value", "database_id"}


def unordered_text(sql):
    """ORDER BY terms on a text column without COLLATE "C"."""
    bad = []
    for clause in re.findall(r"ORDER BY (.*?)(?:$| LIMIT| OFFSET| FOR )", sql, flags=re.I):
        for term in clause.split(","):
            words = term.split()
            if words and words[0].split(".")[-1] in TEXT_COLUMNS and 'COLLATE "C"' not in term:
                bad.append(term.strip())
    return bad


def test_the_statements_dossier_sends(own, dossier_bin, tmp_path, run_dossier):
    pg = own
    db = pg.create_database()
    pg.psql("postgres", "ALTER SYSTEM SET log_statement = 'all'; ")
    pg.psql("postgres", "ALTER SYSTEM SET log_line_prefix = '%m [%p] %d %a '; ")
    pg.psql("postgres", "SELECT pg_reload_conf()")
    loc = pg.url(db)
    logs = tmp_path / "logs"
    run(dossier_bin, "recall", "simulate", "--participants", "2", "--seed", "4", "--out", logs, env=env_for(pg))
    run(dossier_bin, "game", "keygen", "--out", tmp_path / "k", env=env_for(pg))
    run(dossier_bin, "game", "simulate", "--players", "2", "--seed", "8", "--obstacles", "6", "--output",
        tmp_path / "c.jsonl", env=env_for(pg))
    run(dossier_bin, "game", "seal", "--public", tmp_path / "k.pub", "--out", tmp_path / "up", tmp_path / "c.jsonl",
        env=env_for(pg))
    steps = [("mig", ["db", "migrate", "--database", loc]),
             ("sim", ["game", "simulate", "--players", "12", "--seed", "3", "--obstacles", "60", "--db", loc]),
             ("imp", ["db", "import-logs", "--database", loc, logs]),
             ("ing", ["game", "ingest", "--key", tmp_path / "k.key", tmp_path / "up", "--db", loc])]
    for app, argv in steps:
        run(dossier_bin, *argv, env=env_for(pg, PGAPPNAME=app))
    proj = tmp_path / "p"
    proj.mkdir()
    shutil.copy(logs / "strings.txt", proj / "strings.txt")
    (proj / "dossier.yml").write_text(f'title: t\ngame:\n  database: "{loc}"\nrecall:\n  strings: strings.txt\n'
                                      f'  database: "{loc}"\n', encoding="utf-8")
    run(dossier_bin, "build", proj, env=env_for(pg, PGAPPNAME="bld"))
    run(dossier_bin, "db", "copy", loc, tmp_path / "copy.sqlite", env=env_for(pg, PGAPPNAME="cpf"))
    db2 = pg.create_database()
    run(dossier_bin, "db", "migrate", "--database", pg.url(db2), env=env_for(pg))
    run(dossier_bin, "db", "copy", tmp_path / "copy.sqlite", pg.url(db2), env=env_for(pg, PGAPPNAME="cpt"))
    sent = {app: statements(pg, app) for app in ("mig", "sim", "imp", "ing", "bld", "cpf", "cpt")}
    begins = {app: sorted({s for s in st if s.startswith("BEGIN")}) for app, st in sent.items()}
    # the schema migration: BEGIN (read committed) and the advisory lock
    assert begins["mig"] == ["BEGIN"]
    assert f"SELECT pg_advisory_xact_lock(7236411305822471)" in [s.strip().rstrip(";") for s in sent["mig"]]
    for app in ("sim", "imp", "ing", "cpt"):               # writes
        assert begins[app] == ["BEGIN ISOLATION LEVEL SERIALIZABLE"], app
    assert begins["cpf"] == ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"]
    assert "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" in begins["bld"]
    assert set(begins["bld"]) <= {"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "BEGIN ISOLATION LEVEL SERIALIZABLE"}
    # a snapshot's queries go through cursors, 5000 rows a fetch, until fewer rows come
    declares = [s for s in sent["bld"] + sent["cpf"] if s.startswith("DECLARE")]
    assert declares and all(re.match(r"DECLARE dossier_c\d+ NO SCROLL CURSOR FOR ", s) for s in declares)
    fetches = [s for s in sent["bld"] if s.startswith("FETCH")]
    assert fetches and all(re.fullmatch(r"FETCH 5000 FROM dossier_c\d+", s) for s in fetches)
    assert len(fetches) > len([s for s in sent["bld"] if s.startswith("DECLARE")])   # the events took two
    everything = [s for st in sent.values() for s in st]
    assert not [s for s in everything if re.search(r"INSERT OR|\browid\b", s, flags=re.I)]
    # values only as parameters: no log name, player id or hash in any statement's text
    players = pg.psql(db, "SELECT player FROM surveys").split()
    hashes = pg.psql(db, "SELECT sha256 FROM recall_logs UNION ALL SELECT content_sha256 FROM uploads").split()
    values = players + hashes + ["S001.jsonl", "S002.jsonl"]
    assert not [(v, s[:80]) for s in everything for v in values if v in s]
    # text that is ordered is ordered by bytes
    bad = sorted({(app, s[:200]) for app, st in sent.items() for s in st if unordered_text(s)})
    assert bad == [], "\n".join(map(str, bad))


def test_a_server_lost_in_the_middle_of_a_write(own, dossier_bin, tmp_path):
    pg = own
    db = pg.create_database()
    loc = pg.url(db)
    at = f"127.0.0.1:{pg.port}"
    run(dossier_bin, "db", "migrate", "--database", loc, env=env_for(pg))
    (tmp_path / "S1.jsonl").write_bytes(b"{}\n")
    proc = paused(dossier_bin, ["db", "import-logs", "--database", loc, tmp_path / "S1.jsonl"], env_for(pg),
                  "commit:1", tmp_path / "pause")
    out, err = lose_server_while_paused(pg, proc, tmp_path / "pause")
    assert proc.returncode == 1
    lines = [re.sub(r"^error: ", "", l) for l in err.replace(pg.password, "(pw)").splitlines()]
    assert len(lines) == 1 and re.fullmatch(
        re.escape(f"{loc}: the connection to the PostgreSQL server at {at} was lost (") + r".+" +
        re.escape("); nothing of the unfinished transaction was kept: run the command again when the server is back"),
        lines[0]), lines
    assert pg.psql(db, "SELECT count(*) FROM recall_logs").strip() == "0"


def test_an_ingest_that_loses_its_database_stops_at_once(own, dossier_bin, tmp_path):
    pg = own
    db = pg.create_database()
    loc = pg.url(db)
    env = env_for(pg)
    run(dossier_bin, "db", "migrate", "--database", loc, env=env)
    run(dossier_bin, "game", "keygen", "--out", tmp_path / "k", env=env)
    run(dossier_bin, "game", "simulate", "--players", "3", "--seed", "9", "--obstacles", "6", "--output",
        tmp_path / "c.jsonl", env=env)
    run(dossier_bin, "game", "seal", "--public", tmp_path / "k.pub", "--out", tmp_path / "up", tmp_path / "c.jsonl", env=env)
    ups = sorted((tmp_path / "up").glob("*.rmu"))
    assert len(ups) == 3
    proc = paused(dossier_bin, ["game", "ingest", "--key", tmp_path / "k.key", tmp_path / "up", "--db", loc], env,
                  "commit:2", tmp_path / "pause")
    out, err = lose_server_while_paused(pg, proc, tmp_path / "pause")
    assert proc.returncode == 1
    err = err.replace(pg.password, "(pw)")
    not_stored = [l for l in err.splitlines() if ": not stored: " in l]
    assert len(not_stored) == 1, err
    assert ups[1].name in not_stored[0].split(": not stored: ")[0]
    assert not_stored[0].endswith("(1 stored before this; run the ingest again when the database is back)"), err
    assert ups[2].name not in out + err          # the uploads that follow are not rejected, nor tried
    assert pg.psql(db, "SELECT count(*) FROM uploads").strip() == "1"
    again = run(dossier_bin, "game", "ingest", "--key", tmp_path / "k.key", tmp_path / "up", "--db", loc, env=env)
    assert again.stdout.strip().splitlines()[-1] == "2 stored, 1 duplicates, 0 rejected"
    assert pg.psql(db, "SELECT count(*) FROM uploads").strip() == "3"


def test_a_build_that_loses_its_database_writes_nothing(own, dossier_bin, tmp_path):
    pg = own
    db = pg.create_database()
    loc = pg.url(db)
    env = env_for(pg)
    run(dossier_bin, "game", "simulate", "--players", "8", "--seed", "9", "--obstacles", "6", "--db", loc, env=env)
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "dossier.yml").write_text(f'title: t\ngame:\n  database: "{loc}"\n', encoding="utf-8")
    run(dossier_bin, "build", proj, env=env)
    before = {str(p.relative_to(proj)): p.read_bytes() for p in sorted(proj.rglob("*"))
              if p.is_file() and p.parts[len(proj.parts)] in ("_site", "_site.manifest.json")}
    pg.psql(db, "UPDATE sessions SET score = score + 1 WHERE session = 1")
    proc = paused(dossier_bin, ["build", proj], env, "snapshot:1", tmp_path / "pause")
    lose_server_while_paused(pg, proc, tmp_path / "pause")
    assert proc.returncode == 1
    after = {str(p.relative_to(proj)): p.read_bytes() for p in sorted(proj.rglob("*"))
             if p.is_file() and p.parts[len(proj.parts)] in ("_site", "_site.manifest.json")}
    assert sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k)) == []


def test_a_user_the_server_does_not_know(own, dossier_bin):
    pg = own
    db = pg.create_database()
    hba = pg.data / "pg_hba.conf"
    hba.write_text("host all ghost 127.0.0.1/32 trust\n" + hba.read_text(encoding="utf-8"), encoding="utf-8")
    pg.psql("postgres", "SELECT pg_reload_conf()")
    text = f"postgres://ghost@127.0.0.1:{pg.port}/{db}"
    proc = run(dossier_bin, "db", "migrate", "--database", text, env=env_for(pg), check=False)
    assert proc.returncode == 1
    assert [re.sub(r"^error: ", "", l) for l in proc.stderr.splitlines()] == [
        f"{text}: the PostgreSQL server at 127.0.0.1:{pg.port} has no user ghost: fix the user name (PGUSER or the "
        "URL) or create the role"]


def test_an_upload_from_a_webdav_drop_stays_there_until_its_commit(own, dossier_bin, tmp_path):
    """multi-site.md: ingest deletes an upload from the drop only after the commit; the
    database lost in the middle leaves the upload in flight and those after it in the drop."""
    from webdav_server import WebDAVServer, env as dav_env
    pg = own
    db = pg.create_database()
    loc = pg.url(db)
    env = env_for(pg)
    run(dossier_bin, "db", "migrate", "--database", loc, env=env)
    run(dossier_bin, "game", "keygen", "--out", tmp_path / "k", env=env)
    run(dossier_bin, "game", "simulate", "--players", "3", "--seed", "12", "--obstacles", "6", "--output",
        tmp_path / "c.jsonl", env=env)
    root = tmp_path / "dav"
    run(dossier_bin, "game", "seal", "--public", tmp_path / "k.pub", "--out", root, tmp_path / "c.jsonl", env=env)
    names = sorted(p.name for p in root.glob("*.rmu"))
    with WebDAVServer(root) as dav:
        denv = dict(env, **dav_env(dav.password))
        argv = ["game", "ingest", "--key", tmp_path / "k.key", "--from", dav.url, "--db", loc]
        proc = paused(dossier_bin, argv, denv, "commit:2", tmp_path / "pause")
        out, err = lose_server_while_paused(pg, proc, tmp_path / "pause")
        assert proc.returncode == 1
        assert sorted(p.name for p in root.glob("*.rmu")) == names[1:]
        assert [p for m, p in dav.requests() if m == "DELETE"] == [f"/{names[0]}"]
        assert [l for l in err.splitlines() if ": not stored: " in l and names[1] in l]
        again = run(dossier_bin, *argv, env=denv)
        assert again.stdout.strip().splitlines()[-1] == "2 stored, 0 duplicates, 0 rejected"
        assert sorted(p.name for p in root.glob("*.rmu")) == []
    assert pg.psql(db, "SELECT count(*) FROM uploads").strip() == "3"
