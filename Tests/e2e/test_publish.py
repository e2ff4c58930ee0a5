"""`dossier publish` against a real WebDAV server (wsgidav) on 127.0.0.1."""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

from webdav_server import PASSWORD, USER, WebDAVServer, built_demo, env, make_site, tree, write_manifest

WRITES = {"PUT", "MOVE", "DELETE", "MKCOL", "PROPPATCH", "COPY", "LOCK"}


def publish(run_dossier, site, url, password=PASSWORD, check=True, extra=()):
    return run_dossier("publish", "--site", site, "--to", url, *extra, env=env(password), check=check, timeout=300)


def test_publish_then_one_change_sends_exactly_one_content_put(run_dossier, tmp_path):
    site = make_site(tmp_path)
    with WebDAVServer(tmp_path / "srv") as dav:
        url = dav.url + "study/"
        first = publish(run_dossier, site, url)
        assert "uploaded" in first.stdout
        remote = tmp_path / "srv" / "study"
        assert tree(remote) == tree(site)
        served = json.loads((remote / ".dossier-manifest.json").read_text())
        local = json.loads((tmp_path / "_site.manifest.json").read_text())
        assert served["files"] == local["files"]
        assert not [p for p in remote.rglob("*") if p.name.endswith(".dossier-upload")]

        # Nothing changed: one GET of the manifest, nothing written.
        dav.clear_log()
        publish(run_dossier, site, url)
        assert [m for m, _ in dav.requests()] == ["GET"]

        # One page changed: exactly one PUT of content (to its temporary name), one MOVE,
        # and two manifest PUTs (marked dirty first, clean last), a PROPFIND of the page
        # (still the version published?) and of its folder (in place?) — whatever the
        # size of the site.
        (site / "recall" / "p03" / "index.html").write_text("<h1>Participant 3, revised</h1>\n")
        write_manifest(site)
        dav.clear_log()
        out = publish(run_dossier, site, url)
        content_puts = dav.count("PUT", lambda p: not p.endswith(".dossier-manifest.json"))
        assert content_puts == 1
        assert dav.count("PUT", lambda p: p.endswith("/.index.html.dossier-upload")) == 1
        assert dav.count("MOVE") == 1
        assert dav.count("PUT") == 3
        assert dav.count("PROPFIND") == 2
        assert len(dav.requests()) == 7
        assert "1 uploaded (0 new, 1 changed)" in out.stdout
        assert tree(remote) == tree(site)

        # A removed folder of pages is deleted on the server, empty folder included.
        for f in (site / "recall" / "p05").iterdir():
            f.unlink()
        (site / "recall" / "p05").rmdir()
        write_manifest(site)
        dav.clear_log()
        publish(run_dossier, site, url)
        assert dav.count("DELETE") == 3  # two files + the emptied folder
        assert dav.count("PUT", lambda p: not p.endswith(".dossier-manifest.json")) == 0
        assert not (remote / "recall" / "p05").exists()
        assert tree(remote) == tree(site)


def test_dry_run_lists_changes_and_writes_nothing(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=2)
    with WebDAVServer(tmp_path / "srv") as dav:
        out = publish(run_dossier, site, dav.url, extra=["--dry-run"])
        assert "dry run: 8 to upload (8 new, 0 changed), 0 to delete" in out.stdout
        assert "new     recall/p01/data.csv" in out.stdout
        assert not any(m in WRITES for m, _ in dav.requests())
        assert tree(tmp_path / "srv") == {}


def test_wrong_password_fails_with_401_message_and_changes_nothing(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=3)
    with WebDAVServer(tmp_path / "srv") as dav:
        publish(run_dossier, site, dav.url + "s/")
        before = tree(tmp_path / "srv", skip=())
        (site / "index.html").write_text("<h1>changed</h1>\n")
        write_manifest(site)
        dav.clear_log()
        bad = publish(run_dossier, site, dav.url + "s/", password="P@ssw0r21", check=False)
        assert bad.returncode == 1
        assert "rejected the user name or password (HTTP 401)" in bad.stderr
        assert "P@ssw0r21" not in bad.stderr + bad.stdout
        assert tree(tmp_path / "srv", skip=()) == before
        assert not any(m in WRITES for m, _ in dav.requests())


def test_password_from_netrc_file(dossier_bin, tmp_path):
    site = make_site(tmp_path, pages=1)
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine other.example login x password y\nmachine 127.0.0.1\n  login {USER}\n  password \"{PASSWORD}\"\n")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_WEBDAV")}
    clean["HOME"] = str(tmp_path)
    with WebDAVServer(tmp_path / "srv") as dav:
        proc = subprocess.run([dossier_bin, "publish", "--site", str(site), "--to", dav.url, "--netrc", str(netrc)],
                              env=clean, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert tree(tmp_path / "srv") == tree(site)
        assert PASSWORD not in proc.stdout + proc.stderr


def test_password_over_plain_http_to_a_remote_host_is_refused(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=1)
    out = publish(run_dossier, site, "http://dav.example.org/site/", check=False)
    assert out.returncode == 1
    assert "refusing to send a password over plain http" in out.stderr


def test_interrupted_publish_resumes_to_an_identical_tree(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=20)
    total = len(tree(site))
    root = tmp_path / "srv"
    # The server dies when the 11th MOVE arrives: ten files are in place, others may be
    # half-way (uploaded to their temporary name), the remote manifest is not written.
    dav = WebDAVServer(root, die_before="MOVE:10").start()
    port = dav.port
    try:
        broken = publish(run_dossier, site, dav.url + "site/", check=False)
    finally:
        dav.stop()
    assert broken.returncode == 1
    assert "cannot reach the server" in broken.stderr
    # The server's manifest was marked dirty before the first change.
    assert json.loads((root / "site" / ".dossier-manifest.json").read_text())["dirty"] is True
    assert len(tree(root / "site")) < total + 4  # partial: not everything arrived

    with WebDAVServer(root, port=port, log=tmp_path / "second.log") as dav2:
        out = publish(run_dossier, site, dav2.url + "site/")
        assert "already in place" in out.stdout
        sent = dav2.count("PUT", lambda p: not p.endswith(".dossier-manifest.json"))
        assert total - 10 <= sent < total
    remote = root / "site"
    assert tree(remote) == tree(site)
    assert not [p for p in remote.rglob("*") if p.name.endswith(".dossier-upload")]
    assert json.loads((remote / ".dossier-manifest.json").read_text())["files"] == \
        json.loads((tmp_path / "_site.manifest.json").read_text())["files"]


def test_remote_manifest_changed_between_read_and_write_is_not_overwritten(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=2)
    root = tmp_path / "srv"
    with WebDAVServer(root) as dav:
        publish(run_dossier, site, dav.url + "s/")
        port = dav.port
    # Another publisher writes the manifest just before ours is written.
    theirs = json.dumps({"dossier": "0.1.0", "files": []})
    (site / "index.html").write_text("<h1>ours</h1>\n")
    write_manifest(site)
    with WebDAVServer(root, port=port, tamper=f"PUT:/s/.dossier-manifest.json:s/.dossier-manifest.json:{theirs}") as dav:
        out = publish(run_dossier, site, dav.url + "s/", check=False)
        assert out.returncode == 1
        assert "changed on the server during this publish" in out.stderr
        assert (root / "s" / ".dossier-manifest.json").read_text() == theirs
        # Refused before any page was replaced (the manifest is claimed first).
        assert (root / "s" / "index.html").read_text() == "<h1>Study</h1>\n"
        # Publishing again starts from their manifest and converges.
        publish(run_dossier, site, dav.url + "s/")
        assert tree(root / "s") == tree(site)


def test_publish_demo_site(run_dossier, dossier_bin, tmp_path):
    demo_copy, built = built_demo(dossier_bin)
    manifest = demo_copy / "_site.manifest.json"
    if built.returncode != 0 or not manifest.exists():
        pytest.skip("the demo does not build with this binary's domains: " + built.stderr[-300:])
    with WebDAVServer(tmp_path / "srv") as dav:
        run_dossier("publish", demo_copy, "--to", dav.url + "demo/", env=env(), timeout=600)
        remote = tmp_path / "srv" / "demo"
        listed = {f["path"] for f in json.loads(manifest.read_text())["files"]}
        assert set(tree(remote)) == listed
        local = tree(demo_copy / "_site")
        assert all(tree(remote)[p] == local[p] for p in listed)
        dav.clear_log()
        run_dossier("publish", demo_copy, "--to", dav.url + "demo/", env=env())
        assert [m for m, _ in dav.requests()] == ["GET"]


def test_untrusted_tls_certificate_is_a_clear_error(run_dossier, tmp_path):
    openssl = shutil.which("openssl")
    if not openssl:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", "/CN=127.0.0.1"], check=True, capture_output=True)
    site = make_site(tmp_path, pages=1)
    with WebDAVServer(tmp_path / "srv", tls=(cert, key)) as dav:
        assert dav.url.startswith("https://")
        out = publish(run_dossier, site, dav.url, check=False)
        assert out.returncode == 1
        assert "TLS failure" in out.stderr, out.stderr
        assert not any(m in WRITES for m, _ in dav.requests())
