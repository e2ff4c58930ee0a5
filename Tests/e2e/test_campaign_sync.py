"""A random-kill campaign for two-device vault sync on a faulty server (issue #34).

Each run edits the vault on one device (sometimes the same item on both: a conflict),
then syncs while Tests/e2e/fault_dav.py injects random faults (cut PUT bodies, 500/507,
dropped connections, lost answers) and DOSSIER_FAULT_AT kills the sync at a random write
point (or not at all). The run is completed by syncs on a healthy server; then every
acknowledged edit (every `vault add`/`edit` that exited 0) is on both devices, every
conflict kept both versions, and a new device can join.

A kill-at-random campaign: it runs only in `make soak` (150 runs; DOSSIER_SOAK_RUNS). The
fault at every write point in turn is make test's (test_vault_sync_faults.py).
"""
import os
import random

from conftest import soak_only
from test_campaign_publish import lifetime, set_faults
from test_vault_sync_faults import KILLED, listing, needs_vault_sync, synced_devices, v  # noqa: F401  (fixture)
from webdav_server import WebDAVServer

RUNS = int(os.environ.get("DOSSIER_SOAK_RUNS", "150"))
SEED = int(os.environ.get("DOSSIER_SOAK_SEED", "34"))


def converge(dossier_bin, a, b, run):
    for device in (a, b, a):
        p = v(dossier_bin, "sync", device, check=False)
        assert p.returncode == 0, (run, device.name, p.stderr)


@soak_only("the random-kill sync campaign")
def test_random_kills_and_server_faults_lose_no_acknowledged_edit(dossier_bin, tmp_path):
    rng = random.Random(SEED)
    a, b = tmp_path / "a.dvault", tmp_path / "b.dvault"
    faults = tmp_path / "faults.json"
    set_faults(faults, 0, 0)
    outcomes = {}
    with WebDAVServer(tmp_path / "srv", faults=faults, lifetime=lifetime(RUNS)) as dav:
        url = dav.url + "v/"
        synced_devices(dossier_bin, url, a, b, items=())
        # Usernames that must stay on both devices: both sides of every conflict.
        kept = set()
        # Items whose latest value is known: title -> username.
        latest = {}
        for run in range(RUNS):
            device = rng.choice((a, b))
            other = b if device == a else a
            roll = rng.random()
            if roll < 0.25 and latest:
                # A conflict: both devices edit the same item before syncing; the
                # winner is the later edit, the loser is kept as "(conflict copy)".
                title = rng.choice(sorted(latest))
                del latest[title]
                for d, tag in ((other, "y"), (device, "x")):
                    v(dossier_bin, "edit", d, title, "--username", f"c{run}{tag}")
                    kept.add(f"c{run}{tag}")
                v(dossier_bin, "sync", other, check=False)
            elif roll < 0.65 or not latest:
                title = f"Item {run}"
                v(dossier_bin, "add", device, "--title", title, "--username", f"u{run}")
                latest[title] = f"u{run}"
            else:
                title = rng.choice(sorted(latest))
                v(dossier_bin, "edit", device, title, "--username", f"e{run}")
                latest[title] = f"e{run}"
            set_faults(faults, rng.randrange(1 << 30), rng.choice((0, 0.05, 0.1, 0.2)))
            kill = rng.choice((None, rng.randint(1, 12)))
            p = v(dossier_bin, "sync", device, check=False, fault=(kill, "kill") if kill else None)
            assert p.returncode in (0, 1, KILLED), (run, p.returncode, p.stderr)
            outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
            set_faults(faults, 0, 0)
            converge(dossier_bin, a, b, run)
            la, lb = listing(dossier_bin, a), listing(dossier_bin, b)
            assert la == lb, (run, la, lb)
            users = {u for _, u in la}
            assert kept <= users, (run, kept - users)
            got = {t: u for t, u in la if t in latest}
            assert got == latest, (run, got, latest)
        # A new device joins and holds the same vault.
        c = tmp_path / "c.dvault"
        v(dossier_bin, "sync", c, "--to", url)
        assert listing(dossier_bin, c) == listing(dossier_bin, a)
    print("sync campaign outcomes:", outcomes, "faults fired:", len(dav.faults_fired()))
