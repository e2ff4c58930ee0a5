"""More of `dossier publish` re-implemented from docs/publish.md and docs/webdav.md alone:
conflicts, the lease, an interrupted publish resumed, refusals and their messages,
credentials, server faults and read-back (harness in test_doc_publish.py)."""
import json
import os
import re
import signal

import pytest

from test_doc_publish import (MANIFEST, PASSWORD, USER, Rule, build, dav, finish, first_published, hold,  # noqa: F401
                              make_project, publish, remote_manifest, server_files, set_static, site_files,
                              site_manifest, start_publish, temp_name, upload_order, writes, wsgidav_etag)

ADVICE = ("changed on the server since the last publish were not overwritten: {paths} — they were left as they are. "
          "To replace them with the site's files, run `dossier publish --verify`: it also deletes every file in that "
          "folder that the site does not have (a colleague's included); `dossier publish --verify --dry-run` lists "
          "those first")


# MARK: - files someone else changed

@pytest.mark.parametrize("case", ["foreign-edit", "site-bytes", "restored-backup", "deleted-but-edited"])
def test_a_file_changed_on_the_server(tmp_path, dav, case):
    project = first_published(tmp_path, dav)
    old = remote_manifest(dav)
    target = dav.root / "site/a.txt"
    published = target.read_bytes()
    if case == "deleted-but-edited":
        set_static(project, "a.txt", None)
    else:
        set_static(project, "a.txt", "alpha, new in the site\n")
    set_static(project, "more.txt", "more\n")
    if case == "foreign-edit" or case == "deleted-but-edited":
        target.write_text("a colleague's edit\n")
    elif case == "site-bytes":
        target.write_bytes(site_files(project)["a.txt"])
    else:  # a restored backup: the bytes published last under a new inode (a new tag)
        target.unlink()
        target.write_bytes(published)
        os.utime(target, (1_000_000_000, 1_000_000_000))
    assert wsgidav_etag(target) != old["etags"]["a.txt"]
    server_bytes = target.read_bytes()
    proc = publish(tmp_path, project, dav.url())
    assert (dav.root / "site/more.txt").read_text() == "more\n"
    man = remote_manifest(dav)
    assert "dirty" not in man
    if case in ("foreign-edit", "deleted-but-edited"):
        assert proc.returncode == 1, proc.all
        assert "1 file(s) " + ADVICE.format(paths="a.txt") in proc.all
        assert target.read_bytes() == server_bytes
        entry = next(e for e in man["files"] if e["path"] == "a.txt")
        assert entry == next(e for e in old["files"] if e["path"] == "a.txt")
        assert man["etags"]["a.txt"] == old["etags"]["a.txt"]
        again = publish(tmp_path, project, dav.url())
        assert again.returncode == 1 and "1 file(s) " + ADVICE.format(paths="a.txt") in again.all
    else:
        assert proc.returncode == 0, proc.all
        assert server_files(dav) == site_files(project)
        assert man["etags"]["a.txt"] == wsgidav_etag(target)


# MARK: - the lease and two publishers

def test_a_held_lease_stops_a_second_publish(tmp_path, dav):
    project = first_published(tmp_path, dav)
    set_static(project, "a.txt", "alpha 2\n")
    rule = hold(dav, lambda r: r.host == "127.0.0.1" and r.method == "PUT" and r.path.endswith("dossier-upload"))
    first = start_publish(tmp_path, project, dav.url())
    assert rule.arrived.wait(30)
    marker = json.loads((dav.root / "site" / MANIFEST).read_text())
    lease = marker["lease"]
    mark = len(dav.log)
    second = publish(tmp_path, project, dav.url(host="localhost"))
    assert second.returncode == 1
    assert re.search(r"\S+: another publish is changing this folder \(publish " + lease["id"]
                     + rf" \(process {first.pid} on this machine\), its lease ending .+\); nothing was changed — run "
                     r"`dossier publish` again when it has finished", second.all), second.all
    assert [r.method for r in dav.reqs(host="localhost", since=mark)] == ["GET"]
    rule.release.set()
    rc, out = finish(first)
    assert rc == 0, out
    assert server_files(dav) == site_files(project)


@pytest.mark.parametrize("winner", ["finished", "running"])
def test_two_publishers_that_read_the_same_version(tmp_path, dav, winner):
    project = first_published(tmp_path, dav)
    other = make_project(tmp_path / "other", static={"a.txt": "other site\n"})
    set_static(project, "a.txt", "site A\n")
    rule_a = hold(dav, lambda r: r.host == "127.0.0.1" and r.method == "PUT" and r.path.endswith(MANIFEST))
    a = start_publish(tmp_path, project, dav.url())
    assert rule_a.arrived.wait(30)
    rule_b = hold(dav, lambda r: r.host == "localhost" and r.path.endswith("dossier-upload"))
    b = start_publish(tmp_path, other, dav.url(host="localhost"))
    if winner == "finished":
        rule_b.release.set()
        rc_b, out_b = finish(b)
        assert rc_b == 0, out_b
    else:
        assert rule_b.arrived.wait(30)
    server_before = server_files(dav, keep_temp=True)
    mark = len(dav.log)
    rule_a.release.set()
    rc_a, out_a = finish(a)
    assert rc_a == 1, out_a
    assert not writes(dav.reqs(host="127.0.0.1", since=mark)[1:])
    if winner == "finished":
        assert "the published site changed on the server during this publish (another publish at the same time?); " \
               "nothing was changed" in out_a
        assert server_files(dav, keep_temp=True) == server_before == site_files(other)
    else:
        lease = remote_manifest(dav)["lease"]
        assert f"another publish is changing this folder (publish {lease['id']} (process {b.pid}" in out_a, out_a
        rule_b.release.set()
        assert finish(b)[0] == 0
        assert server_files(dav) == site_files(other)
    again = publish(tmp_path, project, dav.url())
    assert again.returncode == 0, again.all
    assert server_files(dav) == site_files(project)


# MARK: - an interrupted publish

def test_a_killed_publish_is_resumed_reading_only_unconfirmed_files(tmp_path, dav):
    static = {f"f{i:03d}.txt": f"file {i}\n" for i in range(110)}
    project = make_project(tmp_path / "proj", static=static, pages={"index": "Home"})
    rule = hold(dav, lambda r: r.method == "PUT" and r.path == "/site/" + temp_name("f103.txt"))
    first = start_publish(tmp_path, project, dav.url(), "--jobs", "1")
    assert rule.arrived.wait(60)
    journal = list((project / ".dossier" / "publish").glob("*.journal"))
    assert len(journal) == 1
    lines = [line.split("\t") for line in journal[0].read_text().splitlines()]
    assert lines[0][0] == "base"
    owned = {line[1] for line in lines if line[0] == "owned"}
    assert owned >= set(site_files(project))
    done = {line[1] for line in lines if line[0] == "done"}
    assert done == set(upload_order(site_files(project))[:100])
    marker = remote_manifest(dav)
    assert marker["dirty"] is True and marker["lease"]["pid"] == first.pid
    first.send_signal(signal.SIGKILL)
    first.wait(30)
    rule.release.set()
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 0, proc.all
    assert server_files(dav) == site_files(project)
    assert not [p for p in (dav.root / "site").rglob("*") if p.name.endswith(".dossier-upload")]
    man = remote_manifest(dav)
    assert "dirty" not in man and man["files"] == site_manifest(project)["files"]
    gets = [r.path for r in dav.reqs(since=mark) if r.method == "GET" and not r.path.endswith(MANIFEST)]
    confirmed = {"/site/" + p for p in upload_order(site_files(project))[:100]}
    assert len(gets) <= 10 and not confirmed & set(gets), gets
    m = re.search(r"(\d+) already in place", proc.all)
    assert m and int(m.group(1)) >= 100, proc.all
    assert not list((project / ".dossier" / "publish").glob("*.journal"))


def test_a_cut_manifest_is_read_as_dirty(tmp_path, dav):
    project = first_published(tmp_path, dav)
    (dav.root / "site" / MANIFEST).write_text('{\n  "dossier": "0.1')
    (dav.root / "site/notes.txt").write_text("a colleague's file\n")
    set_static(project, "a.txt", "changed\n")
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 0, proc.all
    assert re.search(r"\S+: the manifest on the server was cut short by an interrupted upload; checking what the "
                     r"server holds", proc.stderr), proc.stderr
    assert "dirty" not in remote_manifest(dav)
    files = server_files(dav)
    assert files.pop("notes.txt") == b"a colleague's file\n" and files == site_files(project)


def test_an_undecodable_manifest_is_refused(tmp_path, dav):
    project = first_published(tmp_path, dav)
    (dav.root / "site" / MANIFEST).write_text("not json at all\n")
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 1, proc.all
    assert not writes(dav.reqs(since=mark))


def marker_from(dav, **members):
    doc = remote_manifest(dav)
    doc.update(members)
    (dav.root / "site" / MANIFEST).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")


@pytest.mark.parametrize("lease", ["not-an-object", "bad-expires"])
def test_a_lease_that_cannot_be_read_holds(tmp_path, dav, lease):
    project = first_published(tmp_path, dav)
    value = "x" if lease == "not-an-object" else {"expires": "soon", "id": "0123456789abcdef",
                                                   "machine": "0" * 32, "pid": 1}
    marker_from(dav, dirty=True, lease=value)
    set_static(project, "a.txt", "changed\n")
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 1
    assert re.search(re.escape(dav.url() + MANIFEST) + r": another publish may be changing this folder \(the manifest "
                     r"is marked as being changed, and .+, so when its lease ends cannot be told\); nothing was changed"
                     r" — run `dossier publish` again when it has finished; if no publish is running, delete "
                     r"`\.dossier-manifest\.json` on the server and run `dossier publish --verify`", proc.all), proc.all
    assert not writes(dav.reqs(since=mark))


@pytest.mark.parametrize("lease", ["expired", "live-elsewhere", "dead-process-here"])
def test_leases_that_are_taken_over_or_not(tmp_path, dav, lease):
    project = first_published(tmp_path, dav)
    first_marker = next(r for r in dav.log if r.body and b'"dirty"' in r.body)
    machine = json.loads(first_marker.body)["lease"]["machine"]
    dead = 2 ** 22 + 12345
    value = {"expired": {"expires": "2001-01-01T00:00:00Z", "id": "00000000000000aa", "machine": "1" * 32, "pid": 1},
             "live-elsewhere": {"expires": "2999-01-01T00:00:00Z", "id": "00000000000000bb", "machine": "1" * 32,
                                "pid": os.getpid()},
             "dead-process-here": {"expires": "2999-01-01T00:00:00Z", "id": "00000000000000cc", "machine": machine,
                                   "pid": dead}}[lease]
    marker_from(dav, dirty=True, lease=value)
    set_static(project, "a.txt", "changed\n")
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url())
    if lease == "live-elsewhere":
        assert proc.returncode == 1 and "another publish is changing this folder (publish 00000000000000bb" in proc.all
        assert not writes(dav.reqs(since=mark))
    else:
        assert proc.returncode == 0, proc.all
        assert server_files(dav) == site_files(project) and "dirty" not in remote_manifest(dav)


def test_a_dirty_marker_deletes_only_owned_files(tmp_path, dav):
    project = first_published(tmp_path, dav)
    (dav.root / "site/colleague.txt").write_text("theirs\n")
    (dav.root / "site/pending.txt").write_text("left by an unfinished run\n")
    marker_from(dav, dirty=True, pending=["pending.txt"])
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 0, proc.all
    files = server_files(dav)
    assert files.pop("colleague.txt") == b"theirs\n" and files == site_files(project)


def test_a_manifest_of_an_earlier_version_is_clean_without_tags(tmp_path, dav):
    project = first_published(tmp_path, dav)
    doc = remote_manifest(dav)
    (dav.root / "site" / MANIFEST).write_text(json.dumps({"dossier": doc["dossier"], "files": doc["files"]}))
    mark = len(dav.log)
    assert publish(tmp_path, project, dav.url()).returncode == 0
    assert [r.method for r in dav.reqs(since=mark)] == ["GET"]
    set_static(project, "a.txt", "changed\n")
    mark = len(dav.log)
    assert publish(tmp_path, project, dav.url()).returncode == 0
    reqs = dav.reqs(since=mark)
    move = next(r for r in reqs if r.method == "MOVE")
    assert "If" not in move.headers and not [r for r in reqs if r.headers.get("Depth") == "0"]
    assert server_files(dav) == site_files(project)


# MARK: - refusals, credentials and faults

def test_a_private_site_is_refused_before_any_request(tmp_path, dav):
    project = make_project(tmp_path / "proj", static={"PRIVATE-SITE.txt": "private\n", "a.txt": "a\n"})
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 1 and "this is a private site" in proc.all and dav.log == []
    assert publish(tmp_path, project, dav.url(), "--force-private").returncode == 0
    assert server_files(dav) == site_files(project)


def test_a_site_edited_after_its_build_is_not_sent(tmp_path, dav):
    project = first_published(tmp_path, dav)
    set_static(project, "a.txt", "built\n")
    (project / "_site/a.txt").write_text("edited after the build\n")
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 1
    assert "changed since the site manifest was written; rebuild the site" in proc.all
    assert b"edited after" not in b"".join(server_files(dav, keep_temp=True).values())


def test_rebuilding_as_advised_clears_the_refusal(tmp_path, dav):
    project = first_published(tmp_path, dav)
    set_static(project, "a.txt", "built\n")
    (project / "_site/a.txt").write_text("edited after the build\n")
    refused = publish(tmp_path, project, dav.url())
    assert refused.returncode == 1
    assert "rebuild the site (dossier build --clean: a build keeps a file edited by hand)" in refused.all
    build(project, "--clean")   # the advice, as docs/publish.md "Inputs" gives it
    again = publish(tmp_path, project, dav.url())
    assert again.returncode == 0, again.all
    assert server_files(dav) == site_files(project)


def test_a_server_that_refuses_the_password(tmp_path, dav):
    dav.password = "another password"
    project = make_project(tmp_path / "proj")
    proc = publish(tmp_path, project, dav.url(), "--verbose")
    assert proc.returncode == 1
    assert [r.method for r in dav.log] == ["GET"]
    assert re.search(r"http://127\.0\.0\.1:\d+/site/\S*: the server rejected the user name or password \(HTTP 401\); "
                     r"check the credentials", proc.all), proc.all
    assert PASSWORD not in proc.all and not (dav.root / "site").exists()


@pytest.mark.parametrize("how", ["verbose", "url-password", "error-507"])
def test_credentials_are_never_printed(tmp_path, dav, how):
    project = make_project(tmp_path / "proj")
    if how == "url-password":
        url = dav.url().replace("http://", f"http://{USER}:{PASSWORD}@")
        proc = publish(tmp_path, project, url)
        assert proc.returncode != 0 and dav.log == []
    elif how == "error-507":
        dav.rules.append(Rule(lambda r: r.method == "PUT" and r.path.endswith("dossier-upload"), "status", 507))
        proc = publish(tmp_path, project, dav.url(), "--verbose")
        assert proc.returncode == 1 and "the server is out of space (HTTP 507)" in proc.all
    else:
        proc = publish(tmp_path, project, dav.url(), "--verbose")
        assert proc.returncode == 0
        logged = re.findall(r"^(GET|PUT|MOVE|MKCOL|PROPFIND|DELETE) (http\S+) → (\d{3})", proc.stderr, re.M)
        assert len(logged) == len(dav.log)
    for secret in (PASSWORD, "cHctUzNjcjN0"):
        assert secret not in proc.all


def test_a_507_leaves_a_marker_the_next_publish_finishes(tmp_path, dav):
    project = make_project(tmp_path / "proj")
    dav.rules.append(Rule(lambda r: r.method == "PUT" and r.path.endswith(".about.dossier-upload")
                          or r.path.endswith("about/.index.html.dossier-upload"), "status", 507))
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 1 and "the server is out of space (HTTP 507)" in proc.all
    assert remote_manifest(dav)["dirty"] is True
    dav.rules.clear()
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 0, proc.all
    assert server_files(dav) == site_files(project) and "dirty" not in remote_manifest(dav)


@pytest.mark.parametrize("times", [1, None], ids=["once", "always"])
def test_a_500_is_retried(tmp_path, dav, times):
    project = make_project(tmp_path / "proj", static={"a.txt": "a\n"})
    dav.rules.append(Rule(lambda r: r.method == "PUT" and r.path == "/site/.a.txt.dossier-upload", "status",
                          500, times))
    proc = publish(tmp_path, project, dav.url())
    tries = [r for r in dav.log if r.path == "/site/.a.txt.dossier-upload" and r.method == "PUT"]
    if times == 1:
        assert proc.returncode == 0 and len(tries) == 2
        assert server_files(dav) == site_files(project)
    else:
        assert proc.returncode == 1 and len(tries) == 4
        assert re.search(r"\S+: the server refused to store this file \(HTTP 500, also when tried again\); its name "
                         r"is 5 bytes long", proc.all), proc.all


def test_a_server_without_strong_tags_is_read_back(tmp_path, dav):
    project = make_project(tmp_path / "proj")
    dav.rules.append(Rule(lambda r: r.method == "GET" and r.path == "/site/a.txt", "stale", times=1))
    dav.rules.append(Rule(lambda r: r.method == "PUT", "noetag"))
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 0, proc.all
    gets = [r.path for r in dav.log if r.method == "GET"]
    n = len(site_files(project))
    assert len([g for g in gets if not g.endswith(MANIFEST)]) == n + 1 and gets.count("/site/a.txt") == 2
    assert gets[-1] == "/site/" + MANIFEST
    assert server_files(dav) == site_files(project)


def test_a_server_without_strong_tags_costs_the_documented_gets(tmp_path, dav):
    project = make_project(tmp_path / "proj")
    dav.rules.append(Rule(lambda r: r.method == "PUT", "noetag"))
    assert publish(tmp_path, project, dav.url()).returncode == 0
    gets = [r.path for r in dav.log if r.method == "GET"]
    # the first GET, one per file sent, one for the dirty marker, one for the clean manifest
    assert len(gets) == 1 + len(site_files(project)) + 1 + 1


def test_a_write_the_server_never_shows_is_not_reported_as_published(tmp_path, dav):
    project = make_project(tmp_path / "proj")
    dav.rules.append(Rule(lambda r: r.method == "PUT" and "a.txt" in r.path, "drop"))
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 1
    assert "the server does not hold this file's bytes under its name after it was sent" in proc.all
    assert "it was not published" in proc.all and remote_manifest(dav)["dirty"] is True
