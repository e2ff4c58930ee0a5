"""The PostgreSQL test server itself (Tests/e2e/pg_server.py): it runs as a non-root
user, listens only on loopback, refuses a wrong password, and keeps its data across a
crash and a restart on the same port — what the store tests rely on."""
import os
import subprocess

import pytest


def test_server_refuses_wrong_password_and_survives_a_crash(pg_server_own):
    pg = pg_server_own
    db = pg.create_database()
    pg.psql(db, "create table t (k text primary key); insert into t values ('a')")
    assert pg.psql(db, "select current_user").strip() == pg.user
    if os.geteuid() == 0:
        assert os.stat(pg.data).st_uid != 0, "the cluster must not be owned by root"
    env = dict(os.environ)
    env.update(pg.client_env(db))
    env["PGPASSWORD"] = "not-" + pg.password
    proc = subprocess.run(["psql", "-X", "-c", "select 1"], env=env, capture_output=True, text=True)
    assert proc.returncode != 0 and "password authentication failed" in proc.stderr
    port = pg.port
    pg.stop(mode="immediate")
    pg.start()
    assert pg.port == port
    assert pg.psql(db, "select k from t").strip() == "a"
