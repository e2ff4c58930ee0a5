"""docs/webdav.md "A lagging server" and "What Dossier relies on", at the seams: writes
shown late or lost (a logical clock in dav_oracle_server.py, no timers), lost answers
to conditional PUTs, and a second writer stepped in between a read and a write by
holding one request on a threading.Event.
"""
import os
import re
import subprocess
import urllib.parse

from dav_oracle_server import (DavOracle, ack, converged, dav_env, hold, lag, lose, make_site, publish, status, to_v2,
                               tree, write_manifest)


def unconditional(req):
    return not any(h in req.headers for h in ("if-match", "if-none-match", "if"))


def test_writes_shown_late_still_end_with_the_server_equal_to_the_site(run_dossier, tmp_path):
    """"**May** show a PUT or MOVE some time after answering it (reads — GET, PROPFIND —
    show the old state until then: stale reads)"; "A write that does not show is made
    once more and read back again": every unconditional PUT and MOVE lands 3 requests
    late, and after exit 0 the disk already equals the site (nothing caught up by the
    test)."""
    site = make_site(tmp_path, pages=3)
    with DavOracle(tmp_path / "srv") as dav:
        dav.rule(method=("PUT", "MOVE"), when=unconditional, action=lag(3))
        out = publish(run_dossier, site, dav.url + "s/")
        assert out.returncode == 0, out.stderr
        converged(tmp_path / "srv", site)
        assert dav.count("GET") > 1        # the late writes were read back, not trusted
        to_v2(site)
        out = publish(run_dossier, site, dav.url + "s/")
        assert out.returncode == 0, out.stderr
        converged(tmp_path / "srv", site)


def test_writes_acknowledged_then_lost_are_made_once_more(run_dossier, tmp_path):
    """"**may** acknowledge a write and then lose it (a replica that failed)"; "A write
    that does not show is made once more and read back again": the first PUT of every
    path is acknowledged (201, no tag) and thrown away."""
    site = make_site(tmp_path, pages=2)
    seen = set()

    def first_time(req):       # a file's temporary upload and its direct PUT are one file
        name = re.sub(r"/\.([^/]+)\.dossier-upload$", r"/\1", req.path)
        fresh = name not in seen
        seen.add(name)
        return fresh and not req.path.endswith(".dossier-manifest.json")
    with DavOracle(tmp_path / "srv") as dav:
        rule = dav.rule(method="PUT", when=first_time, action=ack)
        out = publish(run_dossier, site, dav.url + "s/")
        assert rule.fired >= len(tree(site))
        assert out.returncode == 0, out.stderr
        converged(tmp_path / "srv", site)


def test_a_write_that_never_shows_stops_with_exit_1_after_patient_read_backs(run_dossier, tmp_path):
    """"`readBack` … GETs a path until its bytes are the expected ones, at most 6 times,
    pausing 0.1 s before the second look and doubling the pause each time (at most 3.1 s
    in all) …; if it still does not show, the command stops with exit 1"."""
    site = make_site(tmp_path, pages=1)
    with DavOracle(tmp_path / "srv") as dav:
        dav.rule(method="PUT", path=lambda p: p in ("/s/index.html", "/s/.index.html.dossier-upload"), action=ack)
        out = publish(run_dossier, site, dav.url + "s/")
        assert out.returncode == 1, out.stdout + out.stderr
        assert f"{dav.url}s/index.html: the server does not hold this file's bytes under its name" in out.stderr
        gets = [r for r in dav.requests if r.method == "GET" and r.path == "/s/index.html"]
        assert 6 <= len(gets) <= 12, len(gets)
        last = gets[-6:]
        gaps = [b.time - a.time for a, b in zip(last, last[1:])]
        for gap, pause in zip(gaps, (0.1, 0.2, 0.4, 0.8, 1.6)):
            assert gap >= pause - 0.01, gaps
        assert last[-1].time - last[0].time < 3.1 + 2.0, gaps   # no longer than the pauses, plus slack
        assert not (tmp_path / "srv" / "s" / "index.html").exists()


def test_a_lost_answer_to_a_manifest_put_is_recognised_by_its_bytes(run_dossier, tmp_path):
    """"Every 412 on a PUT is therefore checked before it is believed — … the publish
    and sync manifests: the server holding exactly the bytes sent means the answer was
    lost": the dirty marker's and the clean manifest's answers are lost (the retry gets
    412 from the write itself), and the publish still ends 0, converged."""
    site = make_site(tmp_path, pages=2)
    with DavOracle(tmp_path / "srv") as dav:
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
        to_v2(site)
        dav.clear()
        count = []   # the marker (1st); the clean manifest (3rd: after the marker's retry)
        dav.rule(method="PUT", path=".dossier-manifest.json", action=lose,
                 when=lambda r: count.append(r) or len(count) in (1, 3))
        out = publish(run_dossier, site, dav.url + "s/")
        manifest_puts = [r.status for r in dav.requests if r.method == "PUT" and "manifest" in r.path]
        assert manifest_puts.count(412) == 2, manifest_puts
        assert out.returncode == 0, out.stderr
        converged(tmp_path / "srv", site)


def _popen_publish(dossier_bin, site, url):
    env = dict(os.environ, **dav_env())
    return subprocess.Popen([dossier_bin, "publish", "--site", str(site), "--to", url], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)


def test_two_publishers_the_conditional_marker_lets_only_one_win(run_dossier, dossier_bin, tmp_path):
    """"`If-Match: "<etag>"` and `If-None-Match: *` on PUT … are honoured: 412 when they
    do not hold, nothing changed"; "a conditional write … is checked against the latest
    state …, so the lease and the manifests' compare-and-swap hold": A is held before
    its first PUT while B publishes another site; A then changes nothing, and A's plain
    re-run converges."""
    site_a = make_site(tmp_path / "a", pages=2)
    site_b = make_site(tmp_path / "b", pages=3)
    (site_b / "index.html").write_text("<h1>B's site</h1>\n")
    write_manifest(site_b)
    with DavOracle(tmp_path / "srv") as dav:
        gate = dav.rule(method="PUT", nth=1, action=hold)
        a = _popen_publish(dossier_bin, site_a, dav.url + "s/")
        assert gate.arrived.wait(60)
        b = publish(run_dossier, site_b, dav.url + "s/")
        assert b.returncode == 0, b.stderr
        gate.release.set()
        out, err = a.communicate(timeout=120)
        assert a.returncode == 1, out + err
        assert "nothing was changed" in err
        converged(tmp_path / "srv", site_b)
        again = publish(run_dossier, site_a, dav.url + "s/")
        assert again.returncode == 0, again.stderr
        converged(tmp_path / "srv", site_a)


def _honour_tagged_if(dav):
    """A MOVE action that waits for the test, then applies the RFC 4918 tagged `If`
    condition on the destination (which wsgidav itself ignores)."""
    def act(o, environ, start_response, req):
        req.rule.arrived.set()
        req.rule.release.wait(60)
        m = re.fullmatch(r'<([^>]+)> \(\["([^"]*)"\]\)', environ.get("HTTP_IF", ""))
        assert m, environ.get("HTTP_IF")
        dest = urllib.parse.unquote(urllib.parse.urlsplit(m.group(1)).path).lstrip("/")
        if dav.etag(dest) != m.group(2):
            return status(412)(o, environ, start_response, req)
        del environ["HTTP_IF"]
        return o.serve(environ, start_response, req)
    return act


def test_a_move_refused_412_by_a_server_honouring_the_tagged_if_is_a_conflict(run_dossier, dossier_bin, tmp_path):
    """"`MOVE` … with a tag also `If: <destination URL> (["<etag>"])` | 201, 204 | 412
    when the server honours the condition": another writer changes the page between
    publish's check and its MOVE; the server answers 412, the other writer's bytes stay,
    the rest is published, exit 1."""
    root = tmp_path / "srv"
    site = make_site(tmp_path, pages=2)
    with DavOracle(root) as dav:
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
        to_v2(site)
        gate = dav.rule(method="MOVE", when=lambda r: "if" in r.headers, action=_honour_tagged_if(dav))
        a = _popen_publish(dossier_bin, site, dav.url + "s/")
        assert gate.arrived.wait(60)
        foreign = b"<h1>edited on the server by a colleague, longer</h1>\n"
        dav.put("s/index.html", foreign)
        gate.release.set()
        out, err = a.communicate(timeout=120)
        assert a.returncode == 1, out + err
        assert [r.status for r in dav.requests if r.method == "MOVE" and "if" in r.headers] == [412]
        assert "were not overwritten: index.html" in out + err
        assert (root / "s" / "index.html").read_bytes() == foreign
        assert (root / "s" / "extra" / "new.txt").read_bytes() == (site / "extra" / "new.txt").read_bytes()
        assert not (root / "s" / "recall" / "p01").exists()


def test_a_conditional_delete_leaves_a_file_another_writer_changed(run_dossier, dossier_bin, tmp_path):
    """"`If-Match` on DELETE [is] honoured: 412 when [it does] not hold, nothing changed":
    a file is rewritten by another writer while publish's DELETE of it is held; the
    server refuses the DELETE, the file stays, publish reports it (exit 1)."""
    root = tmp_path / "srv"
    site = make_site(tmp_path, pages=2)
    with DavOracle(root) as dav:
        assert publish(run_dossier, site, dav.url + "s/").returncode == 0
        to_v2(site)
        gate = dav.rule(method="DELETE", path="/s/recall/p01/data.csv", nth=1,
                        action=hold)
        a = _popen_publish(dossier_bin, site, dav.url + "s/")
        assert gate.arrived.wait(60)
        foreign = b"trial,ms\r\n1,999\r\n2,1000 (a colleague's)\r\n"
        dav.put("s/recall/p01/data.csv", foreign)
        gate.release.set()
        out, err = a.communicate(timeout=120)
        assert a.returncode == 1, out + err
        assert 412 in [r.status for r in dav.requests if r.method == "DELETE"]
        assert (root / "s" / "recall" / "p01" / "data.csv").read_bytes() == foreign
        assert "recall/p01/data.csv" in out + err
        assert tree(root / "s")["index.html"] == (site / "index.html").read_bytes()
