"""Two publishers at once, stepped through a deterministic schedule (issue #42).

Publisher A talks to the server as `127.0.0.1`, B as `localhost`, so fault_dav.py can
hold each one's requests apart (`hold` rules with a gate). For a pair (i, j): A is held
before its i-th request, B is started and held before its j-th request (or runs to its
end), then A is released and runs to its end, then B. Whatever the pair, the server
must end as exactly one publisher's site with a clean manifest, a publisher that exits 1
names the other publish, and the loser's plain re-publish converges (no `--verify`).

`make test` steps A through every request against a few of B's steps; `make soak`
(DOSSIER_SOAK_RUNS ≥ 20) runs every pair.
"""
import json
import os
import shutil
import subprocess
import time

from test_publish_faults import assert_published, publish
from webdav_server import PASSWORD, USER, WebDAVServer, make_site, tree, write_manifest

FULL = int(os.environ.get("DOSSIER_SOAK_RUNS", "6")) >= 20


def variant(tmp_path, name, edits):
    site = tmp_path / name / "_site"
    shutil.copytree(tmp_path / "base" / "_site", site)
    for path, text in edits.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(text)
    write_manifest(site)
    return site


def start(dossier_bin, site, url):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_FAULT")}
    env.update({"DOSSIER_WEBDAV_PASSWORD": PASSWORD, "DOSSIER_WEBDAV_USER": USER})
    return subprocess.Popen([dossier_bin, "publish", "--site", str(site), "--to", url, "--jobs", "1"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)


def held(dav, gate):
    return any(k == "hold:" + gate for _, _, k in dav.faults_fired())


def until_held_or_done(dav, gate, proc):
    """Waits for a condition (the request held, or the process ended), never a fixed time."""
    deadline = time.monotonic() + 60
    while not held(dav, gate) and proc.poll() is None:
        assert time.monotonic() < deadline, f"publisher {gate} neither held nor done"
        time.sleep(0.005)


def finish(proc):
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def one_pair(dossier_bin, dav, srv, rules, sites, i, j):
    """Runs the schedule (i, j); returns False when A sends fewer than i requests."""
    shutil.rmtree(srv / "s")
    shutil.copytree(srv / "base", srv / "s")
    for gate in ("A", "B"):
        (rules.parent / (gate + ".go")).unlink(missing_ok=True)
        shutil.rmtree(sites[gate].parent / ".dossier", ignore_errors=True)
    rules.write_text(json.dumps({"seed": 0, "rules": [
        {"host": "127.0.0.1", "fault": "hold", "gate": "A", "after": i - 1, "times": 1},
        {"host": "localhost", "fault": "hold", "gate": "B", "after": j - 1, "times": 1}]}))
    dav.clear_log()
    port = dav.url.rsplit(":", 1)[1]
    a = start(dossier_bin, sites["A"], dav.url + "s/")
    until_held_or_done(dav, "A", a)
    if a.poll() is not None:
        assert a.returncode == 0, a.communicate()
        return False
    b = start(dossier_bin, sites["B"], "http://localhost:" + port + "s/")
    until_held_or_done(dav, "B", b)
    (rules.parent / "A.go").touch()
    ra = finish(a)
    (rules.parent / "B.go").touch()
    rb = finish(b)
    codes = (ra[0], rb[0])
    where = f"pair ({i}, {j}): A {ra}, B {rb}"
    assert sorted(codes) in ([0, 1], [0, 0]), where
    if codes == (0, 0):
        # Not interleaved: B was held before its first request until A had finished.
        winner, loser = "B", None
        assert j == 1, where
    else:
        winner, loser = ("A", "B") if codes[0] == 0 else ("B", "A")
        err = ra[2] if loser == "A" else rb[2]
        assert "another publish" in err and "nothing was changed" in err, where
    assert tree(srv / "s") == tree(sites[winner]), where
    assert_published(srv / "s", sites[winner])
    if loser:
        rules.write_text(json.dumps({"seed": 0, "rules": []}))
        url = dav.url + "s/" if loser == "A" else "http://localhost:" + port + "s/"
        publish(dossier_bin, sites[loser], url)
        assert_published(srv / "s", sites[loser])
    return loser or "none"


def test_two_publishers_at_every_pair_of_steps_leave_one_site(dossier_bin, tmp_path):
    base = make_site(tmp_path / "base", pages=1)
    sites = {"A": variant(tmp_path, "a", {"index.html": "<h1>A</h1>\n", "a.html": "<p>a</p>\n"}),
             "B": variant(tmp_path, "b", {"index.html": "<h1>B</h1>\n", "b.html": "<p>b</p>\n",
                                          "assets/site.css": "p { color: #222 }\n"})}
    rules = tmp_path / "rules" / "faults.json"
    rules.parent.mkdir()
    rules.write_text(json.dumps({"rules": []}))
    srv = tmp_path / "srv"
    with WebDAVServer(srv, faults=rules) as dav:
        publish(dossier_bin, base, dav.url + "s/")
        shutil.copytree(srv / "s", srv / "base")
        b_steps = range(1, 15) if FULL else (1, 2, 4)
        losers = {}
        for i in range(1, 40):
            first = one_pair(dossier_bin, dav, srv, rules, sites, i, b_steps[0])
            if not first:
                break
            losers[first] = losers.get(first, 0) + 1
            for j in b_steps[1:]:
                loser = one_pair(dossier_bin, dav, srv, rules, sites, i, j)
                losers[loser] = losers.get(loser, 0) + 1
        print("losers by pair:", losers)
        # A's lease refused B, and B's refused A (held before its marker), both happened.
        assert losers.get("A", 0) > 0 and losers.get("B", 0) > 0, losers
        assert sum(losers.values()) >= 8 * len(b_steps), losers


def test_a_lease_that_cannot_be_read_is_not_run_over(dossier_bin, tmp_path):
    """A marker whose lease has another shape (or an expiry that is not a time) stops a
    publish, nothing changed; once it is deleted on the server, `--verify` converges."""
    base = make_site(tmp_path / "base", pages=1)
    other = variant(tmp_path, "b", {"index.html": "<h1>B</h1>\n", "b.html": "<p>b</p>\n"})
    srv = tmp_path / "srv"
    with WebDAVServer(srv) as dav:
        url = dav.url + "s/"
        publish(dossier_bin, base, url)
        marker = srv / "s" / ".dossier-manifest.json"
        clean = json.loads(marker.read_text())
        lease = {"expires": "2099-01-01T00:00:00Z", "id": "3f9a0c1b2d4e5f60", "machine": "b" * 32, "pid": 4242}
        for bad in ({**lease, "pid": "4242"}, {**lease, "expires": "soon"}, "held", [lease]):
            marker.write_text(json.dumps({**clean, "dirty": True, "lease": bad}))
            before = tree(srv / "s", skip=())
            p = publish(dossier_bin, other, url, check=False)
            assert p.returncode == 1, (bad, p.stdout, p.stderr)
            assert "another publish may be changing this folder" in p.stderr and "nothing was changed" in p.stderr
            assert ".dossier-manifest.json" in p.stderr and "--verify" in p.stderr
            assert tree(srv / "s", skip=()) == before, bad
        # A readable lease of a publish on another machine that has not expired stops it too.
        marker.write_text(json.dumps({**clean, "dirty": True, "lease": lease}))
        p = publish(dossier_bin, other, url, check=False)
        assert p.returncode == 1 and "another publish is changing this folder" in p.stderr, p.stderr
        # `dirty` of another shape is still a marker: its lease holds.
        marker.write_text(json.dumps({**clean, "dirty": "yes", "lease": lease}))
        assert publish(dossier_bin, other, url, check=False).returncode == 1
        # The way out the message gives: delete the marker, publish with --verify.
        marker.unlink()
        publish(dossier_bin, other, url, "--verify")
        assert_published(srv / "s", other)
