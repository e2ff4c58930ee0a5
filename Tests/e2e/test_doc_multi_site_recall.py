"""docs/multi-site.md and docs/store.md, the recall study on a shared PostgreSQL database:
`recall: database: postgres:…` gives the folder's site; a write transaction held open by
another session is not seen; a commit inside the build's snapshot is not in that build;
two ingests from two drops holding the same uploads store each log once and pin each
device once; and the database roles the page recommends are enough for each job."""
import base64
import json
import os
import pathlib
import secrets
import shutil
import subprocess
import time

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from conftest import soak_only  # noqa: E402

pytestmark = soak_only("the PostgreSQL doc oracle (minutes on two cores)")

from store_helpers import HeldSession
from test_doc_store_pg_server import env_for, run
from test_doc_store_recall_db import db_project, logs, reference_sites, tree  # noqa: F401 (fixtures)

_ = (logs, reference_sites)


def differing(a, b):
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def pg_project(tmp_path, logs, pg, db, names=("S001.jsonl", "S002.jsonl", "S003.jsonl")):
    proj = db_project(tmp_path / "p", logs, database=f'"{pg.url(db)}"')
    run(pg_project.bin, "db", "import-logs", "--database", pg.url(db), *[logs / n for n in names], env=env_for(pg))
    return proj


@pytest.fixture(autouse=True)
def _bin(dossier_bin):
    pg_project.bin = dossier_bin


def test_site_from_postgresql_equals_the_site_from_the_folder(pg_database, dossier_bin, tmp_path, logs,
                                                             reference_sites):
    pg, db = pg_database
    proj = pg_project(tmp_path, logs, pg, db)
    pg.psql(db, "INSERT INTO recall_logs VALUES('notes.txt', '\\x0a', 'aa'), ('.S009.jsonl', '\\x0a', 'bb')")
    run(dossier_bin, "build", proj, env=env_for(pg))
    assert differing(tree(proj / "_site"), reference_sites[3]) == []


def test_a_write_transaction_held_open_is_not_seen(pg_database, dossier_bin, tmp_path, logs, reference_sites):
    pg, db = pg_database
    proj = pg_project(tmp_path, logs, pg, db)
    data = (logs / "S004.jsonl").read_bytes()
    import hashlib
    with HeldSession(pg, db) as ingest:
        ingest.run("BEGIN ISOLATION LEVEL SERIALIZABLE; INSERT INTO recall_logs VALUES('S004.jsonl', "
                   f"'\\x{data.hex()}', '{hashlib.sha256(data).hexdigest()}');")
        proc = run(dossier_bin, "build", proj, env=env_for(pg), check=False)
        assert proc.returncode == 0
        assert differing(tree(proj / "_site"), reference_sites[3]) == []
        ingest.run("COMMIT;")
    run(dossier_bin, "build", proj, env=env_for(pg))
    assert differing(tree(proj / "_site"), reference_sites[4]) == []


def test_a_commit_inside_the_snapshot_is_not_in_that_build(pg_database, dossier_bin, tmp_path, logs, reference_sites):
    pg, db = pg_database
    proj = pg_project(tmp_path, logs, pg, db)
    pause = tmp_path / "pause"
    build = subprocess.Popen([dossier_bin, "build", str(proj)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env_for(pg, DOSSIER_PAUSE_AT="snapshot:1", DOSSIER_PAUSE_FILE=str(pause)))
    try:
        deadline = time.monotonic() + 120
        while not pathlib.Path(str(pause) + ".reached").exists():
            assert build.poll() is None and time.monotonic() < deadline, "no pause"
            time.sleep(0.02)
        run(dossier_bin, "db", "import-logs", "--database", pg.url(db), logs / "S004.jsonl", env=env_for(pg))
        pg.psql(db, "DELETE FROM recall_logs WHERE name = 'S003.jsonl'")     # listed, bytes not read yet
        pause.touch()
        build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    assert build.returncode == 0
    assert differing(tree(proj / "_site"), reference_sites[3]) == []
    run(dossier_bin, "db", "import-logs", "--database", pg.url(db), logs / "S003.jsonl", env=env_for(pg))
    run(dossier_bin, "build", proj, env=env_for(pg))
    assert differing(tree(proj / "_site"), reference_sites[4]) == []


@pytest.fixture
def sealed(tmp_path, dossier_bin, logs):
    """Two sealed recall uploads (S001, S002) of one device, copied into two drops."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_")}
    run(dossier_bin, "recall", "keygen", "--out", tmp_path / "study", env=env)
    run(dossier_bin, "recall", "seal", "--public", tmp_path / "study.pub", "--output", tmp_path / "drop-a",
        logs / "S001.jsonl", logs / "S002.jsonl", env=env)
    shutil.copytree(tmp_path / "drop-a", tmp_path / "drop-b")
    device = json.loads((tmp_path / "drop-a-device.json").read_text())
    pub = Ed25519PrivateKey.from_private_bytes(base64.b64decode(device["signing_key"])).public_key()
    pin = base64.b64encode(pub.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()
    return {"key": tmp_path / "study.key", "drops": [tmp_path / "drop-a", tmp_path / "drop-b"],
            "device": device["device"], "pin": pin}


def _stored(pg, db, logs):
    import hashlib
    want = sorted(f"{n}\t{hashlib.sha256((logs / n).read_bytes()).hexdigest()}" for n in ("S001.jsonl", "S002.jsonl"))
    return pg.psql(db, "SELECT name, sha256 FROM recall_logs ORDER BY name").strip().splitlines() == want


def test_two_ingests_from_two_drops_store_each_log_once(pg_database, dossier_bin, sealed, logs):
    pg, db = pg_database
    outs = []
    for drop in sealed["drops"]:
        proc = run(dossier_bin, "recall", "ingest", "--key", sealed["key"], "--from", drop, "--db", pg.url(db),
                   env=env_for(pg))
        outs.append(proc.stdout.strip().splitlines())
        assert list(drop.iterdir()) == []        # stored and already stored uploads leave the drop
    assert outs[0][-1] == "2 stored, 0 already stored, 0 refused"
    assert outs[1][-1] == "0 stored, 2 already stored, 0 refused"
    assert sorted(l.split(": ", 1)[1] for l in outs[1][:-1]) == ["already stored as S001.jsonl",
                                                                 "already stored as S002.jsonl"]
    assert _stored(pg, db, logs)
    assert pg.psql(db, "SELECT device, signing_key FROM recall_devices").split() == [sealed["device"], sealed["pin"]]


def test_two_ingests_at_once_store_each_log_once(pg_database, dossier_bin, sealed, logs):
    """The second starts while the first holds its first write transaction open."""
    pg, db = pg_database
    pause = sealed["key"].parent / "pause"
    argv = [dossier_bin, "recall", "ingest", "--key", str(sealed["key"]), "--db", pg.url(db), "--from"]
    a = subprocess.Popen(argv + [str(sealed["drops"][0])], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env_for(pg, DOSSIER_PAUSE_AT="commit:1", DOSSIER_PAUSE_FILE=str(pause)))
    b = None
    try:
        deadline = time.monotonic() + 120
        while not pathlib.Path(str(pause) + ".reached").exists():
            assert a.poll() is None and time.monotonic() < deadline, "no pause"
            time.sleep(0.02)
        b = subprocess.Popen(argv + [str(sealed["drops"][1])], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env_for(pg))
        pause.touch()
        out_a, _ = a.communicate(timeout=120)
        out_b, err_b = b.communicate(timeout=120)
    finally:
        for p in (a, b):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    assert a.returncode == 0 and b.returncode == 0, err_b
    lines = [l.split(": ", 1)[1] for l in (out_a + out_b).splitlines() if l.startswith("rc-")]
    assert sorted(lines) == ["already stored as S001.jsonl", "already stored as S002.jsonl",
                             "stored S001.jsonl", "stored S002.jsonl"]
    assert _stored(pg, db, logs)
    assert pg.psql(db, "SELECT device, signing_key FROM recall_devices").split() == [sealed["device"], sealed["pin"]]


def test_the_recommended_roles_are_enough_for_each_job(pg_database, dossier_bin, tmp_path, logs, sealed):
    """'the ingest role needs at least SELECT, INSERT and UPDATE on the game and recall
    tables …; the build role SELECT on them and write access to privacy_key and
    privacy_ledger; only the owner runs dossier db migrate'."""
    pg, db = pg_database
    run(dossier_bin, "db", "migrate", "--database", pg.url(db), env=env_for(pg))
    tag = secrets.token_hex(3)
    ingest_role, build_role = f"ingest_{tag}", f"build_{tag}"
    ingest_pw, build_pw = "i" + secrets.token_hex(8), "b" + secrets.token_hex(8)
    tables = "surveys, sessions, events, uploads, devices, recall_logs, recall_devices"
    pg.psql(db, f"CREATE ROLE {ingest_role} LOGIN PASSWORD '{ingest_pw}';"
                f"CREATE ROLE {build_role} LOGIN PASSWORD '{build_pw}';"
                f"GRANT SELECT, INSERT, UPDATE ON {tables} TO {ingest_role};"
                f"GRANT SELECT ON {tables} TO {build_role};"
                f"GRANT SELECT ON meta TO {ingest_role}, {build_role};"
                f"GRANT SELECT, INSERT, UPDATE, DELETE ON privacy_key, privacy_ledger TO {build_role};")
    at = f"postgres://{{}}@127.0.0.1:{pg.port}/{db}"
    ing = run(dossier_bin, "recall", "ingest", "--key", sealed["key"], "--from", sealed["drops"][0],
              "--db", at.format(ingest_role), env=env_for(pg, PGPASSWORD=ingest_pw), check=False)
    assert ing.returncode == 0, ing.stderr
    run(dossier_bin, "game", "simulate", "--players", "8", "--seed", "2", "--obstacles", "6",
        "--db", at.format(ingest_role), env=env_for(pg, PGPASSWORD=ingest_pw))
    proj = db_project(tmp_path / "site", logs, database=f'"{at.format(build_role)}"')
    with open(proj / "dossier.yml", "a", encoding="utf-8") as f:
        f.write(f'game:\n  database: "{at.format(build_role)}"\n')
    b = run(dossier_bin, "build", proj, env=env_for(pg, PGPASSWORD=build_pw), check=False)
    assert b.returncode == 0, b.stderr


def test_a_role_without_select_on_meta_gets_the_servers_message(pg_database, dossier_bin, sealed):
    """'both need SELECT on meta … A role without one of these rights gets the server's message,
    e.g. PostgreSQL: permission denied for table meta (SQLSTATE 42501)'; its password never shows."""
    pg, db = pg_database
    run(dossier_bin, "db", "migrate", "--database", pg.url(db), env=env_for(pg))
    role, pw = f"nometa_{secrets.token_hex(3)}", "n" + secrets.token_hex(8)
    tables = "surveys, sessions, events, uploads, devices, recall_logs, recall_devices"
    pg.psql(db, f"CREATE ROLE {role} LOGIN PASSWORD '{pw}'; GRANT SELECT, INSERT, UPDATE ON {tables} TO {role};")
    loc = f"postgres://{role}@127.0.0.1:{pg.port}/{db}"
    proc = run(dossier_bin, "recall", "ingest", "--key", sealed["key"], "--from", sealed["drops"][0],
               "--db", loc, env=env_for(pg, PGPASSWORD=pw), check=False)
    assert proc.returncode == 1
    assert "PostgreSQL: permission denied for table meta (SQLSTATE 42501)" in proc.stderr, proc.stderr
    assert pw not in proc.stderr + proc.stdout
    assert pg.psql(db, "SELECT count(*) FROM recall_logs").strip() == "0"


def test_an_upload_whose_key_differs_from_the_pin_is_refused(pg_database, dossier_bin, sealed):
    pg, db = pg_database
    run(dossier_bin, "db", "migrate", "--database", pg.url(db), env=env_for(pg))
    other = base64.b64encode(secrets.token_bytes(32)).decode()
    pg.psql(db, f"INSERT INTO recall_devices VALUES('{sealed['device']}', '{other}')")
    drop = sealed["drops"][0]
    before = sorted(p.name for p in drop.iterdir())
    proc = run(dossier_bin, "recall", "ingest", "--key", sealed["key"], "--from", drop, "--db", pg.url(db),
               env=env_for(pg), check=False)
    assert proc.returncode == 1
    assert proc.stdout.strip().splitlines()[-1] == "0 stored, 0 already stored, 2 refused"
    assert len([l for l in proc.stderr.splitlines() if ": refused: device " in l and "(kept in the drop)" in l]) == 2
    assert sorted(p.name for p in drop.iterdir()) == before
    assert pg.psql(db, "SELECT count(*) FROM recall_logs").strip() == "0"
    assert pg.psql(db, "SELECT signing_key FROM recall_devices").strip() == other     # the first pin stays


def test_recall_ingest_into_the_projects_database(pg_database, dossier_bin, tmp_path, sealed, logs):
    """'dossier recall ingest --db DB (or a project whose recall: section has database:)'."""
    pg, db = pg_database
    proj = db_project(tmp_path / "proj", logs, database=f'"{pg.url(db)}"')
    proc = run(dossier_bin, "recall", "ingest", "--key", sealed["key"], "--from", sealed["drops"][0],
               "--project", proj, env=env_for(pg), check=False)
    assert proc.returncode == 0, proc.stderr
    assert _stored(pg, db, logs)
    assert pg.psql(db, "SELECT device FROM recall_devices").split() == [sealed["device"]]


def test_names_are_read_in_byte_order_whatever_the_servers_collation(pg_server, dossier_bin, tmp_path, logs):
    pg = pg_server
    db = f"icu{secrets.token_hex(4)}"
    pg.psql("postgres", f"CREATE DATABASE {db} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C'")
    names = {"a01.jsonl": "S001.jsonl", "B02.jsonl": "S002.jsonl", "_c03.jsonl": "S003.jsonl"}
    folder = db_project(tmp_path / "f", logs, database="x")
    (folder / "dossier.yml").write_text("title: R\nrecall:\n  strings: strings.txt\n  logs: recall_logs\n")
    (folder / "recall_logs").mkdir()
    for new, old in names.items():
        shutil.copy(logs / old, folder / "recall_logs" / new)
    run(dossier_bin, "build", folder, env=env_for(pg))
    run(dossier_bin, "db", "import-logs", "--database", pg.url(db), folder / "recall_logs", env=env_for(pg))
    assert pg.psql(db, "SELECT name FROM recall_logs ORDER BY name").split() == ["_c03.jsonl", "a01.jsonl", "B02.jsonl"]
    proj = db_project(tmp_path / "d", logs, database=f'"{pg.url(db)}"')
    run(dossier_bin, "build", proj, env=env_for(pg))
    assert differing(tree(proj / "_site"), tree(folder / "_site")) == []
