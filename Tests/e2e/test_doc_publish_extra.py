"""`dossier publish` from docs/publish.md and docs/webdav.md alone, third part: a changed file, deletions,
the request count, dry run, --verify, temporary names, names put straight, usage errors, netrc, and the places where
the program and the docs disagree (harness in test_doc_publish.py)."""
import json
import os
import re
import subprocess
import time
import urllib.parse

import pytest

from conftest import dossier_path
from test_doc_publish import (MANIFEST, PASSWORD, USER, Rule, build, dav, first_published,  # noqa: F401
                              folders_of, make_project, method_counts, publish, remote_manifest, server_files,
                              set_static, site_files, site_manifest, stats_line, temp_name, writes, wsgidav_etag)


# MARK: - a changed file

def test_one_changed_file_costs_seven_requests(tmp_path, dav):
    project = first_published(tmp_path, dav)
    old = remote_manifest(dav)
    set_static(project, "sub/b.txt", "bravo, changed\n")
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 0, proc.all
    reqs = dav.reqs(since=mark)
    url, base = dav.url(), "/site/"
    got = [(r.method, r.path, r.headers.get("Depth")) for r in reqs]
    documented = [
        ("GET", base + MANIFEST, None), ("PUT", base + MANIFEST, None),
        ("PUT", base + "sub/.b.txt.dossier-upload", None),
        ("PROPFIND", base + "sub/b.txt", "0"), ("MOVE", base + "sub/.b.txt.dossier-upload", None),
        ("PROPFIND", base + "sub/", "1"), ("PUT", base + MANIFEST, None)]
    # step 7 says the PROPFIND comes "first"; the Read-back list puts it after the content PUT
    assert sorted(got[2:4]) == sorted(documented[2:4])
    assert got[:2] + got[4:] == documented[:2] + documented[4:]
    tag = old["etags"]["sub/b.txt"]
    assert reqs[1].headers.get("If-Match", "").strip('"') == wsgidav_etag_of_manifest_before(reqs, old)
    move = reqs[4]
    assert move.headers.get("Overwrite") == "T"
    assert urllib.parse.unquote(move.headers["Destination"]) == url + "sub/b.txt"
    assert move.headers.get("If") == f'<{url}sub/b.txt> (["{tag}"])'
    assert reqs[6].headers.get("If-Match") == reqs[1].etag
    assert server_files(dav) == site_files(project)
    n = len(site_files(project))
    assert f"1 uploaded (0 new, 1 changed), 0 deleted, {n - 1} unchanged" in proc.stdout
    man = remote_manifest(dav)
    assert man["etags"]["sub/b.txt"] == wsgidav_etag(dav.root / "site/sub/b.txt") != tag


def wsgidav_etag_of_manifest_before(reqs, old):
    """The marker's If-Match names the manifest version read in step 1 (the GET's ETag)."""
    return (reqs[0].etag or "").strip('"')


# MARK: - deletions and the request count

def test_deleted_files_and_folders(tmp_path, dav):
    static = {"a.txt": "alpha\n", "sub/b.txt": "bravo\n", "gone/c.txt": "charlie\n", "keep.txt": "k\n"}
    project = first_published(tmp_path, dav, static=static)
    (dav.root / "site/sub/colleague.txt").write_text("not Dossier's\n")
    (dav.root / "site/notes.txt").write_text("nor this\n")
    tags = remote_manifest(dav)["etags"]
    for name in ("a.txt", "sub/b.txt", "gone/c.txt"):
        (project / "static" / name).unlink()
    build(project)
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 0, proc.all
    reqs = dav.reqs(since=mark)
    deletes = [r for r in reqs if r.method == "DELETE"]
    files = {r.path: r.headers.get("If-Match", "").strip('"') for r in deletes if not r.path.endswith("/")}
    assert files == {"/site/a.txt": tags["a.txt"], "/site/sub/b.txt": tags["sub/b.txt"],
                     "/site/gone/c.txt": tags["gone/c.txt"]}
    for path in files:  # the check before each delete
        i = next(i for i, r in enumerate(reqs) if r.method == "DELETE" and r.path == path)
        assert any(r.method == "PROPFIND" and r.path == path and r.headers.get("Depth") == "0" for r in reqs[:i])
    listed = [r.path for r in reqs if r.method == "PROPFIND" and r.headers.get("Depth") == "1"]
    assert sorted(listed) == ["/site/gone/", "/site/sub/"]
    assert [r.path for r in deletes if r.path.endswith("/")] == ["/site/gone/"]
    assert not (dav.root / "site/gone").exists()
    assert (dav.root / "site/sub/colleague.txt").exists() and (dav.root / "site/notes.txt").exists()
    for name in ("a.txt", "sub/b.txt", "gone/c.txt"):
        assert re.search(rf"^deleted {re.escape(name)}$", proc.stderr, re.M), proc.stderr
    assert "0 uploaded (0 new, 0 changed), 3 deleted" in proc.stdout
    assert reqs[-1].method == "PUT" and reqs[-1].path == "/site/" + MANIFEST
    assert remote_manifest(dav)["files"] == site_manifest(project)["files"]


def test_request_count_formula(tmp_path, dav):
    """1 + 1 + 3c + 2n + f + 2d + 1, no folder changes (docs/publish.md, Read-back)."""
    static = {"a.txt": "a\n", "b.txt": "b\n", "sub/c.txt": "c\n", "sub/d.txt": "d\n"}
    project = first_published(tmp_path, dav, static=static)
    set_static(project, "a.txt", "a2\n")
    set_static(project, "sub/c.txt", "c2\n")
    set_static(project, "sub/new.txt", "new\n")
    set_static(project, "b.txt", None)
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 0, proc.all
    c, n, f, d = 2, 1, 2, 1
    reqs = dav.reqs(since=mark)
    assert len(reqs) == 1 + 1 + 3 * c + 2 * n + f + 2 * d + 1, reqs
    assert stats_line(proc.stdout) == method_counts(reqs)
    assert server_files(dav) == site_files(project)


# MARK: - dry run and --verify

def test_dry_run_writes_nothing_and_lists_the_plan(tmp_path, dav):
    project = first_published(tmp_path, dav)
    before = server_files(dav)
    manifest_before = (dav.root / "site" / MANIFEST).read_bytes()
    set_static(project, "a.txt", "alpha two\n")
    set_static(project, "new.txt", "new\n")
    set_static(project, "sub/b.txt", None)
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url(), "--dry-run")
    assert proc.returncode == 0, proc.all
    reqs = dav.reqs(since=mark)
    assert not writes(reqs) and [r.method for r in reqs] == ["GET"]
    n = len(site_files(project))
    assert f"dry run: 2 to upload (1 new, 1 changed), 1 to delete, {n - 2} unchanged" in proc.stdout
    lines = set(proc.stdout.splitlines())
    assert {"  changed a.txt", "  new     new.txt", "  delete  sub/b.txt"} <= lines, proc.stdout
    assert server_files(dav) == before and (dav.root / "site" / MANIFEST).read_bytes() == manifest_before
    assert not list((project / ".dossier" / "publish").glob("*.journal"))


def edit_server_for_verify(dav):
    (dav.root / "site/a.txt").write_text("edited on the server\n")
    (dav.root / "site/sub/b.txt").unlink()
    (dav.root / "site/extra.txt").write_text("extra\n")


@pytest.mark.parametrize("dry", [False, True], ids=["repair", "dry-run"])
def test_verify_reports_and_repairs(tmp_path, dav, dry):
    project = first_published(tmp_path, dav)
    edit_server_for_verify(dav)
    before = server_files(dav)
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url(), "--verify", *(["--dry-run"] if dry else []))
    assert proc.returncode == 0, proc.all
    n = len(site_files(project))
    assert re.search(rf"checked {n} file\(s\) on the server \(2 read to compare contents\): 3 difference\(s\)",
                     proc.all), proc.all
    lines = {line.lstrip(" ") for line in proc.all.splitlines()}
    assert {"differs a.txt", "missing sub/b.txt", "extra   extra.txt"} <= lines, proc.all
    reqs = dav.reqs(since=mark)
    listed = sorted(r.path for r in reqs if r.method == "PROPFIND" and r.headers.get("Depth") == "1")
    assert set(listed) >= {"/site/", "/site/sub/", "/site/css/", "/site/about/"}
    gets = sorted(r.path for r in reqs if r.method == "GET" and not r.path.endswith(MANIFEST))
    assert gets == ["/site/a.txt", "/site/extra.txt"]
    if dry:
        assert not writes(reqs) and server_files(dav) == before
    else:
        assert server_files(dav) == site_files(project)
        man = remote_manifest(dav)
        assert "dirty" not in man and man["files"] == site_manifest(project)["files"]


def test_verify_of_an_unchanged_server_only_lists(tmp_path, dav):
    project = first_published(tmp_path, dav)
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url(), "--verify")
    assert proc.returncode == 0, proc.all
    reqs = dav.reqs(since=mark)
    assert reqs[0].method == "GET" and not writes(reqs)
    folders = {"/site/"} | {f"/site/{f}/" for f in folders_of(site_files(project))}
    assert sorted(r.path for r in reqs[1:]) == sorted(folders)
    assert all(r.method == "PROPFIND" and r.headers.get("Depth") == "1" for r in reqs[1:])
    n = len(site_files(project))
    assert f"checked {n} file(s) on the server (0 read to compare contents): 0 difference(s)" in proc.all


def test_one_changed_file_documented_order(tmp_path, dav):
    project = first_published(tmp_path, dav)
    set_static(project, "a.txt", "alpha, changed\n")
    mark = len(dav.log)
    assert publish(tmp_path, project, dav.url()).returncode == 0
    reqs = dav.reqs(since=mark)
    assert [r.method for r in reqs] == ["GET", "PUT", "PROPFIND", "PUT", "MOVE", "PROPFIND", "PUT"]


def test_machine_id_is_kept_under_home(tmp_path, dav):
    project = make_project(tmp_path / "proj")
    assert publish(tmp_path, project, dav.url()).returncode == 0
    marker = next(r for r in dav.log if r.body and b'"dirty"' in r.body)
    machine = json.loads(marker.body)["lease"]["machine"]
    assert (tmp_path / "home" / ".dossier" / "machine-id").read_text().strip() == machine


@pytest.mark.parametrize("length", [84, 85, 250])
def test_temporary_names_of_long_names(tmp_path, dav, length):
    name = "n" * (length - 4) + ".txt"
    project = make_project(tmp_path / "proj", static={name: "long\n"})
    assert publish(tmp_path, project, dav.url()).returncode == 0
    put = [r.path for r in dav.log if r.method == "PUT" and r.path.endswith(".dossier-upload")]
    assert "/site/" + temp_name(name) in put
    assert len(temp_name(name).encode()) == (100 if length == 84 else 32)
    assert server_files(dav) == site_files(project)


def test_a_name_with_a_question_mark_is_put_straight_with_if_match(tmp_path, dav):
    project = first_published(tmp_path, dav, static={"q?x.txt": "q\n", "a.txt": "a\n"})
    tag = remote_manifest(dav)["etags"]["q?x.txt"]
    set_static(project, "q?x.txt", "q2\n")
    mark = len(dav.log)
    assert publish(tmp_path, project, dav.url()).returncode == 0
    reqs = dav.reqs(since=mark)
    assert not [r for r in reqs if r.method == "MOVE"]
    put = [r for r in reqs if r.method == "PUT" and r.path == "/site/q?x.txt"]
    assert len(put) == 1 and put[0].raw == "/site/q%3Fx.txt" and put[0].headers.get("If-Match").strip('"') == tag
    assert server_files(dav) == site_files(project)


@pytest.mark.parametrize("args", [["--jobs", "0"], ["--jobs", "17"], []], ids=["jobs-0", "jobs-17", "no-to"])
def test_usage_errors_exit_2(tmp_path, dav, args):
    project = make_project(tmp_path / "proj")
    full = [dossier_path(), "publish", str(project), *args] + (["--to", dav.url()] if args else [])
    proc = subprocess.run(full, capture_output=True, text=True, env={**os.environ, "DOSSIER_WEBDAV_PASSWORD": "x"})
    assert proc.returncode == 2 and dav.log == []


def test_a_netrc_in_home_is_read(tmp_path, dav):
    project = make_project(tmp_path / "proj")
    (tmp_path / "home").mkdir()
    netrc = tmp_path / "home" / ".netrc"
    netrc.write_text(f"machine 127.0.0.1 login {USER} password {PASSWORD}\n")
    netrc.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_WEBDAV") and k != "NETRC"}
    env["HOME"] = str(tmp_path / "home")
    proc = subprocess.run([dossier_path(), "publish", str(project), "--to", dav.url()], capture_output=True,
                          text=True, env=env, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert server_files(dav) == site_files(project)
