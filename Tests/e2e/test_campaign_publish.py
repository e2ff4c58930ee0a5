"""A random-kill campaign for `dossier publish` on a faulty server (issue #34).

Each run publishes one of two site versions while Tests/e2e/fault_dav.py injects random
faults (cut PUT bodies, 500/507, dropped connections, lost answers on any method) and
DOSSIER_FAULT_AT kills the process at a random write point (or not at all). The run is
then completed by a re-run on a healthy server, after which the server must equal the
site byte for byte and `publish --verify` must find nothing.

`make test` runs DOSSIER_SOAK_RUNS (default 6) runs; `make soak` runs 150.
"""
import json
import os
import random
import shutil

from test_publish_faults import KILLED, assert_published, publish, two_versions
from webdav_server import WebDAVServer

RUNS = int(os.environ.get("DOSSIER_SOAK_RUNS", "6"))
SEED = int(os.environ.get("DOSSIER_SOAK_SEED", "34"))


def lifetime(runs):
    """The test server stops by itself after its lifetime (900 s by default): a long
    campaign on a busy machine outlives that, so it gets a minute a run."""
    return max(900, 60 * runs)


def set_faults(path, seed, p):
    rules = [{"method": "*", "fault": "random", "p": p}] if p else []
    path.write_text(json.dumps({"seed": seed, "rules": rules}))


def test_random_kills_and_server_faults_then_a_rerun_converges(dossier_bin, tmp_path):
    v1, v2 = two_versions(tmp_path)
    rng = random.Random(SEED)
    faults = tmp_path / "faults.json"
    set_faults(faults, 0, 0)
    srv = tmp_path / "srv"
    outcomes = {}
    with WebDAVServer(srv, faults=faults, lifetime=lifetime(RUNS)) as dav:
        url = dav.url + "s/"
        for run in range(RUNS):
            site = rng.choice((v1, v2))
            set_faults(faults, rng.randrange(1 << 30), rng.choice((0, 0.05, 0.1, 0.2)))
            kill = rng.choice((None, rng.randint(1, 30)))
            p = publish(dossier_bin, site, url, fault=(kill, "kill") if kill else None, check=False)
            assert p.returncode in (0, 1, KILLED), (run, p.returncode, p.stderr)
            if p.returncode == 1:
                # A failure is always reported plainly, never as a crash.
                assert p.stderr.strip(), run
            outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
            # Completed by a re-run on a healthy server.
            set_faults(faults, 0, 0)
            again = publish(dossier_bin, site, url, check=False)
            assert again.returncode == 0, (run, kill, p.stderr, again.stderr)
            assert_published(srv / "s", site)
            out = publish(dossier_bin, site, url, "--verify", "--dry-run").stdout
            assert ": 0 difference(s)" in out, (run, out)
            assert not [x for x in (srv / "s").rglob("*") if x.is_dir() and not any(x.iterdir())], run
    if RUNS >= 20:
        # The campaign met kills and failures, not only clean runs.
        assert outcomes.get(KILLED, 0) > 0 and outcomes.get(1, 0) > 0, outcomes
    print("publish campaign outcomes:", outcomes, "faults fired:", len(dav.faults_fired()))
