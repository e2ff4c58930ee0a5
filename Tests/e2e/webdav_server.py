"""A real WebDAV server (wsgidav + cheroot) on 127.0.0.1 for Dossier's end-to-end tests.

Run as a script it serves one folder with HTTP Basic auth on a free loopback port,
prints ``PORT <n>`` on standard output, and appends one line per request,
``METHOD<TAB>path``, to ``--log`` (counted by the tests on the server side). It stops by
itself: after ``--lifetime`` seconds, when its parent process dies, or — to simulate a
crash mid-publish — when a request of ``--die-before METHOD:N`` arrives after N of them
were served. ``--tamper METHOD:PATH:FILE:TEXT`` rewrites FILE (relative to the root, as
a new file, so its ETag changes) just before the first METHOD request on PATH is served:
a concurrent writer between a client's read and its write.

Used from Python, ``WebDAVServer(root, ...)`` is a context manager that starts it in a
subprocess and reads the request log.
"""
import argparse
import contextlib
import os
import pathlib
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = pathlib.Path(__file__).resolve()


# MARK: - server side

class Counting:
    """WSGI middleware: logs each request, dies or tampers on cue."""

    def __init__(self, app, root, log_path, die_before=None, tamper=None):
        self.app, self.root, self.log_path = app, pathlib.Path(root), log_path
        self.die_before = die_before  # (method, n)
        self.tamper = tamper          # (method, path, file, text)
        self.seen = {}
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD", "")
        path = urllib.parse.unquote(environ.get("PATH_INFO", ""))
        with self.lock:
            n = self.seen.get(method, 0)
            if self.die_before and method == self.die_before[0] and n >= self.die_before[1]:
                os._exit(3)
            self.seen[method] = n + 1
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as f:
                    f.write(f"{method}\t{path}\n")
            if self.tamper and method == self.tamper[0] and path == self.tamper[1]:
                target = self.root / self.tamper[2]
                if self.tamper[3] == "<remove>":   # the file vanishes instead
                    target.unlink()
                else:
                    tmp = target.with_name(target.name + ".tamper")
                    tmp.write_text(self.tamper[3], encoding="utf-8")
                    os.replace(tmp, target)
                self.tamper = None
        return self.app(environ, start_response)


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(args):
    from cheroot import wsgi
    from wsgidav.wsgidav_app import WsgiDAVApp

    config = {
        "provider_mapping": {"/": str(args.root)},
        "simple_dc": {"user_mapping": {"*": {args.user: {"password": args.password}}}},
        "http_authenticator": {"accept_basic": True, "accept_digest": False, "default_to_digest": False},
        "verbose": 0,
        "logging": {"enable": False},
        "dir_browser": {"enable": False},
        "lock_storage": True,
    }
    app = WsgiDAVApp(config)
    die = None
    if args.die_before:
        m, n = args.die_before.split(":")
        die = (m, int(n))
    tamper = tuple(args.tamper.split(":", 3)) if args.tamper else None
    if args.faults:
        from fault_dav import Faults
        app = Faults(app, args.faults, args.log)
    wrapped = Counting(app, args.root, args.log, die, tamper)
    # cheroot sets SO_REUSEADDR only on a fixed port, and Linux lets a later server
    # rebind a port with connections in TIME-WAIT only if the first one set it too: so
    # choose a free port here rather than binding port 0. A restart on the port of a
    # server that just died may find it briefly taken: try again for up to 10 s.
    fixed = args.port != 0
    for attempt in range(100):
        port = args.port if fixed else free_port()
        server = wsgi.Server(("127.0.0.1", port), wrapped, numthreads=8)
        if args.tls_cert:
            from cheroot.ssl.builtin import BuiltinSSLAdapter
            server.ssl_adapter = BuiltinSSLAdapter(args.tls_cert, args.tls_key)
        try:
            server.prepare()
            break
        except OSError:
            if attempt == 99:
                raise
            time.sleep(0.1)
    port = server.bind_addr[1]
    print(f"PORT {port}", flush=True)
    parent = os.getppid()
    deadline = time.time() + args.lifetime

    def watchdog():
        while True:
            time.sleep(0.5)
            if time.time() > deadline or os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watchdog, daemon=True).start()
    server.serve()


# MARK: - test side

import hashlib
import json

PASSWORD = "correct horse"
USER = "alice"


def write_manifest(site: pathlib.Path) -> pathlib.Path:
    """Writes <site>.manifest.json the way `dossier build` does (sorted by path)."""
    files = []
    for p in sorted(site.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            files.append({"path": p.relative_to(site).as_posix(), "sha256": hashlib.sha256(data).hexdigest(),
                          "size": len(data)})
    files.sort(key=lambda f: f["path"])
    out = site.parent / (site.name + ".manifest.json")
    out.write_text(json.dumps({"dossier": "0.1.0", "files": files, "inputs": []}, indent=2), encoding="utf-8")
    return out


def make_site(root: pathlib.Path, pages: int = 12) -> pathlib.Path:
    """A small hand-made site: assets, nested pages, a name with a space and a non-ASCII one."""
    site = root / "_site"
    (site / "assets").mkdir(parents=True, exist_ok=True)
    (site / "assets" / "site.css").write_text("body { font: 16px sans-serif; }\n")
    (site / "index.html").write_text("<h1>Study</h1>\n")
    for i in range(pages):
        d = site / "recall" / f"p{i:02d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "index.html").write_text(f"<h1>Participant {i}</h1>\n" + "x" * (i * 37))
        (d / "data.csv").write_text(f"trial,ms\r\n1,{300 + i}\r\n")
    (site / "notes with space.html").write_text("<p>space</p>\n")
    (site / "café.txt").write_text("crème\n")
    write_manifest(site)
    return site


def tree(folder: pathlib.Path, skip=(".dossier-manifest.json",)):
    """{relative path: bytes} of every file under folder (minus `skip`)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in folder.rglob("*") if p.is_file() and p.relative_to(folder).as_posix() not in skip}


# The kits PUT from a page (file:// or another origin), so their drops answer CORS.
KIT_CORS = {"allow_origin": "*", "allow_methods": "PUT, OPTIONS", "allow_headers": "content-type"}


def anonymous_drop(mapping):
    """A wsgidav app serving `mapping` ({"/url-prefix": folder}) to anyone, with the kits'
    CORS answer: the drop a kit's page sends its uploads to (docs/recall-kit.md)."""
    from wsgidav.wsgidav_app import WsgiDAVApp
    return WsgiDAVApp({"provider_mapping": {k: str(v) for k, v in mapping.items()},
                       "simple_dc": {"user_mapping": {"*": True}},
                       "http_authenticator": {"domain_controller": None},
                       "cors": KIT_CORS, "verbose": 1, "logging": {"enable": False}})


@contextlib.contextmanager
def serving_in_process(app):
    """Serves a WSGI app on a free 127.0.0.1 port in a thread of this process:
    ``with serving_in_process(app) as base: ...`` (base is ``http://127.0.0.1:PORT``)."""
    from cheroot import wsgi
    srv = wsgi.Server(("127.0.0.1", 0), app)
    srv.prepare()
    threading.Thread(target=srv.serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.bind_addr[1]}"
    finally:
        srv.stop()


@contextlib.contextmanager
def kit_drop_folder(root, name):
    """An anonymous drop (above) served from `root`, its folder `name` made: yields
    (that folder, its URL)."""
    (root / name).mkdir(parents=True)
    with serving_in_process(anonymous_drop({"/": root})) as base:
        yield root / name, f"{base}/{name}/"


_DEMO = {}


def built_demo(dossier_bin):
    """Examples/demo copied to a temp folder and built once per test process (building
    the demo takes minutes in a debug build); returns (project, CompletedProcess)."""
    import shutil
    import tempfile
    if "demo" not in _DEMO:
        dst = pathlib.Path(tempfile.mkdtemp(prefix="dossier-demo-")) / "demo"
        shutil.copytree(HERE.parents[2] / "Examples" / "demo", dst,
                        ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier"))
        proc = subprocess.run([dossier_bin, "build", str(dst)], capture_output=True, text=True, timeout=1200)
        _DEMO["demo"] = (dst, proc)
    return _DEMO["demo"]


def env(password=PASSWORD):
    return {"DOSSIER_WEBDAV_PASSWORD": password, "DOSSIER_WEBDAV_USER": USER}


class WebDAVServer:
    """Starts the server above in a subprocess: ``with WebDAVServer(root) as dav: dav.url``."""

    def __init__(self, root, user="alice", password="correct horse", port=0, log=None,
                 die_before=None, tamper=None, lifetime=900, tls=None, faults=None):
        self.root = pathlib.Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.user, self.password, self.port = user, password, port
        self.log = pathlib.Path(log) if log else self.root.parent / (self.root.name + ".requests.log")
        self.die_before, self.tamper, self.lifetime = die_before, tamper, lifetime
        self.tls = tls  # (cert.pem, key.pem) or None
        self.faults = faults  # a fault_dav.py rules file, or None
        self.proc = None

    def start(self):
        cmd = [sys.executable, str(HERE), "--root", str(self.root), "--user", self.user,
               "--password", self.password, "--port", str(self.port), "--log", str(self.log),
               "--lifetime", str(self.lifetime)]
        if self.die_before:
            cmd += ["--die-before", self.die_before]
        if self.tamper:
            cmd += ["--tamper", self.tamper]
        if self.faults:
            cmd += ["--faults", str(self.faults)]
        if self.tls:
            cmd += ["--tls-cert", str(self.tls[0]), "--tls-key", str(self.tls[1])]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("PORT "):
            err = self.proc.stderr.read()
            raise RuntimeError(f"webdav server did not start: {line!r} {err}")
        self.port = int(line.split()[1])
        return self

    @property
    def url(self):
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/"

    def requests(self):
        """[(method, path)] in arrival order."""
        if not self.log.exists():
            return []
        return [tuple(l.split("\t", 1)) for l in self.log.read_text(encoding="utf-8").splitlines()
                if l and not l.startswith("fault\t")]

    def faults_fired(self):
        """[(method, path, kind)] of the faults fault_dav.py injected."""
        if not self.log.exists():
            return []
        return [tuple(l.split("\t")[1:]) for l in self.log.read_text(encoding="utf-8").splitlines()
                if l.startswith("fault\t")]

    def count(self, method, path_filter=None):
        return sum(1 for m, p in self.requests() if m == method and (path_filter is None or path_filter(p)))

    def clear_log(self):
        if self.log.exists():
            self.log.unlink()

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.proc.stdout.close()
            self.proc.stderr.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True, type=pathlib.Path)
    ap.add_argument("--user", default="alice")
    ap.add_argument("--password", default=os.environ.get("WEBDAV_TEST_PASSWORD", "correct horse"))
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--die-before")
    ap.add_argument("--tamper")
    ap.add_argument("--lifetime", type=float, default=900)
    ap.add_argument("--faults", help="a fault_dav.py rules file (JSON), read again when it changes")
    ap.add_argument("--tls-cert", help="serve https with this PEM certificate (and --tls-key)")
    ap.add_argument("--tls-key")
    args = ap.parse_args()
    args.root.mkdir(parents=True, exist_ok=True)
    serve(args)


if __name__ == "__main__":
    main()
