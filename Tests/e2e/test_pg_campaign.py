"""Several sites, one PostgreSQL study database: a random-kill campaign for concurrent
ingests (docs/multi-site.md, "Ingest").

Two sites each have a WebDAV drop (two real wsgidav servers) holding game uploads (`.rmu`)
and recall uploads (`.rcu`); the drops overlap: an upload may sit in both, as the same
bytes (a copy) or sealed again from the same content (a resend). Each drop also holds one
tampered upload of each kind. Every run starts two `game ingest` and two `recall ingest`
processes at once against one fresh PostgreSQL database, each pulling one drop, and a
seeded schedule (`store_campaign.py`) kills each process at a point it picks: paused
inside the transaction of its k-th upload and killed there, killed before its k-th
WebDAV write (the DELETE after a commit), killed after its k-th outcome line, or not at
all. Then the four run again, unharmed and at once, until the drops hold only the
tampered uploads. After each run:

- every distinct upload is stored exactly once: the game's `uploads` hold exactly the
  SHA-256 of every distinct body (read by an independent opener, store_helpers.py), the
  cohort analysed from the database equals the cohort analysed from the telemetry files,
  and `recall_logs` holds exactly the distinct logs, byte for byte;
- nothing is lost: each drop is emptied of every stored upload and keeps the tampered ones;
- the re-runs converge: one unharmed round is enough, and a second one finds nothing to do.

`make test` runs DOSSIER_SOAK_RUNS (default 3) runs; `make soak` runs 150 (at least 50).
"""
import hashlib
import json
import os
import random
import shutil

import pytest

from store_campaign import KILLED_BY_FAULT, files_in, run_together, scrub_environment, split_cohort
from store_helpers import content_sha256
from webdav_server import PASSWORD, USER, WebDAVServer

RUNS = int(os.environ.get("DOSSIER_SOAK_RUNS", "3"))
SEED = int(os.environ.get("DOSSIER_SOAK_SEED", "41"))
PLAYERS, PARTICIPANTS = 6, 5


@pytest.fixture(scope="module")
def uploads(tmp_path_factory, dossier_bin):
    """Every upload the sites may collect: {"game": [(name, bytes, content)], "recall": …},
    with resent copies (same content, other bytes) of some; the telemetry and logs they hold."""
    import subprocess
    base = tmp_path_factory.mktemp("uploads")

    def run(*args):
        subprocess.run([dossier_bin, *map(str, args)], check=True, capture_output=True, text=True)

    run("game", "keygen", "--output", base / "study", "--bits", "2048")
    key = (base / "study.key").read_bytes()
    cohort = base / "cohort.jsonl"
    run("game", "simulate", "--players", PLAYERS, "--seed", 41, "--obstacles", 4, "--output", cohort)
    game, devices = [], base / "game-devices"
    for i, part in enumerate(split_cohort(cohort, base / "parts"), 1):
        for attempt in ("", "r"):   # sealed twice: a resend is the same content in new bytes
            out = base / f"game-{i}{attempt}"
            run("game", "seal", "--public", base / "study.pub", "--output", out, "--devices", devices, part)
            for f in sorted(out.glob("*.rmu")):
                data = f.read_bytes()
                game.append((f"{f.stem}-{i}{attempt}.rmu", data, content_sha256(data, key)))
    logs = base / "logs"
    run("recall", "simulate", "--participants", PARTICIPANTS, "--seed", 41, "--output", logs)
    recall = []
    for attempt in ("", "r"):
        out = base / f"recall{attempt}"
        run("recall", "seal", "--public", base / "study.pub", "--output", out, "--device", base / "recall-device.json",
            *sorted(logs.glob("*.jsonl")))
        for f in sorted(out.glob("*.rcu")):
            recall.append((f.name, f.read_bytes(), None))
    texts = {f.name: f.read_bytes() for f in logs.glob("*.jsonl")}
    return {"key": base / "study.key", "cohort": cohort, "game": game, "recall": recall, "logs": texts}


def tampered(data: bytes) -> bytes:
    bad = bytearray(data)
    bad[-20] ^= 1
    return bytes(bad)


def deal(rng, items, drops, sub):
    """Puts each upload into drop A, B or both (the same bytes); the resent copies
    (names ending `r`) go to one drop when they go at all. Every content reaches a drop."""
    placed = set()
    for name, data, content in items:
        resend = name.rsplit(".", 1)[0].endswith("r")
        where = rng.choice(([], [0], [1]) if resend else ([0], [1], [0, 1]))
        for d in where:
            (drops[d] / sub / name).write_bytes(data)
        if where:
            placed.add(name)
    return placed


def schedule(rng):
    return rng.choice((None, ("commit", rng.randint(1, 6)), ("write", rng.randint(1, 6)),
                       ("line", rng.randint(1, 6))))


def test_two_sites_four_ingests_killed_then_every_upload_stored_once(dossier_bin, pg_server, uploads, tmp_path):
    pg = pg_server
    env = scrub_environment()
    env.update(pg.client_env(), DOSSIER_WEBDAV_USER=USER, DOSSIER_WEBDAV_PASSWORD=PASSWORD)
    rng = random.Random(SEED)
    outcomes = {}
    expected_game = {c for _, _, c in uploads["game"]}
    roots = [tmp_path / "site-a", tmp_path / "site-b"]
    with WebDAVServer(roots[0], lifetime=max(900, 60 * RUNS)) as dav_a, \
            WebDAVServer(roots[1], lifetime=max(900, 60 * RUNS)) as dav_b:
        davs = [dav_a, dav_b]
        for run in range(RUNS):
            db = pg.create_database()
            url = pg.url(db)
            for r in roots:
                shutil.rmtree(r / "drop", ignore_errors=True)
                (r / "drop" / "game").mkdir(parents=True)
                (r / "drop" / "recall").mkdir(parents=True)
            deal(rng, uploads["game"], [r / "drop" for r in roots], "game")
            deal(rng, uploads["recall"], [r / "drop" for r in roots], "recall")
            for i, r in enumerate(roots):
                (r / "drop/game" / f"zz-tampered-{i}.rmu").write_bytes(tampered(uploads["game"][i][1]))
                (r / "drop/recall" / f"zz-tampered-{i}.rcu").write_bytes(tampered(uploads["recall"][i][1]))
            plans = {f"{kind}-{site}": schedule(rng) for kind in ("game", "recall") for site in "ab"}
            work = tmp_path / f"run-{run}"
            work.mkdir()

            def specs(with_plans):
                out = []
                for kind in ("game", "recall"):
                    for i, site in enumerate("ab"):
                        frm = davs[i].url + f"drop/{kind}/"
                        argv = [dossier_bin, kind, "ingest", "--key", str(uploads["key"]), "--from", frm, "--db", url]
                        out.append((f"{kind}-{site}", argv, env, plans[f"{kind}-{site}"] if with_plans else None))
                return out

            res = run_together(specs(True), work)
            for name, (code, out, err, killed) in res.items():
                assert code in (0, 1, KILLED_BY_FAULT, -9), (run, name, plans, code, err)
                if code == 1 and not killed:
                    assert "rejected" in err or "refused" in err, (run, name, err)
                outcomes[code] = outcomes.get(code, 0) + 1
            rounds, again = 0, {}
            while any(pending(r) for r in roots):
                rounds += 1
                assert rounds <= 1, (run, plans, [pending(r) for r in roots], again)
                again = run_together(specs(False), work)
                for name, (code, out, err, _) in again.items():
                    assert code in (0, 1), (run, name, code, err)
                    assert "Traceback" not in err and PASSWORD not in out + err and pg.password not in out + err
            # A further round finds nothing new: every upload is a refusal or nothing at all.
            final = run_together(specs(False), work)
            for name, (code, out, err, _) in final.items():
                assert code == 1 and out.strip().splitlines()[-1].startswith("0 stored, 0 "), (run, name, out)
            check_store(pg, db, url, uploads, expected_game, dossier_bin, env, run, plans)
            for i, r in enumerate(roots):
                assert files_in(r / "drop/game", ".rmu") == [f"zz-tampered-{i}.rmu"], (run, plans)
                assert files_in(r / "drop/recall", ".rcu") == [f"zz-tampered-{i}.rcu"], (run, plans)
    if RUNS >= 20:
        assert outcomes.get(-9, 0) > 0 and outcomes.get(KILLED_BY_FAULT, 0) > 0, outcomes
    print("multi-site ingest campaign outcomes:", outcomes)


def pending(root):
    """The uploads still in a drop beyond the refused ones."""
    return [n for sub, ext in (("game", ".rmu"), ("recall", ".rcu"))
            for n in files_in(root / "drop" / sub, ext) if not n.startswith("zz-tampered")]


def check_store(pg, db, url, uploads, expected_game, dossier_bin, env, run, plans):
    import subprocess
    stored = pg.psql(db, "select content_sha256 from uploads order by 1").split()
    assert len(stored) == len(set(stored)) and set(stored) == expected_game, (run, plans)
    assert pg.psql(db, "select count(*) from uploads where sessions = 0").strip() == "0", (run, plans)
    a = subprocess.run([dossier_bin, "game", "analyze", "--json", "--db", url], env=env,
                       capture_output=True, text=True, check=True).stdout
    b = subprocess.run([dossier_bin, "game", "analyze", "--json", str(uploads["cohort"])], env=env,
                       capture_output=True, text=True, check=True).stdout
    assert json.loads(a) == json.loads(b), (run, plans)
    rows = pg.psql(db, "select name, sha256, encode(bytes, 'hex') from recall_logs order by name").splitlines()
    got = {n: (h, bytes.fromhex(x)) for n, h, x in (r.split("\t") for r in rows)}
    assert {n: b for n, (h, b) in got.items()} == uploads["logs"], (run, plans, sorted(got))
    assert all(hashlib.sha256(b).hexdigest() == h for h, b in got.values())
