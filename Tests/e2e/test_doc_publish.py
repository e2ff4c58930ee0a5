"""`dossier publish` re-implemented from docs/publish.md and docs/webdav.md alone.

A real wsgidav server (cheroot, in a thread, on a free 127.0.0.1 port) sits behind a
small WSGI wrapper that records every request (method, path, the headers the docs name,
the manifest bodies, the answer's status and ETag) and injects the faults the docs make
promises about (an error status, a request held on a threading.Event, an answer without
an entity tag, a write acknowledged but not stored, a read that shows a write late).
Expected request sequences, messages and manifests come from the docs, never from the
program's output. Shared helpers live here; more cases are in test_doc_publish_more.py.
"""
import base64
import hashlib
import io
import json
import os
import pathlib
import re
import shutil
import subprocess
import threading
import time
import urllib.parse

import pytest
from cheroot import wsgi
from wsgidav.wsgidav_app import WsgiDAVApp

from conftest import dossier_path

USER = "alice"
PASSWORD = "pw-S3cr3t-never-print-me"
MANIFEST = ".dossier-manifest.json"
WRITES = {"PUT", "MKCOL", "MOVE", "DELETE", "COPY", "PROPPATCH", "LOCK"}


# MARK: - the recording, fault-injecting server

class Rule:
    """Matches requests with `match(req)`; `action` is 'status', 'hold', 'noetag', 'drop' or
    'stale'. `times` limits how often it fires (None: always)."""

    def __init__(self, match, action, status=500, times=None):
        self.match, self.action, self.status, self.times = match, action, status, times
        self.fired = 0
        self.arrived = threading.Event()
        self.release = threading.Event()


class Req:
    def __init__(self, method, raw, path, headers, host):
        self.method, self.raw, self.path, self.headers, self.host = method, raw, path, headers, host
        self.body = None
        self.status = None
        self.etag = None

    def __repr__(self):
        return f"{self.method} {self.raw} {self.headers.get('Depth', '')} -> {self.status}"


class Dav:
    def __init__(self, root: pathlib.Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.app = WsgiDAVApp({"provider_mapping": {"/": str(root)},
                               "simple_dc": {"user_mapping": {"*": True}},
                               "verbose": 0, "logging": {"enable": False}})
        self.log: list[Req] = []
        self.rules: list[Rule] = []
        self.password = PASSWORD
        self.lock = threading.Lock()
        self.server = wsgi.Server(("127.0.0.1", 0), self, numthreads=24)
        self.server.prepare()
        self.port = self.server.bind_addr[1]
        self.thread = threading.Thread(target=self.server.serve, daemon=True)
        self.thread.start()

    def url(self, folder="site", host="127.0.0.1"):
        return f"http://{host}:{self.port}/{folder}/"

    def stop(self):
        for rule in self.rules:
            rule.release.set()
        self.server.stop()

    def reqs(self, host=None, since=0):
        with self.lock:
            return [r for r in self.log[since:] if host is None or r.host == host]

    def __call__(self, environ, start_response):
        method = environ["REQUEST_METHOD"]
        raw = environ.get("REQUEST_URI", "")
        path = urllib.parse.unquote(raw)
        names = ("Depth", "If-Match", "If-None-Match", "If", "Overwrite", "Destination",
                 "Authorization", "User-Agent")
        headers = {n: environ["HTTP_" + n.upper().replace("-", "_")] for n in names
                   if "HTTP_" + n.upper().replace("-", "_") in environ}
        req = Req(method, raw, path, headers, environ.get("HTTP_HOST", "").split(":")[0])
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if method == "PUT" and path.endswith("/" + MANIFEST):
            req.body = environ["wsgi.input"].read(length)
            environ["wsgi.input"] = io.BytesIO(req.body)
        with self.lock:
            self.log.append(req)
            rule = None
            for r in self.rules:
                if (r.times is None or r.fired < r.times) and r.match(req):
                    r.fired += 1
                    rule = r
                    break

        def answer(status, headers=()):
            if req.body is None and length:
                environ["wsgi.input"].read(length)
            req.status = status
            start_response(f"{status} X", list(headers) + [("Content-Length", "0")])
            return [b""]

        expected = "Basic " + base64.b64encode(f"{USER}:{self.password}".encode()).decode()
        if headers.get("Authorization") != expected:
            return answer(401, [("WWW-Authenticate", 'Basic realm="dav"')])
        strip = False
        if rule is not None:
            if rule.action == "status":
                return answer(rule.status)
            if rule.action == "hold":
                rule.arrived.set()
                rule.release.wait(60)
            elif rule.action == "drop":
                return answer(201)
            elif rule.action == "stale":
                return answer(404)
            elif rule.action == "noetag":
                strip = True

        def sr(status, hdrs, exc=None):
            req.status = int(status.split()[0])
            for k, v in hdrs:
                if k.lower() == "etag":
                    req.etag = v
            if strip:
                hdrs = [(k, v) for k, v in hdrs if k.lower() != "etag"]
            return start_response(status, hdrs, exc)

        return self.app(environ, sr)


@pytest.fixture
def dav(tmp_path):
    server = Dav(tmp_path / "davroot")
    yield server
    server.stop()


# MARK: - projects and runs

def make_project(folder: pathlib.Path, static: dict | None = None, pages: dict | None = None):
    """A project (docs/manifest.md): dossier.yml, content pages, static files copied as they are."""
    (folder / "content").mkdir(parents=True, exist_ok=True)
    (folder / "dossier.yml").write_text("title: Publish test\n")
    pages = {"index": "Home page.", "about": "About page."} if pages is None else pages
    static = {"a.txt": "alpha\n", "sub/b.txt": "bravo\n", "css/site.css": "body{}\n"} if static is None else static
    for name, text in pages.items():
        (folder / "content" / f"{name}.md").write_text(f"---\ntitle: {name}\n---\n{text}\n")
    for name, text in static.items():
        p = folder / "static" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode() if isinstance(text, str) else text)
    build(folder)
    return folder


def build(folder, *extra):
    proc = subprocess.run([dossier_path(), "build", str(folder), *extra], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def set_static(project, name, text):
    p = project / "static" / name
    if text is None:
        p.unlink()
    else:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    build(project)


def site_manifest(project):
    return json.loads((project / "_site.manifest.json").read_text())


def site_files(project) -> dict:
    """The site as its manifest lists it, each file checked against its hash and size."""
    out = {}
    for entry in site_manifest(project)["files"]:
        data = (project / "_site" / entry["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["size"]
        out[entry["path"]] = data
    return out


def server_files(dav, folder="site", keep_temp=False) -> dict:
    base = dav.root / folder
    out = {}
    for p in sorted(base.rglob("*")):
        rel = p.relative_to(base).as_posix()
        if p.is_file() and rel != MANIFEST and (keep_temp or not p.name.endswith(".dossier-upload")):
            out[rel] = p.read_bytes()
    return out


def remote_manifest(dav, folder="site"):
    return json.loads((dav.root / folder / MANIFEST).read_text())


def wsgidav_etag(path: pathlib.Path) -> str:
    st = path.stat()
    return f"{st.st_ino}-{int(st.st_mtime)}-{st.st_size}"


def publish_env(tmp_path, extra=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NETRC", "DOSSIER_WEBDAV_USER", "SSL_CERT_FILE", "DOSSIER_WEBDAV_PASSWORD_FD")}
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir(exist_ok=True)
    env["DOSSIER_WEBDAV_PASSWORD"] = PASSWORD
    env.update(extra or {})
    return env


def publish_args(project, url, *args):
    return [dossier_path(), "publish", str(project), "--to", url, "--user", USER, *args]


def publish(tmp_path, project, url, *args, env=None):
    proc = subprocess.run(publish_args(project, url, *args), capture_output=True, text=True,
                          env=publish_env(tmp_path, env), timeout=90)
    proc.all = proc.stdout + proc.stderr
    return proc


def start_publish(tmp_path, project, url, *args):
    return subprocess.Popen(publish_args(project, url, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=publish_env(tmp_path))


def finish(popen):
    out, err = popen.communicate(timeout=90)
    return popen.returncode, out + err


def hold(dav, match):
    rule = Rule(match, "hold")
    dav.rules.append(rule)
    return rule


def writes(reqs):
    return [r for r in reqs if r.method in WRITES]


def temp_name(path):
    folder, _, name = path.rpartition("/")
    tmp = f".{name}.dossier-upload"
    if len(tmp.encode()) > 100:
        tmp = "." + hashlib.sha256(name.encode()).hexdigest()[:16] + ".dossier-upload"
    return f"{folder}/{tmp}" if folder else tmp


def direct(path):
    return any(c in path for c in "?;#%")


def upload_order(paths):
    """docs/publish.md, The plan: non-HTML, then HTML pages, then the root index.html, each by path."""
    def group(p):
        return 2 if p == "index.html" else 1 if p.endswith(".html") else 0
    return sorted(paths, key=lambda p: (group(p), p.encode()))


def folders_of(paths):
    out = set()
    for p in paths:
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/".join(parts[:i]))
    return out


def first_published(tmp_path, dav, **kw):
    project = make_project(tmp_path / "proj", **kw)
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 0, proc.all
    assert server_files(dav) == site_files(project)
    return project


def stats_line(out):
    m = re.search(r"\(requests: ([^)]*)\)", out)
    assert m, out
    return m.group(1)


def method_counts(reqs):
    counts = {}
    for r in reqs:
        counts[r.method] = counts.get(r.method, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


# MARK: - first publish, unchanged, changed, deleted

def test_first_publish_sends_the_documented_sequence_and_a_clean_manifest(tmp_path, dav):
    project = make_project(tmp_path / "proj", static={"a.txt": "alpha\n", "sub/deep/b.txt": "bravo\n",
                                                      "css/site.css": "x{}\n", "q?x.txt": "query\n"})
    url = dav.url("top/site")
    popen = start_publish(tmp_path, project, url, "--jobs", "1")
    rc, out = finish(popen)
    assert rc == 0, out
    reqs = dav.reqs()
    site = site_files(project)
    assert server_files(dav, "top/site") == site
    base = "/top/site/"
    # step 1: GET the manifest (404), then PROPFIND Depth 0 of the folder
    assert (reqs[0].method, reqs[0].path) == ("GET", base + MANIFEST)
    assert (reqs[1].method, reqs[1].path, reqs[1].headers.get("Depth")) == ("PROPFIND", base, "0")
    # step 4: MKCOL every missing parent, top down, before the marker
    marker_at = next(i for i, r in enumerate(reqs) if r.method == "PUT" and r.path == base + MANIFEST)
    assert [r.path for r in reqs[2:marker_at] if r.method == "MKCOL"] == ["/top/", base]
    marker = reqs[marker_at]
    assert marker.headers.get("If-None-Match") == "*" and "If-Match" not in marker.headers
    doc = json.loads(marker.body)
    assert doc["dirty"] is True and doc["files"] == []
    lease = doc["lease"]
    assert sorted(lease) == ["expires", "id", "machine", "pid"]
    assert re.fullmatch(r"[0-9a-f]{16}", lease["id"]) and lease["pid"] == popen.pid
    assert re.fullmatch(r"[0-9a-f]{32}", lease["machine"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", lease["expires"])
    expires = time.mktime(time.strptime(lease["expires"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert abs(expires - (time.time() + 600)) < 60
    # step 6: new folders parents first
    mk = [r.path for r in reqs[marker_at:] if r.method == "MKCOL"]
    assert sorted(mk) == sorted(base + f + "/" for f in folders_of(site))
    for f in folders_of(site):
        if "/" in f:
            assert mk.index(base + f.rpartition("/")[0] + "/") < mk.index(base + f + "/")
    # step 7: temporary name + MOVE (Overwrite: T), or a straight PUT for `?`; documented order
    content = [r for r in reqs[marker_at + 1:] if r.method in ("PUT", "MOVE")][:-1]
    expected = []
    for p in upload_order(site):
        if direct(p):
            expected.append(("PUT", base + p, None))
        else:
            expected += [("PUT", base + temp_name(p), None), ("MOVE", base + temp_name(p), url + p)]
    got = [(r.method, r.path, urllib.parse.unquote(r.headers["Destination"]) if r.method == "MOVE" else None)
           for r in content]
    assert got == expected
    assert all(r.headers.get("Overwrite") == "T" for r in content if r.method == "MOVE")
    # step 8: one PROPFIND Depth 1 per folder that received files
    last_move = max(i for i, r in enumerate(reqs) if r in content)
    confirm = [r for r in reqs[last_move + 1:] if r.method == "PROPFIND"]
    assert all(r.headers.get("Depth") == "1" for r in confirm)
    receiving = {(base + p.rpartition("/")[0] + "/").replace("//", "/") for p in site}
    assert sorted(r.path for r in confirm) == sorted(receiving)
    # step 10: the clean manifest, If-Match on the marker's ETag
    clean = reqs[-1]
    assert (clean.method, clean.path) == ("PUT", base + MANIFEST)
    assert clean.headers.get("If-Match") == marker.etag
    text = (dav.root / "top/site" / MANIFEST).read_text()
    man = json.loads(text)
    assert text.endswith("\n") and "\n  \"dossier\"" in text and "\n   \"" not in text.split("\"etags\"")[0]
    assert list(man) == sorted(man) and "dirty" not in man and "lease" not in man and "pending" not in man
    assert man["files"] == site_manifest(project)["files"] and "inputs" not in man
    assert man["etags"] == {p: wsgidav_etag(dav.root / "top/site" / p) for p in site}
    # every request authenticated, with the documented User-Agent
    assert all(r.headers.get("User-Agent") == "dossier" for r in reqs)
    n = len(site)
    assert re.search(rf"^published {re.escape(url)}: {n} uploaded \({n} new, 0 changed\), 0 deleted, 0 unchanged "
                     rf"in \d+(\.\d+)? s \(requests: {method_counts(reqs)}\)$", out, re.M), out
    pub = project / ".dossier" / "publish"
    assert not list(pub.glob("*.journal"))
    keys = {hashlib.sha256(u.encode()).hexdigest()[:16] for u in (url, url.rstrip("/"))}
    assert {p.name.split(".")[0] for p in pub.glob("*.published.json")} & keys


def test_unchanged_republish_is_one_get(tmp_path, dav):
    project = first_published(tmp_path, dav)
    before = {p: wsgidav_etag(dav.root / "site" / p) for p in server_files(dav)}
    mark = len(dav.log)
    proc = publish(tmp_path, project, dav.url())
    assert proc.returncode == 0, proc.all
    reqs = dav.reqs(since=mark)
    assert [(r.method, r.path) for r in reqs] == [("GET", "/site/" + MANIFEST)]
    n = len(site_files(project))
    assert f"0 uploaded (0 new, 0 changed), 0 deleted, {n} unchanged" in proc.stdout
    assert before == {p: wsgidav_etag(dav.root / "site" / p) for p in server_files(dav)}
