"""An in-process wsgidav + cheroot server for checking docs/webdav.md, behind a
middleware that records every request and misbehaves on cue — deterministically: rules
count requests (a logical clock), holds wait on threading.Event, nothing sleeps.

    with DavOracle(tmp_path / "srv") as dav:
        dav.rule(method="PUT", nth=2, action=status(507))
        ... run dossier against dav.url + "site/" ...
        dav.requests    # [Req] in arrival order

Reuses the site helpers of Tests/e2e/webdav_server.py (make_site, write_manifest, tree).
"""
import base64
import io
import os
import pathlib
import re
import threading
import time
import urllib.parse
import urllib.request

from cheroot import wsgi
from wsgidav import util as dav_util
from wsgidav.wsgidav_app import WsgiDAVApp

from webdav_server import PASSWORD, USER, make_site, tree, write_manifest  # noqa: F401  (re-exported)

WRITES = ("PUT", "MOVE", "DELETE", "MKCOL")


class Req:
    def __init__(self, environ, clock):
        self.method = environ.get("REQUEST_METHOD", "")
        self.path = environ.get("PATH_INFO", "").encode("latin-1").decode("utf-8", "surrogateescape")
        self.raw = environ.get("REQUEST_URI", "").split("?")[0]
        self.headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
        self.body = b""
        self.clock, self.time, self.status = clock, time.monotonic(), None

    def __repr__(self):
        return f"{self.method} {self.raw} -> {self.status}"


class Rule:
    """Fires `action` on matching requests: the `nth` match (1-based) only, or every
    match from the `after`+1-th on, at most `times` times."""

    def __init__(self, method=None, path=None, nth=None, after=0, times=None, action=None, when=None):
        self.methods = (method,) if isinstance(method, str) else method
        self.path, self.nth, self.after, self.times = path, nth, after, times
        self.action, self.when = action, when
        self.matched = self.fired = 0
        self.arrived, self.release = threading.Event(), threading.Event()

    def matches(self, req):
        if self.methods and req.method not in self.methods:
            return False
        if self.path is not None and not (self.path(req.path) if callable(self.path) else self.path in req.path):
            return False
        if self.when is not None and not self.when(req):
            return False
        self.matched += 1
        if self.nth is not None:
            ok = self.matched == self.nth
        else:
            ok = self.matched > self.after and (self.times is None or self.fired < self.times)
        if ok:
            self.fired += 1
        return ok


# MARK: - actions: f(oracle, environ, start_response, req) -> body iterable

def status(code, text="fault", headers=()):
    def act(o, environ, start_response, req):
        req.status = code
        start_response(f"{code} {text}", [("Content-Type", "text/plain"), ("Content-Length", "0"), *headers])
        return [b""]
    return act


def respond(code, body, headers=(("Content-Type", 'application/xml; charset="utf-8"'),), length=None):
    """A canned answer; `length` overrides Content-Length (a lying one)."""
    def act(o, environ, start_response, req):
        o.drain(environ)
        req.status = code
        n = len(body) if length is None else length
        start_response(f"{code} canned", [*headers, ("Content-Length", str(n))])
        return [body]
    return act


def drop(o, environ, start_response, req):
    """The connection dies before the request is served (a body is promised, never sent)."""
    o.drain(environ)
    req.status = "drop"
    return o.broken(start_response)


def lose(o, environ, start_response, req):
    """The request is served, its answer lost."""
    o.serve_silently(environ)
    req.status = "lose"
    return o.broken(start_response)


def ack(o, environ, start_response, req):
    """A write acknowledged (201, no tag) and never stored."""
    o.drain(environ)
    req.status = 201
    start_response("201 Created", [("Content-Length", "0")])
    return [b""]


def lag(n):
    """The write is answered 201 (no tag) at once and made after `n` more requests."""
    def act(o, environ, start_response, req):
        body = o.drain(environ)
        copy = dict(environ, **{"wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))})
        with o.lock:
            due = max([o.clock + n] + [d for d, _ in o.waiting])
            o.waiting.append((due, copy))
        req.status = 201
        start_response("201 Created", [("Content-Length", "0")])
        return [b""]
    return act


def hold(o, environ, start_response, req):
    """Waits (before it is served) until the test sets the rule's `release` event."""
    rule = req.rule
    rule.arrived.set()
    rule.release.wait(60)
    return o.serve(environ, start_response, req)


def rewrite(fn, header_fn=None):
    """Serves the request, then passes the answer body through fn(body, req)."""
    def act(o, environ, start_response, req):
        st, hd = [], []
        body = b"".join(o.app(environ, lambda s, h, *a: (st.append(s), hd.extend(h)) and None))
        body = fn(body, req)
        hd = [(k, v) for k, v in hd if k.lower() != "content-length"]
        if header_fn:
            hd = header_fn(hd, req)
        req.status = int(st[0].split()[0])
        start_response(st[0], hd + [("Content-Length", str(len(body)))])
        return [body]
    return act


def weak_etag(hd, req):
    return [(k, ("W/" + v) if k.lower() == "etag" else v) for k, v in hd]


def no_etag(hd, req):
    return [(k, v) for k, v in hd if k.lower() != "etag"]


class Oracle:
    """The WSGI middleware."""

    def __init__(self, app, root):
        self.app, self.root = app, pathlib.Path(root)
        self.lock = threading.Lock()
        self.rules, self.requests = [], []
        self.clock, self.waiting = 0, []

    def __call__(self, environ, start_response):
        with self.lock:
            self.clock += 1
            req = Req(environ, self.clock)
            self.requests.append(req)
            method = req.method
            flush = method in ("DELETE", "MKCOL") or (method in ("PUT", "MOVE") and self.conditional(environ))
            self.apply_due(everything=flush)
            chosen = next((r for r in self.rules if r.matches(req)), None)
            behind = bool(self.waiting) and method in ("PUT", "MOVE") and not self.conditional(environ)
        if method == "PROPFIND":
            req.body = self.drain(environ)
            environ["wsgi.input"] = io.BytesIO(req.body)
            environ["CONTENT_LENGTH"] = str(len(req.body))
        if chosen is not None:
            req.rule = chosen
            return chosen.action(self, environ, start_response, req)
        if behind:
            return lag(0)(self, environ, start_response, req)
        return self.serve(environ, start_response, req)

    @staticmethod
    def conditional(environ):
        return any(k in environ for k in ("HTTP_IF_MATCH", "HTTP_IF_NONE_MATCH", "HTTP_IF"))

    def serve(self, environ, start_response, req):
        def sr(s, h, *a):
            req.status = int(s.split()[0])
            return start_response(s, h, *a)
        return self.app(environ, sr)

    def apply_due(self, everything=False):
        while self.waiting and (everything or self.waiting[0][0] <= self.clock):
            self.serve_silently(self.waiting.pop(0)[1])

    def catch_up(self):
        with self.lock:
            self.apply_due(everything=True)

    def serve_silently(self, environ):
        try:
            body = self.app(environ, lambda *a, **k: (lambda data: None))
            for _ in body:
                pass
            if hasattr(body, "close"):
                body.close()
        except Exception:
            pass

    @staticmethod
    def drain(environ):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        data = b""
        while len(data) < length:
            chunk = environ["wsgi.input"].read(min(65536, length - len(data)))
            if not chunk:
                break
            data += chunk
        return data

    @staticmethod
    def broken(start_response):
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "64")])

        def body():
            raise ConnectionResetError("oracle: connection dropped")
            yield b""  # pragma: no cover
        return body()


class DavOracle:
    """wsgidav serving `root` (HTTP Basic alice/"correct horse", or anyone with
    auth=False) on a free 127.0.0.1 port, in a thread of the test process."""

    def __init__(self, root, auth=True, user=USER, password=PASSWORD, host="127.0.0.1"):
        self.host = host
        self.root = pathlib.Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        users = {"*": {user: {"password": password}}} if auth else {"*": True}
        config = {"provider_mapping": {"/": str(self.root)}, "simple_dc": {"user_mapping": users},
                  "http_authenticator": {"accept_basic": True, "accept_digest": False,
                                         "default_to_digest": False},
                  "verbose": 0, "logging": {"enable": False}, "dir_browser": {"enable": False},
                  "lock_storage": True}
        if not auth:
            config["http_authenticator"]["domain_controller"] = None
        self.user, self.password = user, password
        self.oracle = Oracle(WsgiDAVApp(config), self.root)
        self.server = None

    def __enter__(self):
        self.server = wsgi.Server((self.host, 0), self.oracle, numthreads=16)
        self.server.error_log = lambda *a, **k: None   # dropped connections are on purpose
        self.server.prepare()
        self.thread = threading.Thread(target=self.server.serve, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        for r in self.oracle.rules:
            r.release.set()
        self.server.stop()

    @property
    def port(self):
        return self.server.bind_addr[1]

    @property
    def url(self):
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    @property
    def requests(self):
        return list(self.oracle.requests)

    def clear(self):
        with self.oracle.lock:
            self.oracle.requests.clear()
            self.oracle.rules.clear()

    def rule(self, **kw):
        r = Rule(**kw)
        with self.oracle.lock:
            self.oracle.rules.append(r)
        return r

    def methods(self):
        return [r.method for r in self.requests]

    def count(self, method, pred=None):
        return sum(1 for r in self.requests if r.method == method and (pred is None or pred(r.path)))

    def etag(self, rel):
        return dav_util.get_file_etag(str(self.root / rel))

    def put(self, path, data, headers=None):
        """Another writer: a plain authenticated PUT (the test's own client)."""
        req = urllib.request.Request(self.url + urllib.parse.quote(path), data=data, method="PUT",
                                     headers={"Authorization": basic(self.user, self.password), **(headers or {})})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def dav_env(password=PASSWORD, user=USER, **more):
    env = {"DOSSIER_WEBDAV_PASSWORD": password, "DOSSIER_WEBDAV_USER": user, "HOME": more.pop("home", "")}
    env.update(more)
    if not env["HOME"]:
        del env["HOME"]
    return env


def files_containing(folder, needle: bytes):
    """Every file under folder whose bytes hold needle."""
    return [p for p in pathlib.Path(folder).rglob("*") if p.is_file() and needle in p.read_bytes()]


def multistatus(*responses, prefix="D"):
    """A multistatus document: responses are (href, props-xml) pairs."""
    p = f"{prefix}:" if prefix else ""
    ns = f'xmlns:{prefix}="DAV:"' if prefix else 'xmlns="DAV:"'
    body = "".join(f"<{p}response><{p}href>{h}</{p}href><{p}propstat><{p}prop>{props}</{p}prop>"
                   f"<{p}status>HTTP/1.1 200 OK</{p}status></{p}propstat></{p}response>" for h, props in responses)
    return f'<?xml version="1.0" encoding="utf-8"?>\n<{p}multistatus {ns}>{body}</{p}multistatus>'.encode()


def wsgidav_prefix(body):
    """The namespace prefix wsgidav used for DAV: in a multistatus body."""
    m = re.search(rb'xmlns:(\w+)="DAV:"', body)
    return m.group(1) if m else None


# MARK: - driving `dossier publish`

def publish(run_dossier, site, url, *extra, env=None, password=PASSWORD):
    e = dav_env(password=password)
    e.update(env or {})
    return run_dossier("publish", "--site", site, "--to", url, *extra, env=e, check=False, timeout=300)


def to_v2(site):
    """Edits a make_site() site: one page changed, one file new in a new folder, the
    folder recall/p01 (two files) removed. Returns the site."""
    (site / "index.html").write_text("<h1>Study, second edition</h1>\n")
    (site / "extra").mkdir(exist_ok=True)
    (site / "extra" / "new.txt").write_text("new file\n")
    for f in (site / "recall" / "p01").iterdir():
        f.unlink()
    (site / "recall" / "p01").rmdir()
    write_manifest(site)
    return site


def served(root, folder="s"):
    """(tree of the published folder without its manifest, the manifest dict)."""
    import json
    man = pathlib.Path(root) / folder / ".dossier-manifest.json"
    return tree(pathlib.Path(root) / folder), (json.loads(man.read_text()) if man.exists() else None)


def converged(root, site, folder="s"):
    """The folder equals the site, no temporary upload is left, the manifest is clean."""
    files, man = served(root, folder)
    assert files == tree(site)
    assert not [p for p in (pathlib.Path(root) / folder).rglob("*") if p.name.endswith(".dossier-upload")]
    assert man is not None and "dirty" not in man and "lease" not in man
