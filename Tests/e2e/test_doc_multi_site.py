"""docs/multi-site.md and docs/store.md, the game on a shared PostgreSQL database: the
same rows give the same site from SQLite and PostgreSQL (even where the server's collation
is not byte order, and free text holds U+0000); what a build shows when an ingest commits
inside its snapshot or between its plan and its read; the cohort unit rebuilt exactly when
the data it reads changed; two ingests of one upload; two builds making the key."""
import base64
import hashlib
import hmac
import json
import os
import pathlib
import secrets
import shutil
import sqlite3
import subprocess
import time

import pytest

from conftest import soak_only  # noqa: E402

pytestmark = soak_only("the PostgreSQL doc oracle (minutes on two cores)")

from store_helpers import HeldSession, WAITING_ON_LOCK, content_sha256, wait_until


def tree(folder: pathlib.Path):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def differing(a: dict, b: dict):
    """The paths whose bytes differ (or that only one side has): [] when the sites are equal."""
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def env_for(pg, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG") and not k.startswith("DOSSIER_")}
    env.update(pg.client_env())
    env.update(extra)
    return env


def run(dossier_bin, *args, env, check=True, timeout=180):
    proc = subprocess.run([dossier_bin, *map(str, args)], env=env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        secret = env.get("PGPASSWORD", "\0")
        raise AssertionError(f"dossier {args[0]} exited {proc.returncode}: {proc.stderr.replace(secret, '(pw)')}")
    return proc


def project(root: pathlib.Path, database: str, private=False):
    root.mkdir(parents=True, exist_ok=True)
    (root / "dossier.yml").write_text(f"title: G\ngame:\n  database: \"{database}\"\n"
                                      + ("  private_site: true\n" if private else ""), encoding="utf-8")
    return root


def reached(pause: pathlib.Path):
    return pathlib.Path(str(pause) + ".reached")


def wait_file(path, proc, timeout=120):
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, "the process ended before its pause point"
        assert time.monotonic() < deadline, f"no {path.name}"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def study(tmp_path_factory, dossier_bin):
    """A base SQLite study holding a privacy key, one sealed upload of a new player, and
    the sites built from the study without and with that upload (same key)."""
    base = tmp_path_factory.mktemp("study")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_")}
    run(dossier_bin, "game", "simulate", "--players", "12", "--seed", "3", "--obstacles", "10",
        "--db", base / "base.sqlite", env=env)
    run(dossier_bin, "game", "keygen", "--out", base / "study", env=env)
    run(dossier_bin, "game", "simulate", "--players", "1", "--seed", "77", "--obstacles", "10",
        "--output", base / "new.jsonl", env=env)
    run(dossier_bin, "game", "seal", "--public", base / "study.pub", "--out", base / "up", base / "new.jsonl", env=env)
    upload = next((base / "up").glob("*.rmu"))
    without = project(base / "without", str(base / "base.sqlite"))
    run(dossier_bin, "build", without, env=env)          # makes the privacy key in base.sqlite
    shutil.copy(base / "base.sqlite", base / "with.sqlite")
    run(dossier_bin, "game", "ingest", "--key", base / "study.key", upload, "--db", base / "with.sqlite", env=env)
    with_ = project(base / "with", str(base / "with.sqlite"))
    run(dossier_bin, "build", with_, env=env)
    sessions = sum(1 for l in (base / "new.jsonl").read_text().splitlines() if '"type":"session"' in l)
    return {"base": base / "base.sqlite", "key": base / "study.key", "upload": upload, "sessions": sessions,
            "without": tree(without / "_site"), "with": tree(with_ / "_site")}


def pg_study(pg, db, study, dossier_bin):
    run(dossier_bin, "db", "copy", study["base"], pg.url(db), env=env_for(pg))
    return pg.url(db)


def build_with_ingest_at(pg, dossier_bin, proj, study, loc, label, pause):
    """A build of `proj` held at the pause `label` while the study's upload is ingested
    into `loc`, then let go; returns the finished build's process."""
    build = subprocess.Popen([dossier_bin, "build", str(proj)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env_for(pg, DOSSIER_PAUSE_AT=label, DOSSIER_PAUSE_FILE=str(pause)))
    try:
        wait_file(reached(pause), build)
        run(dossier_bin, "game", "ingest", "--key", study["key"], study["upload"], "--db", loc, env=env_for(pg))
        pause.touch()
        build.communicate(timeout=180)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    return build


def test_the_same_rows_give_the_same_site_from_sqlite_and_postgresql(pg_server, dossier_bin, tmp_path, study):
    """A database whose default collation is not byte order (ICU 'en'), player ids of
    both cases, and an error message holding U+0000."""
    pg = pg_server
    lite = tmp_path / "s.sqlite"
    shutil.copy(study["base"], lite)
    con = sqlite3.connect(lite)
    players = [p for (p,) in con.execute("SELECT player FROM surveys ORDER BY player")]
    for i, p in enumerate(players):
        for t in ("surveys", "sessions", "events"):
            con.execute(f"UPDATE {t} SET player = ? WHERE player = ?", (("a" if i % 2 else "B") + p, p))
    p0 = con.execute("SELECT player FROM surveys ORDER BY player").fetchone()[0]
    n = con.execute("SELECT count(*) FROM events WHERE player=? AND session=1 AND kind='error'", (p0,)).fetchone()[0]
    con.execute("INSERT INTO events VALUES(?,1,'error',?,5,NULL,NULL,NULL,?)", (p0, n, "bad \x00 ☃"))
    con.commit()
    con.close()
    db = f"icu{secrets.token_hex(4)}"
    pg.psql("postgres", f"CREATE DATABASE {db} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C'")
    assert pg.psql(db, "SELECT x FROM (VALUES ('a'),('B')) v(x) ORDER BY x").split() == ["a", "B"]
    for private in (False, True):
        a = project(tmp_path / f"lite{private}", str(lite), private)
        b = project(tmp_path / f"pg{private}", pg.url(db), private)
        run(dossier_bin, "build", a, env=env_for(pg))
        if not private:
            run(dossier_bin, "db", "copy", lite, pg.url(db), "--replace", env=env_for(pg))
        run(dossier_bin, "build", b, env=env_for(pg))
        assert differing(tree(b / "_site"), tree(a / "_site")) == [], f"private_site: {private}"


def test_an_ingest_committed_inside_the_builds_snapshot_is_not_in_that_build(pg_database, dossier_bin, tmp_path, study):
    pg, db = pg_database
    loc = pg_study(pg, db, study, dossier_bin)
    proj = project(tmp_path / "p", loc)
    build = build_with_ingest_at(pg, dossier_bin, proj, study, loc, "snapshot:1", tmp_path / "pause")
    assert build.returncode == 0
    assert differing(tree(proj / "_site"), study["without"]) == []
    run(dossier_bin, "build", proj, env=env_for(pg))
    assert differing(tree(proj / "_site"), study["with"]) == []


def test_an_ingest_committed_between_plan_and_read_is_in_the_site_and_rebuilt_next_time(
        pg_database, dossier_bin, tmp_path, study):
    """'an ingest that commits between the two is in the site but not in the key it is kept
    under, so the next build sees a different digest and builds the unit again'."""
    pg, db = pg_database
    loc = pg_study(pg, db, study, dossier_bin)
    proj = project(tmp_path / "p", loc)
    # a first build (the unit is built): the upload commits after the plan, before the read
    build = build_with_ingest_at(pg, dossier_bin, proj, study, loc, "unit-build:1", tmp_path / "pause")
    assert build.returncode == 0
    assert differing(tree(proj / "_site"), study["with"]) == []
    again = tmp_path / "again"
    again.touch()
    run(dossier_bin, "build", proj, env=env_for(pg, DOSSIER_PAUSE_AT="unit-build:1", DOSSIER_PAUSE_FILE=str(again)))
    assert reached(again).exists(), "the next build did not build the cohort unit again"
    assert differing(tree(proj / "_site"), study["with"]) == []


def _unit_built(dossier_bin, proj, pg, tmp_path):
    flag = tmp_path / f"ub{secrets.token_hex(3)}"
    flag.touch()
    run(dossier_bin, "build", proj, env=env_for(pg, DOSSIER_PAUSE_AT="unit-build:1", DOSSIER_PAUSE_FILE=str(flag)))
    return reached(flag).exists()


def test_the_cohort_unit_is_rebuilt_exactly_when_the_data_it_reads_changed(pg_database, dossier_bin, tmp_path, study):
    pg, db = pg_database
    loc = pg_study(pg, db, study, dossier_bin)
    proj = project(tmp_path / "p", loc)
    run(dossier_bin, "build", proj, env=env_for(pg))
    assert not _unit_built(dossier_bin, proj, pg, tmp_path)
    player = pg.psql(db, "SELECT min(player) FROM surveys").strip()
    key1, key2 = (base64.b64encode(secrets.token_bytes(32)).decode() for _ in range(2))
    steps = [   # (change, does the unit read it?)
        ("INSERT INTO uploads VALUES('00ff', 'nobody', 0)", False),
        ("INSERT INTO recall_logs VALUES('S1.jsonl', '\\x0a', 'aa')", False),
        (f"INSERT INTO devices VALUES('{player}', 'c2lnbg==', NULL)", False),
        (f"UPDATE devices SET result_key = '{key1}'", True),
        ("UPDATE devices SET signing_key = 'b3RoZXI='", False),
        (f"UPDATE devices SET result_key = '{key2}'", True),
        (f"UPDATE sessions SET score = score + 1 WHERE player = '{player}' AND session = 1", True),
        (f"UPDATE surveys SET age = CASE WHEN age < 100 THEN age + 1 ELSE age - 1 END WHERE player = '{player}'", True),
    ]
    got = []
    for sql, _ in steps:
        pg.psql(db, sql)
        got.append(_unit_built(dossier_bin, proj, pg, tmp_path))
    assert got == [want for _, want in steps]


def test_two_ingests_of_one_upload_store_it_once(pg_database, dossier_bin, tmp_path, study):
    pg, db = pg_database
    loc = pg_study(pg, db, study, dossier_bin)
    drops = []
    for name in ("drop-a", "drop-b"):
        (tmp_path / name).mkdir()
        shutil.copy(study["upload"], tmp_path / name / study["upload"].name)
        drops.append(tmp_path / name)
    pause = tmp_path / "pause"
    first = subprocess.Popen([dossier_bin, "game", "ingest", "--key", str(study["key"]), str(drops[0]), "--db", loc],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env_for(pg, DOSSIER_PAUSE_AT="commit:1", DOSSIER_PAUSE_FILE=str(pause)))
    second = None
    try:
        wait_file(reached(pause), first)          # every row written, nothing committed
        second = subprocess.Popen([dossier_bin, "game", "ingest", "--key", str(study["key"]), str(drops[1]),
                                   "--db", loc], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env_for(pg))
        wait_until(pg, db, WAITING_ON_LOCK, proc=second)   # it waits on the claimed hash
        pause.touch()
        out1, _ = first.communicate(timeout=120)
        out2, err2 = second.communicate(timeout=120)
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    assert first.returncode == 0 and second.returncode == 0, err2
    assert "stored" in out1 and "duplicate" not in out1.splitlines()[0]
    assert "duplicate" in out2.splitlines()[0], out2
    sha = content_sha256(study["upload"].read_bytes(), study["key"].read_bytes())
    assert pg.psql(db, "SELECT content_sha256, sessions FROM uploads").split() == [sha, str(study["sessions"])]
    player = pg.psql(db, "SELECT player FROM uploads").strip()
    assert pg.psql(db, f"SELECT count(*) FROM sessions WHERE player = '{player}'").strip() == str(study["sessions"])


@pytest.mark.parametrize("lifetime_milli", [18000, 12000])
def test_two_first_builds_agree_on_one_privacy_key(pg_database, dossier_bin, tmp_path, study, lifetime_milli):
    """The key another build is inserting (not committed yet) is the one this build uses,
    with its lifetime budget (18000 = this project's own, 12000 = lower)."""
    pg, db = pg_database
    loc = pg_study(pg, db, study, dossier_bin)
    pg.psql(db, "DELETE FROM privacy_key")
    key, dbid = secrets.token_hex(32), secrets.token_hex(16)
    proj = project(tmp_path / "p", loc)
    with HeldSession(pg, db) as other:
        other.run(f"BEGIN ISOLATION LEVEL SERIALIZABLE; INSERT INTO privacy_key VALUES(1, '{key}', '{dbid}', {lifetime_milli});")
        build = subprocess.Popen([dossier_bin, "build", str(proj)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=env_for(pg))
        try:
            wait_until(pg, db, WAITING_ON_LOCK, proc=build)
            other.run("COMMIT;")
            build.communicate(timeout=180)
        finally:
            if build.poll() is None:
                build.kill()
                build.wait()
    assert build.returncode == 0
    assert pg.psql(db, "SELECT key, database_id, lifetime_milli FROM privacy_key").split() == [key, dbid, str(lifetime_milli)]
    rel = json.loads((proj / "_site" / "game" / "privacy.json").read_text())
    assert rel["database"] == dbid
    assert rel["lifetimeEpsilon"] == str(lifetime_milli // 1000)   # the smaller of 18 (3 × ε) and the database's
    lines = "".join(f"{f}={rel[f]}\n" for f in ("release", "section", "epsilon", "delta", "lifetimeEpsilon", "database"))
    seal = hmac.new(bytes.fromhex(key), b"dossier-release-file\n" + lines.encode(), hashlib.sha256).hexdigest()
    assert rel["seal"] == seal
    # the site is the one a build that found the key already there makes
    later = project(tmp_path / "later", loc)
    run(dossier_bin, "build", later, env=env_for(pg))
    assert differing(tree(later / "_site"), tree(proj / "_site")) == []


def test_free_text_holding_u0000_through_ingest_on_both_engines(pg_database, dossier_bin, tmp_path, study):
    """An obstacle kind and an error message holding U+0000: TEXT of its full length on
    SQLite, its UTF-8 bytes as BYTEA on PostgreSQL; the same rows and the same site."""
    pg, db = pg_database
    env = env_for(pg)
    cohort = []
    for line in (study["key"].parent / "new.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec.get("type") == "session" and rec.get("session") == 1:
            rec["obstacles"][0][2] = "cr\u0000te\u2603"
            rec["errors"] = [[0, "lost \u0000 audio \U0001F600"]]
        cohort.append(json.dumps(rec, separators=(",", ":")))
    (tmp_path / "c.jsonl").write_text("\n".join(cohort) + "\n", encoding="utf-8")
    run(dossier_bin, "game", "seal", "--public", study["key"].with_suffix(".pub"), "--out", tmp_path / "up",
        tmp_path / "c.jsonl", env=env)
    lite = tmp_path / "a.sqlite"
    shutil.copy(study["base"], lite)
    pg_study(pg, db, study, dossier_bin)
    for target in (str(lite), pg.url(db)):
        out = run(dossier_bin, "game", "ingest", "--key", study["key"], tmp_path / "up", "--db", target, env=env)
        assert out.stdout.strip().splitlines()[-1] == "1 stored, 0 duplicates, 0 rejected"
    hexes = pg.psql(db, "SELECT encode(obstacle_kind, 'hex') FROM events WHERE obstacle_kind IS NOT NULL "
                        "AND position('\\x00'::bytea in obstacle_kind) > 0 UNION ALL "
                        "SELECT encode(message, 'hex') FROM events WHERE kind = 'error' "
                        "AND position('\\x00'::bytea in message) > 0").split()
    assert sorted(hexes) == sorted(["cr\u0000te\u2603".encode().hex(), "lost \u0000 audio \U0001F600".encode().hex()])
    con = sqlite3.connect(lite)
    got = con.execute("SELECT obstacle_kind, typeof(obstacle_kind) FROM events WHERE instr(obstacle_kind, char(0))"
                      ).fetchall()
    assert got == [("cr\u0000te\u2603", "text")]
    con.close()
    back = tmp_path / "b.sqlite"
    run(dossier_bin, "db", "copy", pg.url(db), back, env=env)
    for t in ("surveys", "sessions", "events", "uploads", "devices", "privacy_key"):
        a, b = sqlite3.connect(lite), sqlite3.connect(back)
        assert sorted(a.execute(f"SELECT * FROM {t}").fetchall(), key=repr) == \
            sorted(b.execute(f"SELECT * FROM {t}").fetchall(), key=repr), t
    pa, pb = project(tmp_path / "pa", str(lite)), project(tmp_path / "pb", pg.url(db))
    run(dossier_bin, "build", pa, env=env)
    run(dossier_bin, "build", pb, env=env)
    assert differing(tree(pb / "_site"), tree(pa / "_site")) == []
