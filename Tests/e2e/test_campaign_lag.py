"""Campaigns on a lagging server that drops writes (issue #42).

Tests/e2e/fault_dav.py makes 30–60 % of unconditional PUTs and MOVEs visible only 0–4
requests later (reads show the old state until then: stale GET and PROPFIND) and
acknowledges 10–30 % of PUTs and MOVEs without storing them. A publish or a sync may
then fail (exit 1) but must never exit 0 with a server that differs from the site or the
vault: after an exit 0 the server is compared at once, and for sync the other device
must see the edit after the server catches up (the faults switched off), with no
further sync of the device that made it.

`make test` runs DOSSIER_LAG_RUNS (default 4) runs of the publish campaign and 2 of the
sync campaign (ten seconds a run: it unlocks two vaults eight times); `make soak` runs
DOSSIER_SOAK_RUNS (150) of each.
"""
import json
import os
import random

from test_campaign_publish import lifetime
from test_vault_sync_faults import synced_devices
from test_publish_faults import assert_published, publish, two_versions
from test_vault_sync_faults import listing, needs_vault_sync, v  # noqa: F401  (fixture)
from webdav_server import WebDAVServer

RUNS = int(os.environ.get("DOSSIER_LAG_RUNS", os.environ.get("DOSSIER_SOAK_RUNS", "4")))
SYNC_RUNS = int(os.environ.get("DOSSIER_LAG_RUNS", os.environ.get("DOSSIER_SOAK_RUNS", "2")))
SEED = int(os.environ.get("DOSSIER_SOAK_SEED", "42"))


def lagging(path, rng):
    lag, drop = rng.choice((0.3, 0.45, 0.6)), rng.choice((0.1, 0.2, 0.3))
    rules = [{"method": m, "fault": "ack", "p": drop} for m in ("PUT", "MOVE")]
    rules += [{"method": m, "fault": "lag", "p": lag, "requests": [0, 4]} for m in ("PUT", "MOVE")]
    path.write_text(json.dumps({"seed": rng.randrange(1 << 30), "rules": rules}))


def healthy(path):
    path.write_text(json.dumps({"seed": 0, "rules": []}))      # the server catches up


def test_publish_on_a_lagging_dropping_server_never_exits_0_wrong(dossier_bin, tmp_path):
    v1, v2 = two_versions(tmp_path)
    rng = random.Random(SEED)
    faults = tmp_path / "faults.json"
    healthy(faults)
    srv = tmp_path / "srv"
    outcomes = {}
    with WebDAVServer(srv, faults=faults, lifetime=lifetime(RUNS)) as dav:
        url = dav.url + "s/"
        for run in range(RUNS):
            site = (v1, v2)[run % 2]
            lagging(faults, rng)
            p = publish(dossier_bin, site, url, check=False)
            assert p.returncode in (0, 1), (run, p.returncode, p.stderr)
            outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
            if p.returncode == 0:
                assert_published(srv / "s", site)           # before the server catches up
            healthy(faults)
            publish(dossier_bin, site, url)
            assert_published(srv / "s", site)
        fired = {k for _, _, k in dav.faults_fired()}
    assert {"ack", "lag"} <= fired, fired
    print("lagging publish outcomes:", outcomes)


def test_sync_on_a_lagging_dropping_server_never_exits_0_wrong(dossier_bin, tmp_path):
    rng = random.Random(SEED)
    a, b = tmp_path / "a.dvault", tmp_path / "b.dvault"
    faults = tmp_path / "faults.json"
    healthy(faults)
    outcomes = {}
    with WebDAVServer(tmp_path / "srv", faults=faults, lifetime=lifetime(SYNC_RUNS)) as dav:
        url = dav.url + "v/"
        synced_devices(dossier_bin, url, a, b, items=())
        for run in range(SYNC_RUNS):
            device, other = (a, b) if run % 2 == 0 else (b, a)
            v(dossier_bin, "add", device, "--title", f"Item {run}", "--username", f"u{run}")
            lagging(faults, rng)
            p = v(dossier_bin, "sync", device, check=False)
            assert p.returncode in (0, 1), (run, p.returncode, p.stderr)
            outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
            healthy(faults)
            if p.returncode == 0:
                # Exit 0 means the server holds the edit: the other device sees it now.
                assert v(dossier_bin, "sync", other, check=False).returncode == 0
                assert (f"Item {run}", f"u{run}") in listing(dossier_bin, other), run
            for d in (device, other, device):
                assert v(dossier_bin, "sync", d, check=False).returncode == 0, run
            assert listing(dossier_bin, a) == listing(dossier_bin, b), run
        fired = {k for _, _, k in dav.faults_fired()}
    assert "ack" in fired, fired
    print("lagging sync outcomes:", outcomes)
