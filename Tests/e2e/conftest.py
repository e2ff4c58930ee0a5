"""Shared fixtures for Dossier's end-to-end tests (pytest).

Every test here runs the *built* `dossier` binary (`make test` builds it first), in
temporary folders, against real tools started on 127.0.0.1.
"""
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def dossier_path() -> str:
    env = os.environ.get("DOSSIER_BIN")
    if env:
        return env
    for cand in (REPO / ".build" / "debug" / "dossier", REPO / ".build" / "release" / "dossier"):
        if cand.exists():
            return str(cand)
    raise RuntimeError("dossier is not built: run `swift build` (or `make test`) first")


@pytest.fixture(scope="session")
def dossier_bin() -> str:
    return dossier_path()


@pytest.fixture
def run_dossier(dossier_bin):
    """run_dossier(*args, cwd=None, env=None, input=None, check=True) -> CompletedProcess"""

    def run(*args, cwd=None, env=None, input=None, check=True, timeout=600):
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        proc = subprocess.run([dossier_bin, *map(str, args)], cwd=cwd, env=full_env, input=input,
                              capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"dossier {' '.join(map(str, args))} exited {proc.returncode}\n"
                                 f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return proc

    return run


@pytest.fixture
def demo_copy(tmp_path):
    """A fresh copy of Examples/demo in a temp folder."""
    dst = tmp_path / "demo"
    shutil.copytree(REPO / "Examples" / "demo", dst, ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier"))
    return dst


ARTIFACTS = REPO / "artifacts"


def soak_only(reason):
    """A skip mark for tests that run only in `make soak` (which sets DOSSIER_SOAK_RUNS)."""
    return pytest.mark.skipif(not os.environ.get("DOSSIER_SOAK_RUNS"), reason=f"{reason}: `make soak`")


def bench_quick_only(reason):
    """A skip mark for the benchmark harness's own slow tests: they run in `make bench-quick`
    (which sets DOSSIER_BENCH_TESTS), beside the benchmarks they keep working."""
    return pytest.mark.skipif(not os.environ.get("DOSSIER_BENCH_TESTS"), reason=f"{reason}: `make bench-quick`")


# MARK: - PostgreSQL (Tests/e2e/pg_server.py)

@pytest.fixture(scope="session")
def pg_server():
    """One real PostgreSQL server for the whole session (each worker its own); tests
    take a fresh database from it with `pg_database`. A test that stops the server must
    use `pg_server_own` instead."""
    yield from _started_pg_server()


def _started_pg_server():
    """A started server (the test is skipped, saying why, where PostgreSQL is missing),
    closed when the fixture ends."""
    import pg_server as pgs
    reason = pgs.missing_reason()
    if reason:
        pytest.skip(reason)
    server = pgs.PgServer().start()
    yield server
    server.close()


@pytest.fixture
def pg_database(pg_server):
    """A fresh, empty database on the session's server: (server, database name)."""
    return pg_server, pg_server.create_database()


@pytest.fixture
def pg_server_own():
    """A PostgreSQL server of this test alone (it may stop and restart it)."""
    yield from _started_pg_server()
