"""A fault-injecting WSGI middleware for the test WebDAV server (webdav_server.py).

It sits in front of wsgidav and misbehaves the way real networks and servers do, as a
JSON rules file says. The file is read again whenever it changes, so a test can switch
faults on and off while the server runs:

```
{"seed": 7,
 "rules": [{"method": "PUT", "path": "manifest.json", "fault": "cut", "offset": 10, "times": 1},
           {"method": "*", "fault": "random", "p": 0.05}]}
```

- `method`: an HTTP method or `*`; `path`: a substring of the decoded request path (all
  paths when absent); `host`: a substring of the request's `Host` header (so two
  clients of one server are told apart by the name they use: `127.0.0.1` and
  `localhost`); `after`: how many matching requests pass untouched first (0 when
  absent); `times`: how often the rule fires (unlimited when absent); `p`: the chance it
  fires on a matching request (1 when absent).
- `fault`:
  - `cut`: a PUT body is cut after `offset` bytes (a random offset within the body when
    absent): wsgidav has already opened the target for writing, so the partial body stays
    at the final name (as on many real servers); the client gets no answer (the
    connection is dropped);
  - `500` / `507`: answered with that status, the request not served;
  - `drop`: the connection is dropped before the request is served;
  - `lose`: the request is served, then the connection is dropped before the answer;
  - `random`: one of the five above, chosen by the seeded generator;
  - `ack`: (PUT and MOVE; others are served) the body is read and thrown away and `201
    Created` is answered without an entity tag: a write acknowledged but never stored
    (a replica that failed after answering, a cache that lost it);
  - `lag`: (PUT and MOVE without a condition; others are served) `201 Created` is
    answered at once without an entity tag, and the write is made only after `requests`
    more requests have arrived (a number, or `[lo, hi]` drawn by the seeded generator):
    until then GET and PROPFIND show the old state (stale reads). The server stays
    ordered: once a write waits, every later unconditional PUT or MOVE waits behind it,
    and a conditional write (`If-Match`, `If-None-Match`, `If`), a DELETE or a MKCOL first
    makes every waiting write (conditions are checked on the latest state, as a primary
    does). A change of the rules file makes every waiting write too (the server catches up);
  - `listing`: (PROPFIND; others are served) the answer is served with one more
    `<response>` for each entry of the rule's `hrefs` (`{"href": "/s/../x.html",
    "collection": false}`; `{path}` in an href stands for the request's path), as a server
    that lists what it should not (a path outside the folder, a folder with no end) would;
  - `endless`: the request is not served; the answer (`207 Multi-Status` to a PROPFIND,
    else `200 OK`) has no length and a body that never ends (1 MiB pieces until the
    client goes away), as a broken or hostile server may send;
  - `hold`: the request waits, before it is served, until the file `<gate>.go` exists
    in the rules file's folder (`gate`: a name the rule gives); a line
    `fault<TAB>METHOD<TAB>path<TAB>hold:<gate>` is logged when it starts waiting. A test
    steps two clients through a schedule with it: hold one, run the other, release.

A dropped connection is made by sending a status line and headers that promise a body,
then failing while the body is written: cheroot closes the socket, and the client sees
a transfer cut short (curl error 18), never a status it could act on.

Every fault fired is appended as one line `fault<TAB>METHOD<TAB>path<TAB>kind` to the
request log, so tests can check that the faults really happened.
"""
import json
import os
import random
import io
import threading
import time
import urllib.parse

KINDS = ("cut", "500", "507", "drop", "lose")


class _CutInput:
    """wsgi.input that ends after `limit` bytes (the rest of the body never comes).

    It ends rather than raising: wsgidav then closes the target file with what arrived
    (raising would leave the bytes in an unflushed buffer), which is what a server that
    writes the body straight to its name keeps after a cut connection."""

    def __init__(self, inner, limit):
        self.inner, self.left = inner, limit

    def read(self, size=-1):
        if self.left <= 0:
            return b""
        n = self.left if size is None or size < 0 else min(size, self.left)
        data = self.inner.read(n)
        self.left -= len(data)
        return data

    def readline(self, *a):
        return self.read(1)


def _read_body(environ):
    length = int(environ.get("CONTENT_LENGTH") or 0)
    parts = []
    while length > 0:
        chunk = environ["wsgi.input"].read(min(length, 65536))
        if not chunk:
            break
        parts.append(chunk)
        length -= len(chunk)
    return b"".join(parts)


def _delayable(environ, method, kind):
    """`ack` applies to PUT and MOVE; `lag` to those without a condition."""
    return method in ("PUT", "MOVE") and (kind == "ack" or not _conditional(environ))


def _conditional(environ):
    return any(k in environ for k in ("HTTP_IF_MATCH", "HTTP_IF_NONE_MATCH", "HTTP_IF"))


def _endless_body():
    piece = b"<" + b"x" * (1 << 20)
    while True:
        yield piece


def _broken_body():
    raise ConnectionResetError("fault_dav: answer lost")
    yield b""  # pragma: no cover  (makes this a generator)


class Faults:
    """WSGI middleware: injects the faults of the rules file `path` (see the module doc)."""

    def __init__(self, app, path, log_path=None):
        self.app, self.path, self.log_path = app, path, log_path
        self.lock = threading.Lock()
        self.mtime = None
        self.rules = []
        self.fired = {}
        self.matched = {}
        self.rng = random.Random(0)
        self.clock = 0          # requests seen: the logical clock of `lag`
        self.waiting = []       # [(due, environ)] of lagging writes, in arrival order

    def _reload(self):
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self.rules, self.mtime = [], None
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self.mtime:
            return
        self._apply(everything=True)
        with open(self.path, encoding="utf-8") as f:
            spec = json.load(f)
        self.mtime, self.rules, self.fired, self.matched = stamp, spec.get("rules", []), {}, {}
        self.rng = random.Random(spec.get("seed", 0))

    def _choose(self, method, path, host=""):
        """The fault (kind, rule) for this request, or None."""
        with self.lock:
            self._reload()
            for i, r in enumerate(self.rules):
                if r.get("method", "*") not in ("*", method) or r.get("path", "") not in path:
                    continue
                if r.get("host", "") not in host:
                    continue
                self.matched[i] = self.matched.get(i, 0) + 1
                if self.matched[i] <= r.get("after", 0):
                    continue
                if "times" in r and self.fired.get(i, 0) >= r["times"]:
                    continue
                if self.rng.random() >= r.get("p", 1):
                    continue
                kind = r["fault"]
                if kind == "random":
                    kind = self.rng.choice(KINDS)
                if kind == "cut" and method != "PUT":
                    kind = "lose"
                self.fired[i] = self.fired.get(i, 0) + 1
                return kind, r, self.rng.random()
        return None

    def _log(self, method, path, kind):
        if self.log_path:
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(f"fault\t{method}\t{path}\t{kind}\n")

    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD", "")
        path = urllib.parse.unquote(environ.get("PATH_INFO", ""))
        with self.lock:
            self.clock += 1
            self._apply(everything=self._flushes(environ, method))
        chosen = self._choose(method, path, environ.get("HTTP_HOST", ""))
        if chosen and chosen[0] in ("ack", "lag") and not _delayable(environ, method, chosen[0]):
            chosen = None       # served as it is
        if chosen is None:
            if self._waits(environ, method):
                return self._lag(environ, start_response, 0)
            return self.app(environ, start_response)
        kind, rule, draw = chosen
        if kind == "hold":
            self._log(method, path, "hold:" + rule["gate"])
            self._wait_for_gate(rule["gate"])
            return self.app(environ, start_response)
        self._log(method, path, kind)
        if kind == "endless":
            start_response("207 Multi-Status" if method == "PROPFIND" else "200 OK",
                           [("Content-Type", "application/octet-stream")])
            return _endless_body()
        if kind == "listing":
            hrefs = [{**h, "href": h["href"].replace("{path}", environ.get("PATH_INFO", ""))}
                     for h in rule.get("hrefs", [])]
            return self._listing(environ, start_response, hrefs)
        if kind == "ack":
            _read_body(environ)
            start_response("201 Created", [("Content-Type", "text/plain"), ("Content-Length", "0")])
            return [b""]
        if kind == "lag":
            n = rule.get("requests", 3)
            if isinstance(n, list):
                n = n[0] + int(draw * (n[1] - n[0] + 1))
            return self._lag(environ, start_response, n)
        if kind in ("cut", "lose"):
            with self.lock:
                self._apply(everything=True)
        if kind in ("500", "507"):
            text = "Internal Server Error" if kind == "500" else "Insufficient Storage"
            start_response(f"{kind} {text}", [("Content-Type", "text/plain"), ("Content-Length", "0")])
            return [b""]
        if kind == "drop":
            return self._drop(start_response)
        if kind == "cut":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            offset = rule.get("offset")
            if offset is None:
                offset = int(draw * length)
            environ["wsgi.input"] = _CutInput(environ["wsgi.input"], min(offset, max(length - 1, 0)))
        # "cut" and "lose": the server acts (a cut body stays as far as it came), the
        # answer is thrown away.
        self._serve_silently(environ)
        return self._drop(start_response)

    @staticmethod
    def _flushes(environ, method):
        """True for a request the waiting writes must be made before (see `lag`)."""
        return method in ("DELETE", "MKCOL", "COPY", "LOCK") or (method in ("PUT", "MOVE") and _conditional(environ))

    def _waits(self, environ, method):
        """True when this write must wait behind writes already waiting (order is kept)."""
        with self.lock:
            return bool(self.waiting) and method in ("PUT", "MOVE") and not _conditional(environ)

    def _lag(self, environ, start_response, n):
        body = _read_body(environ)
        copy = dict(environ)
        copy["wsgi.input"] = io.BytesIO(body)
        copy["CONTENT_LENGTH"] = str(len(body))
        with self.lock:
            due = max([self.clock + n] + [d for d, _ in self.waiting])
            self.waiting.append((due, copy))
        start_response("201 Created", [("Content-Type", "text/plain"), ("Content-Length", "0")])
        return [b""]

    def _apply(self, everything=False):
        """Makes the waiting writes that are due (all of them with `everything`), in order.
        Called with the lock held."""
        while self.waiting and (everything or self.waiting[0][0] <= self.clock):
            _, environ = self.waiting.pop(0)
            self._serve_silently(environ)

    def _listing(self, environ, start_response, hrefs):
        """Serves a request, adding a multistatus `<response>` for each of `hrefs`."""
        status, headers = [], []
        body = b"".join(self.app(environ, lambda st, hd, *a: (status.append(st), headers.extend(hd)) and None))
        extra = b"".join(
            b'<ns0:response xmlns:ns0="DAV:"><ns0:href>' + h["href"].encode() + b"</ns0:href><ns0:propstat>"
            + b"<ns0:prop><ns0:resourcetype>" + (b"<ns0:collection/>" if h.get("collection") else b"")
            + b'</ns0:resourcetype><ns0:getetag>"x"</ns0:getetag></ns0:prop>'
            + b"<ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response>" for h in hrefs)
        end = body.rfind(b"</")
        if end >= 0 and status and status[0].startswith("207"):
            body = body[:end] + extra + body[end:]
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        start_response(status[0] if status else "500 Internal Server Error",
                       headers + [("Content-Length", str(len(body)))])
        return [body]

    def _serve_silently(self, environ):
        """Lets wsgidav act on a request and throws its answer away."""
        try:
            body = self.app(environ, lambda *a, **k: (lambda data: None))
            for _ in body:
                pass
            if hasattr(body, "close"):
                body.close()
        except Exception:
            pass

    def _wait_for_gate(self, gate):
        """Blocks this request's thread until `<gate>.go` appears beside the rules file
        (checked every 2 ms; at most 120 s, then it goes on, so a broken test cannot hang
        the server)."""
        go = os.path.join(os.path.dirname(self.path), gate + ".go")
        for _ in range(60000):
            if os.path.exists(go):
                return
            time.sleep(0.002)

    @staticmethod
    def _drop(start_response):
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "64")])
        return _broken_body()
