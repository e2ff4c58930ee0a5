"""`dossier serve` against requests a browser or another site could send (docs/serve.md):
a folder named without its slash is redirected once, never in a loop; a request naming
another host (DNS rebinding) cannot read the preview."""
import re
import subprocess
import urllib.error
import urllib.request

import pytest

from hostile_helpers import new_project
from test_foundation import stop


def test_serve_answers_a_folder_url_without_looping(dossier_bin, tmp_path):
    proj = new_project(dossier_bin, tmp_path / "p")
    proc = subprocess.Popen([dossier_bin, "serve", str(proj), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", line).group(1))
        base = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(base + "/methods/", timeout=10) as r:
            assert r.status == 200 and r.url == base + "/methods/"
            assert "<html" in r.read().decode()

        class NoFollow(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *a, **k):
                return None
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.build_opener(NoFollow).open(base + "/methods", timeout=10)
        assert e.value.code == 301 and e.value.headers["Location"] == "/methods/"
    finally:
        stop(proc)


def test_serve_answers_only_requests_naming_the_loopback_host(dossier_bin, tmp_path):
    """DNS rebinding: a page of another site whose name was made to resolve to 127.0.0.1
    sends its own name in `Host`, and must not read the preview (which may hold a
    study's data before it is published). docs/serve.md."""
    proj = new_project(dossier_bin, tmp_path / "p")
    proc = subprocess.Popen([dossier_bin, "serve", str(proj), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", proc.stdout.readline()).group(1))

        def get(host):
            req = urllib.request.Request(f"http://127.0.0.1:{port}/index.html", headers={"Host": host})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status, r.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()
        # The loopback names and IP addresses, with any port (a tunnel sends its own).
        for ok in (f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost:{port}", "localhost:9000", "127.0.0.1",
                   "[::1]:9000", "10.0.0.5:8000"):
            status, body = get(ok)
            assert status == 200 and "<html" in body, (ok, status)
        # Any domain name: what a rebinding page sends.
        for other in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}",
                      f"localhost.evil.example:{port}", "1.2.3.4.nip.io", "[::1", f"127.0.0.1:{port}x", "localhost:"):
            status, body = get(other)
            assert status == 403, (other, status)
            assert "<html" not in body and "answers only http://127.0.0.1" in body
    finally:
        stop(proc)
