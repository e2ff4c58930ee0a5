"""End-to-end tests of the foundation: the built `dossier` binary on real projects."""
import contextlib
import hashlib
import os
import pathlib
import re
import select
import signal
import subprocess
import time
import urllib.request

import pytest


def tree(folder: pathlib.Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_new_then_build_makes_a_site_with_a_home_page(run_dossier, tmp_path):
    proj = tmp_path / "study"
    run_dossier("new", proj)
    out = run_dossier("build", proj)
    assert "[1/" in out.stderr and "Write site" in out.stderr
    home = (proj / "_site" / "index.html").read_text()
    assert "<title>study</title>" in home
    assert (proj / "_site" / "methods" / "index.html").exists()
    assert (proj / "_site.manifest.json").exists()


def test_bad_manifest_exits_1_prints_file_line_and_keeps_previous_site(run_dossier, tmp_path):
    proj = tmp_path / "p"
    run_dossier("new", proj)
    run_dossier("build", proj)
    before = tree(proj / "_site")
    (proj / "dossier.yml").write_text("title: x\nbogus_key: 1\n")
    r = run_dossier("build", proj, check=False)
    assert r.returncode == 1
    assert re.search(r"dossier\.yml:2: unknown key 'bogus_key'", r.stderr), r.stderr
    assert "Traceback" not in r.stderr and "Fatal error" not in r.stderr
    assert tree(proj / "_site") == before


def test_dangling_link_exits_1_with_file_line_and_keeps_previous_site(run_dossier, tmp_path):
    proj = tmp_path / "p"
    run_dossier("new", proj)
    run_dossier("build", proj)
    before = tree(proj / "_site")
    md = proj / "content" / "methods.md"
    md.write_text(md.read_text() + "\nSee [the appendix](appendix.md) and [x](../missing/index.html).\n")
    r = run_dossier("build", proj, check=False)
    assert r.returncode == 1
    assert re.search(r"content/methods\.md:\d+: dangling link '\.\./missing/index\.html'", r.stderr), r.stderr
    assert tree(proj / "_site") == before


def test_usage_error_exits_2(run_dossier):
    r = run_dossier("build", "--no-such-flag", check=False)
    assert r.returncode == 2
    r = run_dossier("frobnicate", check=False)
    assert r.returncode == 2


def test_help_teaches_with_examples(run_dossier):
    for cmd in ("build", "serve", "new", "check"):
        r = run_dossier(cmd, "--help")
        assert "Example" in r.stdout, cmd


def test_check_validates_and_writes_nothing(run_dossier, tmp_path):
    proj = tmp_path / "p"
    run_dossier("new", proj)
    r = run_dossier("check", proj)
    assert "ok:" in r.stdout
    assert not (proj / "_site").exists()
    assert not (proj / ".dossier").exists()


def test_a_check_leaves_no_temporary_files_whether_it_passes_or_fails(run_dossier, demo_copy, tmp_path):
    """What a check would keep (the units of the demo's sections) goes to a temporary folder
    removed however the check ends — a check that finds a broken link included."""
    proj = demo_copy
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"TMPDIR": str(scratch)}
    assert run_dossier("check", proj, env=env).returncode == 0
    (proj / "content" / "broken.md").write_text("# Broken\n\n[gone](nowhere.md)\n")
    failed = run_dossier("check", proj, env=env, check=False)
    assert failed.returncode == 1 and "nowhere.md" in failed.stderr
    assert list(scratch.iterdir()) == []
    assert not (proj / ".dossier").exists()


def test_rebuild_after_changing_one_file_renders_one_page(run_dossier, tmp_path):
    proj = tmp_path / "p"
    run_dossier("new", proj)
    run_dossier("build", proj)
    md = proj / "content" / "methods.md"
    md.write_text(md.read_text() + "\nOne more line.\n")
    r = run_dossier("build", proj)
    assert "Done: 1 page rendered, 2 unchanged" in r.stderr, r.stderr   # the home page and 404.html


def wait_for_port(proc, timeout=60):
    deadline = time.monotonic() + timeout
    buf = ""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            buf += line
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if m:
                return int(m.group(1))
        if proc.poll() is not None:
            raise AssertionError(f"serve exited early: {buf}{proc.stderr.read()}")
    raise AssertionError("serve never printed its address: " + buf)


@contextlib.contextmanager
def serving_new_project(dossier_bin, proj):
    """`dossier new proj`, then `dossier serve proj` on a free port until the block ends
    (stopped as Ctrl-C would): ``with serving_new_project(bin, proj) as base: ...``."""
    subprocess.run([dossier_bin, "new", str(proj)], check=True, capture_output=True)
    proc = subprocess.Popen([dossier_bin, "serve", str(proj), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        yield f"http://127.0.0.1:{wait_for_port(proc)}/"
    finally:
        stop(proc)


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def test_serve_previews_and_live_reloads(dossier_bin, tmp_path):
    proj = tmp_path / "p"
    with serving_new_project(dossier_bin, proj) as base:
        home = fetch(base)
        assert "Welcome." in home
        assert "__dossier/version" in home          # the live-reload script is injected
        version = fetch(base + "__dossier/version")
        (proj / "content" / "index.md").write_text("---\ntitle: p\n---\n# Changed home\n\nFresh words here.\n")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if "Fresh words here." in fetch(base):
                break
            time.sleep(0.2)   # polling for the rebuild, not timing anything
        else:
            raise AssertionError("the change never appeared")
        assert fetch(base + "__dossier/version") != version
        # _site was not touched by serve
        assert not (proj / "_site").exists()


def stop(proc: subprocess.Popen) -> None:
    """Stops a `dossier serve` as Ctrl-C would (killed if it does not stop)."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_serve_on_a_busy_port_is_a_clear_error(run_dossier, tmp_path):
    import socket
    proj = tmp_path / "p"
    run_dossier("new", proj)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = run_dossier("serve", proj, "--port", port, "-q", check=False, timeout=120)
    assert r.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in r.stderr


def test_demo_builds_identically_from_any_working_folder(run_dossier, tmp_path):
    """Same inputs → same bytes, wherever `dossier` is started — every file, vault/ included."""
    import shutil
    repo = pathlib.Path(__file__).resolve().parents[2]
    ignore = shutil.ignore_patterns("_site", "_site.*", ".dossier")
    a, b = tmp_path / "a" / "demo", tmp_path / "b" / "demo"
    shutil.copytree(repo / "Examples" / "demo", a, ignore=ignore)
    shutil.copytree(repo / "Examples" / "demo", b, ignore=ignore)
    # The game's privacy key is an input too (docs/game-privacy.md): the same in both.
    for d in (a, b):
        (d / ".dossier").mkdir()
        (d / ".dossier" / "privacy.key").write_text("3c91d2e4f60718a2b3c4d5e6f7081920a1b2c3d4e5f60718293a4b5c6d7e8f90\n")
    run_dossier("build", a, "-q", cwd=tmp_path)
    run_dossier("build", ".", "-q", cwd=b)
    ta = tree(a / "_site")
    tb = tree(b / "_site")
    assert ta.keys() == tb.keys()
    different = [k for k in ta if ta[k] != tb[k]]
    assert different == []
    assert set(tree(a / "_site")) == set(tree(b / "_site"))
