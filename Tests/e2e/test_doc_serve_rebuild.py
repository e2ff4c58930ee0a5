"""docs/serve.md: rebuilds on a change (seen through /__dossier/version, polled until it
moves: a condition, not a timer), the banner after a failed rebuild, --drafts, the build
log, and the preview folder's lock (docs/output-manifest.md "One command at a time")."""
import fcntl
import os
import re
import socket
import subprocess
import time

import pytest

from test_doc_serve import Server, make_site_project


def version(s):
    return int(s.get("/__dossier/version")[2])


def until_version_moves(s, old, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = version(s)
        if v != old:
            return v
        time.sleep(0.1)
    raise AssertionError("no rebuild")


def test_a_changed_page_is_rebuilt_and_the_counter_moves(dossier_bin, tmp_path):
    s = Server(dossier_bin, make_site_project(tmp_path / "p"), "-q").started()
    try:
        v0 = version(s)
        (s.project / "content/methods.md").write_text("# Methods\n\nnew words here\n")
        v1 = until_version_moves(s, v0)
        assert v1 > v0
        body = s.get("/methods/")[2]
        assert b"new words here" in body
        assert not (s.project / "_site").exists()
    finally:
        s.stop()
    assert len(s.out) == 1 and s.err == []


def test_a_failed_rebuild_shows_a_banner_above_body_then_goes(dossier_bin, tmp_path):
    s = Server(dossier_bin, make_site_project(tmp_path / "p"), "-q").started()
    try:
        v0 = version(s)
        good = (s.site / "methods/index.html").read_bytes()
        (s.project / "content/bad.md").write_text("---\ntitel: x\n---\n# Bad\n")
        v1 = until_version_moves(s, v0)
        body = s.get("/methods/")[2]
        at = body.index(b"<body")
        assert b"bad.md" in body[:at] and b"titel" in body[:at], "the error, above <body"
        assert (s.site / "methods/index.html").read_bytes() == good, "the preview site is left as it was"
        (s.project / "content/bad.md").unlink()
        until_version_moves(s, v1)
        body = s.get("/methods/")[2]
        assert b"titel" not in body
    finally:
        s.stop()
    assert any("titel" in line for line in s.err), "-q still shows errors"


def test_drafts_are_served_with_drafts(dossier_bin, tmp_path):
    s = Server(dossier_bin, make_site_project(tmp_path / "p"), "--drafts", "-q").started()
    try:
        status, _, body, _ = s.get("/draft/")
        assert status == 200 and b"draft words" in body
    finally:
        s.stop()


def test_without_q_the_build_log_goes_to_stderr_and_stdout_is_the_serving_line(dossier_bin, tmp_path):
    s = Server(dossier_bin, make_site_project(tmp_path / "p")).started()
    s.stop()
    assert len(s.out) == 1
    assert any(re.match(r"\[\d+/\d+\] ", line) for line in s.err), s.err


def hold(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_serve_waits_for_the_preview_lock_and_says_so(dossier_bin, tmp_path):
    p = make_site_project(tmp_path / "p")
    fd = hold(p / ".dossier/preview/.site.lock")
    s = Server(dossier_bin, p, "-q")
    try:
        line = s.errs.get(timeout=120)
        assert line == ("waiting for another dossier command to finish with this site (one command at a time "
                        "builds, publishes or archives it) …\n")
        assert not (p / ".dossier/preview/site").exists()
        assert s.lines.empty()
    finally:
        os.close(fd)
    s.started()
    assert s.get("/")[0] == 200
    s.stop()


def test_a_build_does_not_wait_for_the_preview_lock(dossier_bin, tmp_path):
    p = make_site_project(tmp_path / "p")
    fd = hold(p / ".dossier/preview/.site.lock")
    try:
        proc = subprocess.run([dossier_bin, "build", str(p)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert "waiting for" not in proc.stderr
    finally:
        os.close(fd)


def test_the_first_serve_of_a_project_locks_the_preview_folder(dossier_bin, tmp_path):
    """"Its builds lock the preview folder (.dossier/preview/.site.lock …)", a file "made
    with mode 0600 if missing" and "never removed"."""
    p = make_site_project(tmp_path / "p")
    s = Server(dossier_bin, p, "-q").started()
    s.stop()
    lock = p / ".dossier/preview/.site.lock"
    assert lock.exists(), "the first build of serve took the preview lock"
    assert lock.stat().st_mode & 0o777 == 0o600


def test_two_serves_of_one_project_take_turns(dossier_bin, tmp_path):
    p = make_site_project(tmp_path / "p")
    first = Server(dossier_bin, p, "-q").started()
    fd = hold(p / ".dossier/preview/.site.lock")  # as a second serve's build would hold it
    try:
        v0 = version(first)
        (p / "content/methods.md").write_text("# Methods\n\nturns\n")
        line = first.errs.get(timeout=120)
        assert line.startswith("waiting for ")
        assert version(first) == v0, "no rebuild while another holds the lock"
    finally:
        os.close(fd)
    until_version_moves(first, v0)
    assert b"turns" in first.get("/methods/")[2]
    first.stop()


def test_a_site_without_a_404_page_gets_a_small_page_naming_the_path(dossier_bin, tmp_path):
    s = Server(dossier_bin, make_site_project(tmp_path / "p"), "-q").started()
    try:
        (s.site / "404.html").unlink()  # .dossier/ is not watched: no rebuild brings it back
        status, headers, body, _ = s.get("/nowhere/page.html")
        assert status == 404 and headers["content-type"].startswith("text/html")
        assert b"/nowhere/page.html" in body
        assert int(headers["content-length"]) == len(body) and headers["connection"] == "close"
    finally:
        s.stop()


def listening_port(pid):
    """The port the process listens on, from /proc (its socket inodes in /proc/net/tcp)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    for row in open("/proc/net/tcp").read().splitlines()[1:]:
        cols = row.split()
        if cols[3] == "0A" and cols[9] in inodes:
            return int(cols[1].rsplit(":", 1)[1], 16)
    return None


def test_the_port_is_taken_before_the_first_build_and_early_requests_wait(dossier_bin, tmp_path):
    p = make_site_project(tmp_path / "p")
    fd = hold(p / ".dossier/preview/.site.lock")  # the first build waits for it
    s = Server(dossier_bin, p, "-q")
    try:
        assert s.errs.get(timeout=120).startswith("waiting for ")
        port = listening_port(s.proc.pid)
        assert port, "listening before the first build"
        conn = socket.create_connection(("127.0.0.1", port), timeout=120)
        conn.sendall(b"GET /methods/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    finally:
        os.close(fd)
    data = b""
    while True:
        c = conn.recv(65536)
        if not c:
            break
        data += c
    conn.close()
    assert data.startswith(b"HTTP/1.1 200") and b"method words" in data
    s.started()
    s.stop()
