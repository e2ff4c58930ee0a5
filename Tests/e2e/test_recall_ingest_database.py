"""`dossier recall ingest --db`: sealed recall uploads stored in the study database's
`recall_logs` table, device pins in `recall_devices` (docs/store.md).

Two ingests from two drops that share uploads run against one PostgreSQL database; one
is held inside an uncommitted store transaction (DOSSIER_PAUSE_AT=commit:N) while the
other runs, then killed there. The re-run converges: every log stored exactly once with
its bytes, both drops empty, and the site built from the database equals, byte for byte,
the site built from the same logs ingested into a folder."""
import os
import pathlib
import shutil
import signal
import subprocess

from test_store_postgres import assert_same_tree, recall_project


def seal_study(run_dossier, root, participants=4):
    """A study key, `participants` simulated logs sealed by one device: (key, uploads, logs)."""
    run_dossier("recall", "keygen", "--output", root / "study", "--bits", "2048")
    src = root / "src"
    run_dossier("recall", "simulate", "--participants", str(participants), "--seed", "11", "--output", src)
    logs = sorted(src.glob("S*.jsonl"))
    up = root / "uploads"
    run_dossier("recall", "seal", "--public", root / "study.pub", "--output", up, *logs)
    return root / "study.key", sorted(up.glob("*.rcu")), {f.name: f.read_bytes() for f in logs}


def drop_with(folder, uploads):
    folder.mkdir(parents=True, exist_ok=True)
    for u in uploads:
        shutil.copy(u, folder / u.name)
    return folder


def stored_logs(pg, db):
    rows = pg.psql(db, "select name, encode(bytes, 'hex') from recall_logs order by name").splitlines()
    return {name: bytes.fromhex(hexed) for name, hexed in (r.split("\t") for r in rows if r)}


def test_two_ingests_with_shared_uploads_store_each_log_once(pg_database, run_dossier, dossier_bin, tmp_path):
    pg, db = pg_database
    env = dict(os.environ, **pg.client_env())
    key, uploads, logs = seal_study(run_dossier, tmp_path)
    a = drop_with(tmp_path / "site-a", uploads[:3])
    b = drop_with(tmp_path / "site-b", uploads[1:])   # uploads 1 and 2 are in both drops
    url = pg.url(db)
    run_dossier("db", "migrate", "--database", url, env=env)

    # Ingest A stops inside its second write transaction (every row written, nothing
    # committed) and stays there while ingest B runs against the same rows.
    pause = tmp_path / "pause-a"
    held = subprocess.Popen([dossier_bin, "recall", "ingest", "--key", str(key), "--from", str(a), "--db", url],
                            env=dict(env, DOSSIER_PAUSE_AT="commit:2", DOSSIER_PAUSE_FILE=str(pause)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reached = pathlib.Path(str(pause) + ".reached")
    while not reached.exists():
        assert held.poll() is None, held.stderr.read().decode()
        try:
            held.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass
    other = subprocess.Popen([dossier_bin, "recall", "ingest", "--key", str(key), "--from", str(b), "--db", url],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # A dies holding its transaction: PostgreSQL rolls it back, and B (which may be
    # waiting on A's uncommitted row) goes on.
    held.send_signal(signal.SIGKILL)
    held.wait(timeout=60)
    out, err = other.communicate(timeout=300)
    assert other.returncode == 0, err.decode()
    assert not list(b.glob("*.rcu"))
    # What A had not committed is still in its drop; the re-run stores the rest.
    assert list(a.glob("*.rcu"))
    again = run_dossier("recall", "ingest", "--key", key, "--from", a, "--db", url, env=env)
    assert ": refused" not in again.stderr and ", 0 refused" in again.stdout
    assert not list(a.glob("*.rcu"))
    assert stored_logs(pg, db) == logs
    count = pg.psql(db, "select count(*), count(distinct sha256) from recall_logs").split()
    assert count == [str(len(logs))] * 2
    assert pg.psql(db, "select count(*) from recall_devices").split() == ["1"]

    # A third run finds nothing to do; the database-built site equals the folder-built one.
    assert "0 stored" in run_dossier("recall", "ingest", "--key", key, "--from", a, "--db", url, env=env).stdout
    folder = recall_project(tmp_path / "folder", "logs: recall_logs")
    (folder / "recall_logs").mkdir()
    run_dossier("recall", "ingest", "--key", key, "--from", drop_with(tmp_path / "again", uploads),
                "--logs", folder / "recall_logs")
    shared = recall_project(tmp_path / "shared", f"database: {url}")
    for p in (folder, shared):
        run_dossier("build", p, env=env)
    assert_same_tree(folder / "_site", shared / "_site")


def test_the_projects_database_is_the_default_and_a_pin_is_kept(run_dossier, tmp_path):
    key, uploads, logs = seal_study(run_dossier, tmp_path, participants=2)
    project = recall_project(tmp_path / "p", "database: study.sqlite")
    run_dossier("recall", "ingest", "--key", key, "--from", drop_with(tmp_path / "d", uploads),
                "--project", project)
    import sqlite3
    con = sqlite3.connect(project / "study.sqlite")
    try:
        assert {n: bytes(b) for n, b in con.execute("select name, bytes from recall_logs")} == logs
        ((device, pinned),) = con.execute("select device, signing_key from recall_devices").fetchall()
        # Another device key claiming the same device id is refused, and nothing is stored.
        con.execute("update recall_devices set signing_key = ?", ("A" * 43 + "=",))
        con.commit()
    finally:
        con.close()
    run_dossier("recall", "simulate", "--participants", "1", "--seed", "99", "--output", tmp_path / "late")
    late = sorted((tmp_path / "late").glob("S*.jsonl"))
    (late[0]).rename(tmp_path / "late" / "S900.jsonl")
    run_dossier("recall", "seal", "--public", tmp_path / "study.pub", "--output", tmp_path / "d2",
                "--device", tmp_path / "uploads-device.json", tmp_path / "late" / "S900.jsonl")
    refused = run_dossier("recall", "ingest", "--key", key, "--from", tmp_path / "d2", "--project", project,
                          check=False)
    assert refused.returncode == 1 and "pinned" in refused.stderr
    assert list((tmp_path / "d2").glob("*.rcu"))
    both = run_dossier("recall", "ingest", "--key", key, "--from", tmp_path / "d2", "--logs", tmp_path,
                       "--db", project / "study.sqlite", check=False)
    assert both.returncode != 0 and "--logs or --db" in both.stderr


def test_a_check_of_a_database_study_writes_nothing_in_the_project(run_dossier, tmp_path):
    """`dossier check` reads the logs from the database as a build does, but keeps their
    copies in a temporary folder: the project is the same file for file afterwards, and
    the build that follows still finds and keeps every log."""
    key, uploads, logs = seal_study(run_dossier, tmp_path, participants=2)
    project = recall_project(tmp_path / "p", "database: study.sqlite")
    run_dossier("recall", "ingest", "--key", key, "--from", drop_with(tmp_path / "d", uploads),
                "--project", project)

    def files():
        return {p.relative_to(project): p.read_bytes() for p in project.rglob("*") if p.is_file()}

    before = files()
    checked = run_dossier("check", project)
    assert "checked (nothing written)" in checked.stderr + checked.stdout
    assert files() == before
    assert not (project / ".dossier" / "recall-logs").exists()
    run_dossier("build", project)
    kept = sorted((project / ".dossier" / "recall-logs").iterdir())
    assert sorted(p.read_bytes() for p in kept) == sorted(logs.values())
