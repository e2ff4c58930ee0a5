"""`dossier publish` under faults and foreign changes, against a real wsgidav server.

The fault harness uses the debug-build switch DOSSIER_FAULT_AT=N (Sources/WebDAV/
FaultPoint.swift): the Nth write (PUT, MKCOL, MOVE, DELETE) kills the process (`kill`)
or fails (`fail`). After each, the next publish must leave the server equal to the local
site file by file — also when the site was reverted in between.
"""
import contextlib
import json
import os
import pathlib
import shutil
import subprocess

from webdav_server import PASSWORD, USER, WebDAVServer, make_site, tree, write_manifest

KILLED = 86


def publish(dossier_bin, site, url, *extra, fault=None, check=True):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_FAULT")}
    env.update({"DOSSIER_WEBDAV_PASSWORD": PASSWORD, "DOSSIER_WEBDAV_USER": USER})
    if fault:
        env["DOSSIER_FAULT_AT"], env["DOSSIER_FAULT_MODE"] = str(fault[0]), fault[1]
    p = subprocess.run([dossier_bin, "publish", "--site", str(site), "--to", url, *extra], env=env,
                       capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    if check and p.returncode != 0:
        raise AssertionError(f"publish exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


@contextlib.contextmanager
def published(dossier_bin, site, srv, faults=None):
    """A WebDAV server on `srv` (with the fault rules `faults`) with `site` published
    into its folder s/: yields (server, url of s/)."""
    with WebDAVServer(srv, faults=faults) as dav:
        url = dav.url + "s/"
        publish(dossier_bin, site, url)
        yield dav, url


def two_versions(tmp_path):
    """Site v1 and v2 (3 pages changed, 2 added one in a new folder, a folder removed)."""
    v1 = make_site(tmp_path / "one", pages=4)
    v2 = tmp_path / "two" / "_site"
    shutil.copytree(v1, v2)
    for i in (0, 1):
        (v2 / "recall" / f"p{i:02d}" / "index.html").write_text(f"<h1>Participant {i}, v2</h1>\n")
    (v2 / "index.html").write_text("<h1>Study v2</h1>\n")
    (v2 / "new").mkdir()
    (v2 / "new" / "page.html").write_text("<p>new</p>\n")
    (v2 / "assets" / "extra.css").write_text("p { margin: 0 }\n")
    shutil.rmtree(v2 / "recall" / "p03")
    write_manifest(v2)
    return v1, v2


def assert_published(remote: pathlib.Path, site: pathlib.Path):
    assert tree(remote) == tree(site)
    assert not [p for p in remote.rglob("*") if p.name.endswith(".dossier-upload")]
    m = json.loads((remote / ".dossier-manifest.json").read_text())
    assert "dirty" not in m
    assert m["files"] == json.loads((site.parent / "_site.manifest.json").read_text())["files"]


def test_a_fault_at_every_write_point_then_the_next_publish_converges(dossier_bin, tmp_path):
    v1, v2 = two_versions(tmp_path)
    root = tmp_path / "srv"
    base = tmp_path / "base"
    with published(dossier_bin, v1, root) as (dav, url):
        shutil.copytree(root / "s", base)
        hits = {}
        for mode in ("kill", "fail"):
            for then in (v2, v1):          # finish the same site, or a reverted one
                n = 0
                while True:
                    n += 1
                    shutil.rmtree(root / "s")
                    shutil.copytree(base, root / "s")
                    for journal in (v1.parent / ".dossier", v2.parent / ".dossier"):
                        shutil.rmtree(journal, ignore_errors=True)
                    p = publish(dossier_bin, v2, url, "--jobs", "1", fault=(n, mode), check=False)
                    if "fault injected" not in p.stderr:
                        assert p.returncode == 0, p.stderr
                        break
                    assert p.returncode == KILLED if mode == "kill" else p.returncode in (0, 1), p.stderr
                    hits[mode] = n
                    # The v2 publish and the next one share their journal folder when
                    # `then` is v2 (same parent); a reverted v1 starts without it.
                    again = publish(dossier_bin, then, url)
                    assert_published(root / "s", then)
                    # And a further publish has nothing to do.
                    dav.clear_log()
                    publish(dossier_bin, then, url)
                    assert [m for m, _ in dav.requests()] == ["GET"], (mode, n, again.stdout)
        # dirty marker, MKCOL, 5 files × (PUT + MOVE), 2 DELETEs + folder, final manifest
        assert hits["kill"] >= 14 and hits["fail"] >= 14, hits


def test_someone_elses_edit_is_not_overwritten_and_verify_repairs(dossier_bin, tmp_path):
    v1, v2 = two_versions(tmp_path)
    root = tmp_path / "srv"
    with published(dossier_bin, v1, root) as (dav, url):
        remote = root / "s"
        # Someone edits a page on the server that v2 also changes.
        theirs = "<h1>edited on the server</h1>\n"
        (remote / "recall" / "p00" / "index.html").write_text(theirs)
        out = publish(dossier_bin, v2, url, check=False)
        assert out.returncode == 1
        assert "not overwritten" in out.stderr and "recall/p00/index.html" in out.stderr
        assert (remote / "recall" / "p00" / "index.html").read_text() == theirs
        assert (remote / "new" / "page.html").exists()          # the rest went out
        # Asked again, still not overwritten.
        assert publish(dossier_bin, v2, url, check=False).returncode == 1
        assert (remote / "recall" / "p00" / "index.html").read_text() == theirs
        # --verify makes the server equal to the site.
        fixed = publish(dossier_bin, v2, url, "--verify")
        assert "differs recall/p00/index.html" in fixed.stdout
        assert_published(remote, v2)


def test_verify_finds_and_repairs_what_a_plain_publish_cannot_see(dossier_bin, tmp_path):
    site = make_site(tmp_path, pages=3)
    root = tmp_path / "srv"
    with published(dossier_bin, site, root) as (dav, url):
        remote = root / "s"
        (remote / "recall" / "p01" / "data.csv").write_text("tampered\n")
        (remote / "recall" / "p02" / "index.html").unlink()
        (remote / "orphan.html").write_text("<p>left over</p>\n")
        dav.clear_log()
        plain = publish(dossier_bin, site, url)
        assert [m for m, _ in dav.requests()] == ["GET"]      # trusts its manifest
        report = publish(dossier_bin, site, url, "--verify", "--dry-run")
        assert "3 difference(s)" in report.stdout
        for line in ("differs recall/p01/data.csv", "missing recall/p02/index.html", "extra   orphan.html"):
            assert line in report.stdout, report.stdout
        assert (remote / "orphan.html").exists()               # a dry run changes nothing
        publish(dossier_bin, site, url, "--verify")
        assert_published(remote, site)
        again = publish(dossier_bin, site, url, "--verify")
        assert "0 difference(s)" in again.stdout and "0 uploaded" in again.stdout
        del plain


def test_names_with_question_mark_and_semicolon_arrive_whole(dossier_bin, tmp_path):
    site = make_site(tmp_path, pages=1)
    (site / "q?a;b.html").write_text("<p>odd name</p>\n")
    (site / "r;s").mkdir()
    (site / "r;s" / "t?.txt").write_text("odd folder\n")
    write_manifest(site)
    root = tmp_path / "srv"
    with WebDAVServer(root) as dav:
        publish(dossier_bin, site, dav.url + "s/")
        assert_published(root / "s", site)
        (site / "q?a;b.html").write_text("<p>odd name, changed</p>\n")
        write_manifest(site)
        publish(dossier_bin, site, dav.url + "s/")
        assert_published(root / "s", site)


def test_missing_parent_folders_of_the_target_are_created(dossier_bin, tmp_path):
    site = make_site(tmp_path, pages=1)
    root = tmp_path / "srv"
    with WebDAVServer(root) as dav:
        publish(dossier_bin, site, dav.url + "a/b/c/")
        assert_published(root / "a" / "b" / "c", site)
