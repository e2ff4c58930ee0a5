"""docs/store.md, "`recall_logs` and `recall: database:`" and "Transactions", on SQLite:
a recall section built from the table equals the one built from a folder `recall_logs`,
byte for byte; rows that are not logs are skipped; bytes are kept by hash; a changed row
is an error naming it; and what a build shows while another process holds a write
transaction open, or commits while the build is inside its snapshot (a pause point)."""
import hashlib
import os
import pathlib
import shutil
import sqlite3
import subprocess
import time

import pytest


def tree(folder: pathlib.Path):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def logs(tmp_path_factory, dossier_bin):
    """Four simulated participants (S001–S004) and their strings file."""
    out = tmp_path_factory.mktemp("recall-sim") / "logs"
    subprocess.run([dossier_bin, "recall", "simulate", "--participants", "4", "--seed", "11",
                    "--out", str(out)], check=True, capture_output=True)
    return out


def folder_project(root: pathlib.Path, logs, names):
    root.mkdir(parents=True)
    shutil.copy(logs / "strings.txt", root / "strings.txt")
    (root / "recall_logs").mkdir()
    for n in names:
        shutil.copy(logs / n, root / "recall_logs" / n)
    (root / "dossier.yml").write_text("title: R\nrecall:\n  strings: strings.txt\n  logs: recall_logs\n",
                                      encoding="utf-8")
    return root


def db_project(root: pathlib.Path, logs, database="study.sqlite"):
    root.mkdir(parents=True)
    shutil.copy(logs / "strings.txt", root / "strings.txt")
    (root / "dossier.yml").write_text(f"title: R\nrecall:\n  strings: strings.txt\n  database: {database}\n",
                                      encoding="utf-8")
    return root


def put_log(db, name, data):
    con = sqlite3.connect(db)
    con.execute("INSERT INTO recall_logs VALUES(?,?,?)", (name, data, hashlib.sha256(data).hexdigest()))
    con.commit()
    con.close()


@pytest.fixture(scope="module")
def reference_sites(tmp_path_factory, logs, dossier_bin):
    """The sites of folder projects holding S001–S003 and S001–S004."""
    sites = {}
    for n in (3, 4):
        root = folder_project(tmp_path_factory.mktemp(f"ref{n}") / "p", logs,
                              [f"S00{i}.jsonl" for i in range(1, n + 1)])
        subprocess.run([dossier_bin, "build", str(root)], check=True, capture_output=True)
        sites[n] = tree(root / "_site")
    return sites


def test_site_from_the_table_equals_the_site_from_the_folder(run_dossier, tmp_path, logs, reference_sites):
    proj = db_project(tmp_path / "p", logs)
    run_dossier("db", "import-logs", "--database", proj / "study.sqlite",
                *[logs / f"S00{i}.jsonl" for i in (1, 2, 3)])
    # rows that are not logs are skipped, as a folder's other files are
    put_log(proj / "study.sqlite", "notes.txt", b"not a log\n")
    put_log(proj / "study.sqlite", ".S009.jsonl", (logs / "S004.jsonl").read_bytes())
    put_log(proj / "study.sqlite", "S010.jsonl.bak", b"{}\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    check = run_dossier("check", proj, env={"TMPDIR": str(tmp)})
    assert not (proj / ".dossier" / "recall-logs").exists()     # check writes nothing in the project
    assert list(tmp.iterdir()) == []                            # its temporary folder is removed
    assert not (proj / "_site").exists(), check.stdout
    run_dossier("build", proj)
    assert tree(proj / "_site") == reference_sites[3]
    kept = sorted(p.name for p in (proj / ".dossier" / "recall-logs").iterdir())
    want = sorted(hashlib.sha256((logs / f"S00{i}.jsonl").read_bytes()).hexdigest() + ".jsonl" for i in (1, 2, 3))
    assert kept == want
    for name in kept:   # each kept copy holds the bytes of its hash
        data = (proj / ".dossier" / "recall-logs" / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() + ".jsonl" == name


def test_a_row_whose_bytes_do_not_match_its_hash_is_an_error_naming_it(run_dossier, tmp_path, logs):
    proj = db_project(tmp_path / "p", logs)
    run_dossier("db", "import-logs", "--database", proj / "study.sqlite", logs / "S001.jsonl")
    con = sqlite3.connect(proj / "study.sqlite")
    con.execute("INSERT INTO recall_logs VALUES('S002.jsonl', ?, ?)",
                ((logs / "S002.jsonl").read_bytes(), hashlib.sha256(b"other").hexdigest()))
    con.commit()
    con.close()
    proc = run_dossier("build", proj, check=False)
    assert proc.returncode == 1
    assert "S002.jsonl" in proc.stderr
    assert not (proj / "_site").exists()


def test_messages_name_each_log_recall_logs_slash_name(run_dossier, tmp_path, logs):
    """A log is built as a file would be, named recall_logs/NAME in messages."""
    bad = b'{"type":"session"}\n'
    folder = folder_project(tmp_path / "f", logs, ["S001.jsonl"])
    (folder / "recall_logs" / "S005.jsonl").write_bytes(bad)
    proj = db_project(tmp_path / "d", logs)
    run_dossier("db", "import-logs", "--database", proj / "study.sqlite", logs / "S001.jsonl")
    put_log(proj / "study.sqlite", "S005.jsonl", bad)
    a = run_dossier("build", folder, check=False)
    b = run_dossier("build", proj, check=False)
    assert a.returncode == b.returncode == 1
    lines_a = [l for l in a.stderr.splitlines() if "S005" in l]
    lines_b = [l for l in b.stderr.splitlines() if "S005" in l]
    assert lines_a and any(l.startswith("recall_logs/S005.jsonl") for l in lines_a)
    assert lines_b == lines_a


def test_a_build_does_not_see_a_write_transaction_held_open(run_dossier, tmp_path, logs, reference_sites):
    proj = db_project(tmp_path / "p", logs)
    db = proj / "study.sqlite"
    run_dossier("db", "import-logs", "--database", db, *[logs / f"S00{i}.jsonl" for i in (1, 2, 3)])
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")     # as an ingest: the write lock, a row not committed
        data = (logs / "S004.jsonl").read_bytes()
        writer.execute("INSERT INTO recall_logs VALUES('S004.jsonl', ?, ?)", (data, hashlib.sha256(data).hexdigest()))
        proc = run_dossier("build", proj, check=False, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert tree(proj / "_site") == reference_sites[3]
        writer.execute("COMMIT")
    finally:
        writer.close()
    run_dossier("build", proj)
    assert tree(proj / "_site") == reference_sites[4]


def _wait_for(path: pathlib.Path, proc, timeout=120):
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            raise AssertionError(f"ended before the pause point: {proc.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError(str(path))
        time.sleep(0.02)


def test_a_commit_during_the_builds_snapshot_is_not_in_that_build(run_dossier, dossier_bin, tmp_path, logs,
                                                                  reference_sites):
    proj = db_project(tmp_path / "p", logs)
    db = proj / "study.sqlite"
    run_dossier("db", "import-logs", "--database", db, *[logs / f"S00{i}.jsonl" for i in (1, 2, 3)])
    pause = tmp_path / "pause"
    env = dict(os.environ, DOSSIER_PAUSE_AT="snapshot:1", DOSSIER_PAUSE_FILE=str(pause))
    build = subprocess.Popen([dossier_bin, "build", str(proj)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(pathlib.Path(str(pause) + ".reached"), build)
        # another process commits a new log and removes one the snapshot already listed
        out = run_dossier("db", "import-logs", "--database", db, logs / "S004.jsonl", timeout=60)
        assert out.stdout.strip().splitlines()[-1] == "1 stored, 0 already there"
        con = sqlite3.connect(db, timeout=30)
        con.execute("DELETE FROM recall_logs WHERE name = 'S003.jsonl'")
        con.commit()
        con.close()
        pause.touch()
        _, err = build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
    assert build.returncode == 0, err
    assert tree(proj / "_site") == reference_sites[3]
    put_log(db, "S003.jsonl", (logs / "S003.jsonl").read_bytes())
    run_dossier("build", proj)
    assert tree(proj / "_site") == reference_sites[4]


def test_a_second_migration_waits_for_the_first_and_finds_the_work_done(dossier_bin, tmp_path):
    """The second of two migrations waits for SQLite's write lock and then finds schema 3."""
    from test_doc_store_sqlite import doc_v3_sql
    db = tmp_path / "s.sqlite"
    first = sqlite3.connect(db, isolation_level=None)
    first.execute("PRAGMA journal_mode=WAL")
    first.execute("BEGIN IMMEDIATE")
    proc = subprocess.Popen([dossier_bin, "db", "migrate", "--database", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for stmt in doc_v3_sql("sqlite").split(";"):
            if stmt.strip():
                first.execute(stmt)
        first.execute("INSERT INTO meta VALUES('schema_version','3')")
        first.execute("COMMIT")
        out, err = proc.communicate(timeout=60)
    finally:
        first.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert out.strip() == f"{db}: schema version 3, up to date"
