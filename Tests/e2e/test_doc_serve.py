"""docs/serve.md: the preview server's answers for given paths, methods and Host headers
(raw HTTP/1.x on 127.0.0.1), its start-up line, where it builds, and the port refusal.
Expected answers are computed from the files of the preview site."""
import os
import pathlib
import queue
import re
import socket
import subprocess
import threading

import pytest

SERVING = re.compile(r"^Serving (.+) at http://127\.0\.0\.1:(\d+)/ \(Ctrl-C to stop\)$")


def make_site_project(root: pathlib.Path):
    (root / "content/docs").mkdir(parents=True)
    (root / "static").mkdir()
    (root / "dossier.yml").write_text("title: Preview\n")
    (root / "content/index.md").write_text("# Home\n\nSee [methods](methods.md).\n")
    (root / "content/methods.md").write_text("# Methods\n\nmethod words\n")
    (root / "content/docs/index.md").write_text("# Docs\n\ndocs words\n")
    (root / "content/draft.md").write_text("---\ndraft: true\n---\n# Draft\n\ndraft words\n")
    (root / "static/sp ace.txt").write_bytes(b"spaced\n")
    (root / "static/data.json").write_bytes(b'{"a": 1}\n')
    return root


class Server:
    def __init__(self, bin_, project, *args):
        self.project = project
        self.proc = subprocess.Popen([bin_, "serve", str(project), "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines, self.errs = queue.Queue(), queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.errs), daemon=True).start()
        self.out, self.err = [], []

    @staticmethod
    def _pump(stream, q):
        for line in stream:
            q.put(line)
        q.put(None)

    def started(self, timeout=120):
        line = self.lines.get(timeout=timeout)
        assert line is not None, f"serve ended: {self.proc.wait()}"
        self.out.append(line)
        m = SERVING.match(line.rstrip("\n"))
        assert m, line
        self.port = int(m.group(2))
        return self

    @property
    def site(self):
        return self.project / ".dossier/preview/site"

    def request(self, raw: bytes):
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as s:
            s.sendall(raw)
            chunks = []
            while True:
                c = s.recv(65536)
                if not c:
                    break
                chunks.append(c)
        data = b"".join(chunks)
        if not data:
            return 0, {}, b"", ""
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for l in lines[1:]:
            k, _, v = l.partition(":")
            headers[k.strip().lower()] = v.strip()
        return status, headers, body, lines[0]

    def get(self, path, method="GET", host="127.0.0.1", version="HTTP/1.1", extra=""):
        h = f"Host: {host}\r\n" if host is not None else ""
        return self.request(f"{method} {path} {version}\r\n{h}{extra}\r\n".encode("latin-1"))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=60)
        while True:
            try:
                line = self.lines.get(timeout=10)
            except queue.Empty:
                break
            if line is None:
                break
            self.out.append(line)
        while True:
            try:
                line = self.errs.get(timeout=10)
            except queue.Empty:
                break
            if line is None:
                break
            self.err.append(line)


@pytest.fixture(scope="module")
def server(dossier_bin, tmp_path_factory):
    s = Server(dossier_bin, make_site_project(tmp_path_factory.mktemp("serve") / "proj"), "-q").started()
    yield s
    s.stop()


def live_reloaded(file_bytes, body):
    """body is the file with one script inserted before its last </body>."""
    i = file_bytes.rfind(b"</body>")
    assert i >= 0
    assert body.startswith(file_bytes[:i]) and body.endswith(file_bytes[i:]), "only an insertion before </body>"
    inserted = body[i:len(body) - (len(file_bytes) - i)]
    assert b"<script" in inserted and b"/__dossier/version" in inserted
    return inserted


def assert_framing(headers, body, method="GET"):
    assert headers.get("connection") == "close"
    assert "content-length" in headers
    if method == "GET":
        assert int(headers["content-length"]) == len(body)
    else:
        assert body == b""


# MARK: - start-up and where it builds

def test_it_builds_into_the_preview_folder_and_listens_on_loopback_only(server):
    assert (server.site / "index.html").is_file()
    assert not (server.project / "_site").exists()
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if os.path.exists(table):
            for row in open(table).read().splitlines()[1:]:
                cols = row.split()
                addr, port = cols[1].rsplit(":", 1)
                if int(port, 16) == server.port and cols[3] == "0A":
                    listening.append(addr)
    assert listening == ["0100007F"], "one listening socket, on 127.0.0.1"


def test_with_q_the_serving_line_is_all_it_prints(dossier_bin, tmp_path):
    s = Server(dossier_bin, make_site_project(tmp_path / "p"), "-q").started()
    assert s.get("/")[0] == 200
    s.stop()
    assert s.out == [f"Serving {s.project} at http://127.0.0.1:{s.port}/ (Ctrl-C to stop)\n"]
    assert s.err == []


# MARK: - answers

def test_a_page_gets_200_with_the_live_reload_script(server):
    status, headers, body, _ = server.get("/")
    assert status == 200
    assert headers["content-type"].startswith("text/html")
    assert headers["cache-control"] == "no-store"
    assert_framing(headers, body)
    live_reloaded((server.site / "index.html").read_bytes(), body)


def test_head_gets_the_same_head_without_the_body(server):
    g = server.get("/methods/")
    h = server.get("/methods/", method="HEAD")
    assert h[0] == g[0] == 200
    assert h[1] == g[1]
    assert h[2] == b""


def test_a_file_that_is_not_html_is_sent_as_it_is(server):
    for path, rel in [("/assets/dossier.css", "assets/dossier.css"), ("/data.json", "data.json"),
                      ("/sp%20ace.txt", "sp ace.txt")]:
        status, headers, body, _ = server.get(path)
        assert status == 200, path
        assert body == (server.site / rel).read_bytes()
        assert headers["cache-control"] == "no-store"
        assert_framing(headers, body)


def test_query_and_fragment_are_ignored(server):
    plain = server.get("/methods/")
    assert server.get("/methods/?v=1")[2] == plain[2]
    assert server.get("/methods/?v=1#top")[2] == plain[2]
    assert server.get("/methods/index.html?x")[2] == plain[2]


def test_a_folder_without_its_slash_is_redirected_once(server):
    status, headers, body, _ = server.get("/methods")
    assert status == 301 and headers["location"] == "/methods/"
    assert_framing(headers, body)
    assert server.get("/docs")[1]["location"] == "/docs/"
    assert server.get("/docs/")[0] == 200
    assert server.get("/methods/")[0] == 200


@pytest.mark.parametrize("path", ["/methods/../index.html", "/%2e%2e/etc/passwd", "/docs/%2E%2E/index.html",
                                  "/.."])
def test_a_dotdot_segment_is_forbidden(server, path):
    status, headers, body, _ = server.get(path)
    assert status == 403
    assert_framing(headers, body)


def test_a_missing_file_gets_the_sites_404_page_with_a_base(server):
    status, headers, body, _ = server.get("/no/such/page.html")
    assert status == 404
    assert headers["content-type"].startswith("text/html")
    assert_framing(headers, body)
    page = (server.site / "404.html").read_bytes()
    i = page.index(b"<head>") + len(b"<head>")
    with_base = page[:i] + b'\n<base href="/">' + page[i:]   # serve.md: a line feed, then the tag
    live_reloaded(with_base, body)
    head = server.get("/no/such/page.html", method="HEAD")
    assert head[0] == 404 and head[1] == headers and head[2] == b""


def test_drafts_are_left_out_without_drafts(server):
    assert server.get("/draft/")[0] == 404


def test_the_version_endpoint(server):
    status, headers, body, _ = server.get("/__dossier/version")
    assert status == 200
    assert headers["content-type"].startswith("text/plain")
    assert headers["cache-control"] == "no-store"
    assert re.fullmatch(rb"\d+", body)
    assert_framing(headers, body)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
def test_other_methods_get_405(server, method):
    status, headers, body, _ = server.get("/", method=method)
    assert status == 405 and headers["allow"] == "GET, HEAD"
    assert_framing(headers, body)


@pytest.mark.parametrize("raw", [b"GET /\r\nHost: 127.0.0.1\r\n\r\n", b"GET / HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n",
                                 b"hello\r\n\r\n", b"GET / FTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                                 b"GET index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                                 b"GET http://127.0.0.1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"])
def test_a_bad_request_line_or_target_gets_400(server, raw):
    status, headers, body, _ = server.request(raw)
    assert status == 400
    assert_framing(headers, body)


@pytest.mark.parametrize("host", [None, "localhost", "LocalHost", "localhost:1234", "127.0.0.1", "127.0.0.1:9000",
                                  "10.1.2.3", "999.0.0.1", "[::1]", "[::1]:8000", "[::FFFF:127.0.0.1]", "[fe80::A]"])
def test_loopback_and_ip_hosts_are_answered(server, host):
    version = "HTTP/1.0" if host is None else "HTTP/1.1"
    status, headers, body, _ = server.get("/", host=host, version=version)
    assert status == 200, host


@pytest.mark.parametrize("host", ["example.com", "evil.localhost", "localhost.", "1234.0.0.1", "127.0.0",
                                  "127.0.0.1.5", "[::1", "[fe80::1%25eth0]", "localhost:80a", "127.0.0.1:-1",
                                  "[::g]", "a.b.c.d"])
def test_any_other_host_gets_403_before_method_or_path(server, host):
    want = (f"dossier serve answers only http://127.0.0.1:{server.port}/ or http://localhost:{server.port}/ "
            "(or an IP address); this request named another host")
    for method, path in [("GET", "/"), ("POST", "/"), ("GET", "/missing"), ("GET", "/../x")]:
        status, headers, body, _ = server.get(path, method=method, host=host)
        assert status == 403, (host, method, path)
        assert headers["content-type"].startswith("text/plain")
        assert body.decode().startswith(want)
        assert_framing(headers, body)


# MARK: - the port

def test_a_port_in_use_is_refused_at_once_with_nothing_built(dossier_bin, tmp_path):
    p = make_site_project(tmp_path / "p")
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        proc = subprocess.run([dossier_bin, "serve", str(p), "--port", str(port)], capture_output=True, text=True,
                              timeout=120)
    finally:
        holder.close()
    assert proc.returncode == 1
    assert f"error: cannot listen on 127.0.0.1:{port}: the port is already in use; choose another --port " \
        "(0 picks a free one)" in proc.stderr.splitlines(), proc.stderr
    assert proc.stdout == ""
    assert not (p / ".dossier/preview/site").exists() and not (p / "_site").exists()


def test_a_head_cut_at_64_kib_is_not_answered_as_if_it_had_no_host(server):
    """"It reads the request head (up to the blank line; at most 64 KiB …)": 64 KiB
    without the blank line is not a whole head, so it cannot be taken for a request that
    sent no Host (its Host could come next). Exactly 64 KiB is sent, so nothing is left
    unread when the server closes."""
    head = b"GET / HTTP/1.1\r\nX-Pad: "
    raw = head + b"a" * (64 * 1024 - len(head))
    status, headers, body, _ = server.request(raw)
    assert status != 200, "a cut head was served as a request without Host"
    assert b"<html" not in body
