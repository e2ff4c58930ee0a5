"""docs/webdav.md "Retries and errors" and the write points, checked on a real wsgidav
server that fails on cue (dav_oracle_server.py): which answers are retried and how
often, which are final and with what message, and — failing each write in turn — that a
second run on a healthy server converges with nothing lost.
"""
import shutil

import pytest

from conftest import soak_only
from dav_oracle_server import (WRITES, DavOracle, converged, drop, lose, make_site, publish, status, to_v2, tree)

RETRIED = [500, 502, 503, 504]

# Failing every write point in turn takes 2-3 minutes here; the publish fault tests of
# `make test` (test_publish_faults.py) cover the same points, so these run in `make soak`.
every_write_point = soak_only("every write point in turn")


def v1_published(run_dossier, tmp_path, pages=3):
    """A make_site() site published to <srv>/s/ and then edited to v2 (not published)."""
    base = tmp_path / "base"
    site = make_site(base, pages=pages)
    with DavOracle(base / "srv") as dav:
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
    to_v2(site)
    return base


def fresh_copy(base, dst):
    shutil.copytree(base, dst)
    return dst / "_site", dst / "srv"


def healthy_write_count(run_dossier, tmp_path, base):
    site, root = fresh_copy(base, tmp_path / "count")
    with DavOracle(root) as dav:
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
        return sum(1 for r in dav.requests if r.method in WRITES)


@pytest.mark.parametrize("code", RETRIED)
def test_5xx_is_retried_up_to_four_times_with_doubling_waits(run_dossier, tmp_path, code):
    """"Each request is tried up to 4 times … A retry follows: HTTP 500, 502, 503, 504";
    "The wait before retry *k* (1-based) is `0.25 s × 2^(k−1)`: 0.25, 0.5, 1 s"."""
    site = make_site(tmp_path, pages=1)
    with DavOracle(tmp_path / "srv") as dav:
        dav.rule(method="GET", path="manifest", times=3, action=status(code))
        out = publish(run_dossier, site, dav.url + "s/")
        assert out.returncode == 0, out.stderr
        gets = [r for r in dav.requests if r.method == "GET"]
        assert [r.status for r in gets] == [code, code, code, 404]
        gaps = [b.time - a.time for a, b in zip(gets, gets[1:])]
        for gap, wait in zip(gaps, (0.25, 0.5, 1.0)):
            assert gap >= wait - 0.01, gaps
        converged(tmp_path / "srv", site)


def test_a_fifth_attempt_is_never_made(run_dossier, tmp_path):
    """"Each request is tried up to 4 times (`Options.maxAttempts`)": a server that
    answers 503 for ever gets 4 requests, and the error names the URL; exit 1."""
    site = make_site(tmp_path, pages=1)
    with DavOracle(tmp_path / "srv") as dav:
        dav.rule(method="GET", path="manifest", action=status(503))
        out = publish(run_dossier, site, dav.url + "s/")
        assert out.returncode == 1
        assert dav.count("GET") == 4 and len(dav.requests) == 4
        assert f"{dav.url}s/.dossier-manifest.json: " in out.stderr and "503" in out.stderr


FINAL = [
    (423, "PUT", "index.html", "locked by another client (HTTP 423); try again later"),
    (507, "PUT", "index.html", "the server is out of space (HTTP 507)"),
    (403, "DELETE", "p01/data.csv", "DELETE forbidden by the server (HTTP 403); the account may not write here"),
    (409, "MKCOL", "/extra/", "MKCOL failed with a conflict (HTTP 409); a parent folder is probably missing"),
    (423, "GET", ".dossier-manifest.json", "locked by another client (HTTP 423); try again later"),
    (401, "PROPFIND", "/s/recall/", "the server rejected the user name or password (HTTP 401); check the credentials"),
]


@pytest.mark.parametrize("code,method,part,message", FINAL,
                         ids=lambda v: str(v)[:12] if not isinstance(v, str) else v.split()[0])
def test_final_errors_are_not_retried_and_name_the_url(run_dossier, tmp_path, code, method, part, message):
    """The table "Final errors (`WebDAVError`), each naming the URL and never a
    credential": `<url>: <message>`, exit 1, the request made once; then a run on a
    healthy server converges."""
    base = v1_published(run_dossier, tmp_path)
    site, root = fresh_copy(base, tmp_path / "run")
    with DavOracle(root) as dav:
        extra = ("--verify",) if method == "PROPFIND" else ()
        dav.rule(method=method, path=part, times=1, action=status(code))
        out = publish(run_dossier, site, dav.url + "s/", *extra)
        assert out.returncode == 1, out.stdout + out.stderr
        [hit] = [r for r in dav.requests if r.status == code]
        assert f"{dav.url[:-1]}{hit.raw}: {message}" in out.stderr
        assert sum(1 for r in dav.requests if r.method == method and r.raw == hit.raw) == 1
        dav.clear()
        again = publish(run_dossier, site, dav.url + "s/")
        assert again.returncode == 0, again.stderr
        converged(root, site)


def test_a_dropped_connection_is_retried_in_the_same_run(run_dossier, tmp_path):
    """"connection-level failures: … refused or reset connections, transfers cut short"
    are retried: every write's first attempt dropped, the publish still completes."""
    base = v1_published(run_dossier, tmp_path)
    site, root = fresh_copy(base, tmp_path / "run")
    with DavOracle(root) as dav:
        rules = [dav.rule(method=m, nth=1, action=drop) for m in ("PUT", "MOVE", "DELETE", "MKCOL")]
        out = publish(run_dossier, site, dav.url + "s/")
        assert out.returncode == 0, out.stderr
        assert all(r.fired == 1 for r in rules)
        converged(root, site)


def test_a_lying_content_length_is_a_transfer_cut_short_and_retried(run_dossier, tmp_path):
    """"transfers cut short" are retried — an answer promising 64 bytes and closing the
    connection — and four of them are "cannot reach the server (… connection lost …)"."""
    base = v1_published(run_dossier, tmp_path)
    site, root = fresh_copy(base, tmp_path / "run")
    with DavOracle(root) as dav:
        dav.rule(method="GET", path="manifest", times=1, action=drop)
        assert publish(run_dossier, site, dav.url + "s/", "--dry-run").returncode == 0
        assert dav.count("GET") == 2
        dav.clear()
        dav.rule(method="GET", path="manifest", action=drop)
        out = publish(run_dossier, site, dav.url + "s/", "--dry-run")
        assert out.returncode == 1 and dav.count("GET") == 4
        assert f"{dav.url}s/.dossier-manifest.json: cannot reach the server (connection lost" in out.stderr


def _fault_each_write(run_dossier, tmp_path, make_rule, check_message):
    base = v1_published(run_dossier, tmp_path)
    writes = healthy_write_count(run_dossier, tmp_path, base)
    assert writes >= 10
    for n in range(1, writes + 1):
        site, root = fresh_copy(base, tmp_path / f"n{n}")
        with DavOracle(root) as dav:
            rule = make_rule(dav, n)
            out = publish(run_dossier, site, dav.url + "s/")
            assert rule.fired >= 1, n
            assert out.returncode in (0, 1), (n, out.stderr)
            if out.returncode == 1:
                check_message(dav, out.stderr, n)
            dav.clear()
            again = publish(run_dossier, site, dav.url + "s/")
            assert again.returncode == 0, (n, again.stderr)
            converged(root, site)


def _nth_write(n):
    return dict(method=WRITES, nth=n)


@pytest.mark.parametrize("code,text", [(507, "the server is out of space (HTTP 507)"),
                                       (423, "locked by another client (HTTP 423); try again later")])
@every_write_point
def test_a_final_status_at_each_write_point_then_a_second_run_converges(run_dossier, tmp_path, code, text):
    """"Every `PUT`, `MKCOL`, `MOVE` and `DELETE` is first a **write point**"; the Nth of
    them answered 507 / 423: exit 1 naming that URL and the reason (or 0 for a clean-up
    write whose failure is ignored), and a plain second run converges."""
    def message(dav, err, n):
        [hit] = [r for r in dav.requests if r.status == code]
        assert f"{dav.url[:-1]}{hit.raw}: {text}" in err, (n, err)
    _fault_each_write(run_dossier, tmp_path, lambda dav, n: dav.rule(**_nth_write(n), action=status(code)), message)


@every_write_point
def test_a_failing_server_from_each_write_point_on_then_a_second_run_converges(run_dossier, tmp_path):
    """"Each request is tried up to 4 times" — a server answering 500 to every write from
    the Nth on: exit 1 naming a server URL and HTTP 500; a healthy second run converges."""
    def message(dav, err, n):
        assert f"{dav.url}s/" in err and "HTTP 500" in err, (n, err)
    _fault_each_write(run_dossier, tmp_path,
                      lambda dav, n: dav.rule(method=WRITES, after=n - 1, action=status(500)), message)


@every_write_point
def test_a_connection_dropped_at_each_write_point_for_good(run_dossier, tmp_path):
    """Connections reset from the Nth write on: exit 1, "cannot reach the server
    (connection lost)" naming the URL; then a healthy second run converges."""
    def message(dav, err, n):
        assert f"{dav.url}s/" in err and "cannot reach the server (connection lost" in err, (n, err)
    _fault_each_write(run_dossier, tmp_path, lambda dav, n: dav.rule(method=WRITES, after=n - 1, action=drop),
                      message)


@every_write_point
def test_a_lost_answer_at_each_write_point(run_dossier, tmp_path):
    """"A transfer cut short or a lost answer is retried like a 5xx …, so a write may
    arrive twice: every write Dossier makes is safe to repeat": the Nth write is made
    and its answer lost; the run ends 0 or 1 and a second run converges."""
    def message(dav, err, n):
        assert f"{dav.url}s/" in err, (n, err)
    _fault_each_write(run_dossier, tmp_path, lambda dav, n: dav.rule(**_nth_write(n), action=lose), message)


@every_write_point
def test_write_points_are_counted_once_per_call_not_per_retry(run_dossier, tmp_path):
    """"Every `PUT`, `MKCOL`, `MOVE` and `DELETE` is first a **write point** … counted
    once per call, not per retry": with the first write answered 503 twice (and
    retried), write point N still names the same request, and there are exactly as many
    write points as write calls."""
    base = v1_published(run_dossier, tmp_path)
    writes = healthy_write_count(run_dossier, tmp_path, base)
    labels = {}
    for flaky in (False, True):
        for n in range(1, writes + 2):
            site, root = fresh_copy(base, tmp_path / f"{flaky}{n}")
            with DavOracle(root) as dav:
                if flaky:
                    dav.rule(method="PUT", times=2, action=status(503))
                env = {"DOSSIER_FAULT_AT": str(n), "DOSSIER_FAULT_MODE": "fail", "DOSSIER_WEBDAV_JOBS": "1"}
                out = publish(run_dossier, site, dav.url + "s/", "--jobs", "1", env=env)
                fired = [l for l in out.stderr.splitlines() if l.startswith("fault injected:")]
                labels.setdefault(flaky, []).append(fired[0] if fired else None)
    assert labels[False][-1] is None and None not in labels[False][:-1]
    assert labels[True] == labels[False]
