"""A server whose listing names what it should not (docs/publish.md, "What a listing may
name"): a path outside the publish folder, a folder listed inside another, folders with
no end. `publish --verify` lists the server (as does any publish after an interrupted
one); nothing outside the folder may be fetched or deleted by the listing's word, and
the scan must end. fault_dav.py's `listing` fault adds the members to real answers."""
import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess

from test_publish_faults import assert_published, publish
from webdav_server import WebDAVServer, make_site, write_manifest


def server_with(tmp_path, site):
    rules = tmp_path / "rules" / "faults.json"
    rules.parent.mkdir()
    rules.write_text(json.dumps({"rules": []}))
    return WebDAVServer(tmp_path / "srv", faults=rules), rules


def test_members_outside_the_folder_are_neither_fetched_nor_deleted(dossier_bin, tmp_path):
    site = make_site(tmp_path / "v1", pages=2)
    dav, rules = server_with(tmp_path, site)
    with dav:
        publish(dossier_bin, site, dav.url + "s/")
        srv = tmp_path / "srv"
        (srv / "outside.html").write_text("a colleague's page")
        (srv / "elsewhere").mkdir()
        (srv / "elsewhere" / "x.html").write_text("another site")
        hrefs = [{"href": "/s/../outside.html"}, {"href": "/s/%2e%2e/elsewhere/x.html"},
                 {"href": "/elsewhere/x.html"}, {"href": "/s/./index.html"}]
        rules.write_text(json.dumps({"rules": [{"method": "PROPFIND", "fault": "listing", "hrefs": hrefs}]}))
        dav.clear_log()
        publish(dossier_bin, site, dav.url + "s/", "--verify")
        assert any(k == "listing" for _, _, k in dav.faults_fired())
        assert (srv / "outside.html").read_text() == "a colleague's page"
        assert (srv / "elsewhere" / "x.html").read_text() == "another site"
        touched = [(m, p) for m, p in dav.requests() if m in ("GET", "DELETE", "PUT", "MOVE")]
        assert all(p.startswith("/s/") for _, p in touched), touched
        assert_published(srv / "s", site)


def test_a_folder_listed_inside_another_is_scanned_once(dossier_bin, tmp_path):
    site = make_site(tmp_path / "v1", pages=1)
    for name in ("a", "b"):
        (site / name).mkdir()
        (site / name / "page.html").write_text(f"<p>{name}</p>\n")
    write_manifest(site)
    dav, rules = server_with(tmp_path, site)
    with dav:
        publish(dossier_bin, site, dav.url + "s/")
        # a/ lists b/ as its member and b/ lists a/: a scan that follows them never ends.
        rules.write_text(json.dumps({"rules": [
            {"method": "PROPFIND", "path": "/s/a/", "fault": "listing", "hrefs": [{"href": "/s/b/", "collection": True}]},
            {"method": "PROPFIND", "path": "/s/b/", "fault": "listing", "hrefs": [{"href": "/s/a/", "collection": True}]}]}))
        dav.clear_log()
        p = publish(dossier_bin, site, dav.url + "s/", "--verify")
        assert "0 difference(s)" in p.stdout, p.stdout
        listed = [path for m, path in dav.requests() if m == "PROPFIND"]
        assert sorted(listed) == sorted(set(listed)), listed        # each folder listed once
        assert_published(tmp_path / "srv" / "s", site)


def test_folders_deeper_than_any_site_stop_the_scan_before_any_change(dossier_bin, tmp_path):
    site = make_site(tmp_path / "v1", pages=1)
    dav, _ = server_with(tmp_path, site)
    with dav:
        publish(dossier_bin, site, dav.url + "s/")
        deep = tmp_path / "srv" / "s" / os.path.join(*["d"] * 70)
        deep.mkdir(parents=True)
        (deep / "x.html").write_text("deep")
        before = sorted(str(p) for p in (tmp_path / "srv").rglob("*"))
        dav.clear_log()
        p = publish(dossier_bin, site, dav.url + "s/", "--verify", check=False)
        assert p.returncode == 1, (p.stdout, p.stderr)
        assert "more than 64 deep" in p.stderr and "stopped before any change" in p.stderr, p.stderr
        assert not [m for m, _ in dav.requests() if m in ("PUT", "DELETE", "MOVE", "MKCOL")]
        assert sorted(str(p) for p in (tmp_path / "srv").rglob("*")) == before
        shutil.rmtree(tmp_path / "srv" / "s" / "d")
        publish(dossier_bin, site, dav.url + "s/", "--verify")
        assert_published(tmp_path / "srv" / "s", site)


def test_an_answer_that_never_ends_is_stopped_at_its_limit(dossier_bin, tmp_path):
    """The remote manifest's GET and a listing whose body never ends: the publish stops
    with an error naming the URL and the limit (256 MiB), nothing changed, memory bounded;
    the next publish, with the server well again, converges."""
    from webdav_server import PASSWORD, USER
    site = make_site(tmp_path / "v1", pages=1)
    two = tmp_path / "v2" / "_site"
    shutil.copytree(site, two)
    (two / "index.html").write_text("<h1>v2</h1>\n")
    write_manifest(two)
    dav, rules = server_with(tmp_path, site)
    with dav:
        url = dav.url + "s/"
        publish(dossier_bin, site, url)
        env = {**os.environ, "DOSSIER_WEBDAV_PASSWORD": PASSWORD, "DOSSIER_WEBDAV_USER": USER}
        for rule, extra in (({"method": "GET", "path": ".dossier-manifest.json"}, []),
                            ({"method": "PROPFIND"}, ["--verify"])):
            rules.write_text(json.dumps({"rules": [{**rule, "fault": "endless", "times": 1}]}))
            dav.clear_log()
            p = subprocess.run(["/usr/bin/time", "-f", "maxrss=%M", dossier_bin, "publish", "--site", str(two),
                                "--to", url, *extra], env=env, capture_output=True, text=True, timeout=300)
            assert p.returncode == 1, (rule, p.stdout, p.stderr)
            assert "the answer is longer than 268435456 bytes; stopped reading it" in p.stderr, p.stderr
            assert "127.0.0.1" in p.stderr and PASSWORD not in p.stderr
            rss_kb = int(p.stderr.rsplit("maxrss=", 1)[1].split()[0])
            assert rss_kb < 900 * 1024, rss_kb                     # the limit, not the stream, bounds memory
            assert not [m for m, _ in dav.requests() if m in ("PUT", "DELETE", "MOVE", "MKCOL")]
            assert any(k == "endless" for _, _, k in dav.faults_fired())
        rules.write_text(json.dumps({"rules": []}))
        publish(dossier_bin, two, url)
        assert_published(tmp_path / "srv" / "s", two)



@contextlib.contextmanager
def changed_on_the_server(dossier_bin, tmp_path, pages, text, local_index=None):
    """A site published to a fresh server, then its index.html rewritten there behind the
    publisher's back (its entity tag changes, so a scan must fetch it). `local_index`:
    the site's own index.html, if not make_site's. Yields (site, dav, rules, url, served
    folder, environment for a publish, TMPDIR tmp_path)."""
    from webdav_server import PASSWORD, USER
    site = make_site(tmp_path / "v1", pages=pages)
    if local_index is not None:
        (site / "index.html").write_text(local_index)
        write_manifest(site)
    dav, rules = server_with(tmp_path, site)
    with dav:
        url = dav.url + "s/"
        publish(dossier_bin, site, url)
        srv = tmp_path / "srv" / "s"
        (srv / "index.html").write_text(text)
        dav.clear_log()
        env = {**os.environ, "DOSSIER_WEBDAV_PASSWORD": PASSWORD, "DOSSIER_WEBDAV_USER": USER,
               "TMPDIR": str(tmp_path)}
        yield site, dav, rules, url, srv, env


def test_a_changed_file_whose_answer_never_ends_is_read_only_to_the_local_size(dossier_bin, tmp_path):
    """`publish --verify` fetches a file whose entity tag changed on the server to hash it.
    A GET whose body never ends is read into a temporary file, never past the local file's
    size: the file counts as changed and is sent again; memory and time stay bounded (the
    old binary read the stream into memory until it was stopped)."""
    text = "<h1>changed behind the publisher's back</h1>\n" * 3
    with changed_on_the_server(dossier_bin, tmp_path, 2, text) as (site, dav, rules, url, srv, env):
        rules.write_text(json.dumps({"rules": [
            {"method": "GET", "path": "/s/index.html", "fault": "endless", "times": 1}]}))

        def at_most_2_gib():
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
            resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
        p = subprocess.run(["/usr/bin/time", "-f", "maxrss=%M", dossier_bin, "publish", "--site", str(site),
                            "--to", url, "--verify"], env=env,
                           capture_output=True, text=True, timeout=120, preexec_fn=at_most_2_gib)
        assert p.returncode == 0, (p.stdout, p.stderr)
        rss_kb = int(p.stderr.rsplit("maxrss=", 1)[1].split()[0])
        assert rss_kb < 300 * 1024, rss_kb          # the old binary filled its 2 GiB, then retried
        assert any(k == "endless" for _, p_, k in dav.faults_fired() if p_ == "/s/index.html")
        assert ("PUT", "/s/index.html") in dav.requests() or any(
            m == "MOVE" for m, _ in dav.requests()), dav.requests()
        assert not [f for f in tmp_path.iterdir() if f.name.startswith("dossier-scan-")]
        assert_published(srv, site)
        rules.write_text(json.dumps({"rules": []}))
        again = publish(dossier_bin, site, url, "--verify")
        assert "0 difference(s)" in again.stdout, again.stdout


def test_a_scan_that_cannot_make_its_temporary_file_stops_before_any_change(dossier_bin, tmp_path):
    text = "<h1>changed on the server</h1>\n"
    with changed_on_the_server(dossier_bin, tmp_path, 1, text) as (site, dav, rules, url, srv, env):
        missing = tmp_path / "no-such-folder"
        p = subprocess.run([dossier_bin, "publish", "--site", str(site), "--to", url, "--verify"],
                           env={**env, "TMPDIR": str(missing)}, capture_output=True, text=True, timeout=120)
        assert p.returncode == 1, (p.stdout, p.stderr)
        assert f"{missing}: cannot make a temporary file to check a published file" in p.stderr
        assert "set TMPDIR" in p.stderr
        assert not [m for m, _ in dav.requests() if m in ("PUT", "DELETE", "MOVE", "MKCOL")]
        assert (srv / "index.html").read_text() == text
        publish(dossier_bin, site, url, "--verify")
        assert_published(srv, site)


def test_a_temporary_folder_that_fills_up_stops_the_scan_with_its_reason(dossier_bin, tmp_path):
    """The file being fetched cannot be written to the temporary file (here a file-size
    limit of 1 KiB, as a full disk would): the run stops with that reason, asking for a
    TMPDIR with room, without retrying the GET and before any change. Before, libcurl's
    write error was retried as a network failure and reported as "cannot reach the
    server"."""
    local = "<h1>Study</h1>\n" + "<p>a long page</p>\n" * 200   # 3.8 KB
    text = "<h1>changed on the server</h1>\n" * 80   # 2.5 KB: within the local size, past 1 KiB
    with changed_on_the_server(dossier_bin, tmp_path, 1, text, local) as (site, dav, rules, url, srv, env):
        def files_of_one_kib():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails (EFBIG) instead
            resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
        p = subprocess.run([dossier_bin, "publish", "--site", str(site), "--to", url, "--verify"], env=env,
                           capture_output=True, text=True, timeout=120, preexec_fn=files_of_one_kib)
        assert p.returncode == 1, (p.stdout, p.stderr)
        assert f"{url}index.html: cannot write the answer to a temporary file: the file is too large for this " \
               "file system" in p.stderr, p.stderr
        assert "raise the limit; set TMPDIR to a folder with room" in p.stderr, p.stderr
        assert "cannot reach the server" not in p.stderr
        assert env["DOSSIER_WEBDAV_PASSWORD"] not in p.stdout + p.stderr
        assert [r for r in dav.requests() if r == ("GET", "/s/index.html")] == [("GET", "/s/index.html")]
        assert not [m for m, _ in dav.requests() if m in ("PUT", "DELETE", "MOVE", "MKCOL")]
        assert (srv / "index.html").read_text() == text
        assert not [f for f in tmp_path.iterdir() if f.name.startswith("dossier-scan-")]
        publish(dossier_bin, site, url, "--verify")
        assert_published(srv, site)
