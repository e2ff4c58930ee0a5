"""`dossier publish` decides by content, never by size (issue #42).

A 412 after a cut upload, a MOVE answered 404, a write acknowledged but not stored: each
is read back from the server (GET and SHA-256) before publish calls the file placed or
someone else's change. Each test failed before the fix its doc names.
"""
import json
import shutil

from test_publish_cut import rules, verify_finds_nothing
from test_publish_faults import assert_published, publish, published
from webdav_server import WebDAVServer, make_site, write_manifest

ODD = "odd;name.html"     # a name publish PUTs straight to (a MOVE would mangle it)


def sites(tmp_path, same_size=False):
    """v1 and v2 of a small site: v2 changes ODD and one page (of equal size when
    `same_size`, so a check by size cannot tell them apart)."""
    v1 = make_site(tmp_path / "one", pages=2)
    (v1 / ODD).write_text("<p>first</p>\n" + "a" * 4000)
    write_manifest(v1)
    v2 = tmp_path / "two" / "_site"
    shutil.copytree(v1, v2)
    (v2 / ODD).write_text("<p>second</p>\n" + "b" * 4000)
    page = v2 / "recall" / "p00" / "index.html"
    old = page.read_text()
    page.write_text(old.upper() if same_size else old + "<p>v2</p>\n")
    write_manifest(v2)
    return v1, v2


def test_a_cut_direct_put_answered_412_on_its_retry_completes(dossier_bin, tmp_path):
    """Before: the retried PUT got 412 (the server kept the cut body), publish reported
    "changed on the server since the last publish", exit 1, and again on every re-run."""
    v1, v2 = sites(tmp_path)
    faults = rules(tmp_path / "f.json")
    srv = tmp_path / "srv"
    with published(dossier_bin, v1, srv, faults=faults) as (dav, url):
        rules(faults, {"method": "PUT", "path": ODD, "fault": "cut", "offset": 200, "times": 1})
        p = publish(dossier_bin, v2, url, check=False)
        assert [k for _, _, k in dav.faults_fired()] == ["cut"]
        assert p.returncode == 0, p.stderr
        assert_published(srv / "s", v2)
        verify_finds_nothing(dossier_bin, v2, url)


EDITED = (ODD, "recall/p00/index.html")


def after_server_edit(dossier_bin, tmp_path, edit):
    """Publishes v1, calls edit(v2's file, the server's file) for each of EDITED, then
    publishes v2; returns that run and the server's folder."""
    v1, v2 = sites(tmp_path)
    srv = tmp_path / "srv"
    with WebDAVServer(srv) as dav:
        publish(dossier_bin, v1, dav.url + "s/")
        for name in EDITED:
            edit(v2 / name, srv / "s" / name)
        return publish(dossier_bin, v2, dav.url + "s/", check=False), srv / "s", v2


def test_a_file_already_holding_the_sites_bytes_is_not_a_conflict(dossier_bin, tmp_path):
    """Before: a plain publish compared the server's bytes only with the last-published
    hash, so the site's own bytes (an earlier attempt's) were "changed on the server"."""
    p, folder, v2 = after_server_edit(dossier_bin, tmp_path, shutil.copy)
    assert p.returncode == 0, p.stderr
    assert_published(folder, v2)


def test_a_real_foreign_change_is_refused_and_the_advice_names_what_verify_deletes(dossier_bin, tmp_path):
    theirs = "<p>a colleague's edit</p>\n"
    p, folder, _ = after_server_edit(dossier_bin, tmp_path, lambda mine, there: there.write_text(theirs))
    assert p.returncode == 1, p.stderr
    assert "2 file(s) changed on the server" in p.stderr and ODD in p.stderr
    assert "deletes every file in that folder that the site does not have" in p.stderr, p.stderr
    for name in EDITED:
        assert (folder / name).read_text() == theirs


def publish_v2_with(dossier_bin, tmp_path, rule):
    """Publishes v1, then v2 (a page of the same size changed) with `rule` in force;
    returns the server's folder and the requests of the second publish."""
    v1, v2 = sites(tmp_path, same_size=True)
    faults = rules(tmp_path / "f.json")
    srv = tmp_path / "srv"
    with published(dossier_bin, v1, srv, faults=faults) as (dav, url):
        rules(faults, rule)
        dav.clear_log()
        publish(dossier_bin, v2, url)
        assert [k for _, _, k in dav.faults_fired()] == [rule["fault"]]
        assert_published(srv / "s", v2)
        return srv / "s", dav.requests()


def test_a_move_answered_404_after_a_dropped_upload_is_read_back(dossier_bin, tmp_path):
    """Before: the temporary upload was acknowledged but not stored, the MOVE answered
    404 with no temporary file left, and the old page (of the same size) passed the
    size check: exit 0 with the old bytes on the server."""
    publish_v2_with(dossier_bin, tmp_path, {"method": "PUT", "path": "p00/.index.html", "fault": "ack", "times": 1})


def test_a_lost_move_answer_is_confirmed_by_content(dossier_bin, tmp_path):
    folder, requests = publish_v2_with(dossier_bin, tmp_path,
                                       {"method": "MOVE", "path": "p00/.index.html", "fault": "lose", "times": 1})
    assert any(m == "GET" and p.endswith("p00/index.html") for m, p in requests), requests
    m = json.loads((folder / ".dossier-manifest.json").read_text())
    assert "recall/p00/index.html" in m["etags"]
