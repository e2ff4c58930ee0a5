"""The release binary loads only what start-up needs (issue #20, goal 5): the Swift
runtime and Foundation are inside it (`--static-swift-stdlib`), and libcurl (publish,
sync, ingest) and libvips (panoramas) are loaded at run time by the commands that use
them, so neither they nor their dependencies appear among the binary's linked libraries.

Skipped when there is no release binary (`make release` builds it; `make test` does).
"""
import os
import re
import shutil
import subprocess

import pytest

from conftest import REPO

# Libraries that must never be linked: the run-time-loaded ones and what they pull in,
# and the Swift runtime / Foundation shared libraries (linked statically instead).
FORBIDDEN = [r"libcurl", r"libvips", r"libglib-2\.0", r"libgobject-2\.0", r"libcairo", r"libgnutls",
             r"libnghttp2", r"libkrb5", r"libldap", r"libswiftCore", r"libFoundation", r"libdispatch",
             r"libswift_Concurrency"]


def release_binary():
    env = os.environ.get("DOSSIER_RELEASE_BIN")
    path = env or str(REPO / ".build" / "release" / "dossier")
    if not os.path.exists(path):
        pytest.skip("no release binary (run `make release`)")
    return path


def linked(binary):
    ldd = shutil.which("ldd")
    if not ldd:
        pytest.skip("ldd is not installed")
    out = subprocess.run([ldd, binary], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def test_release_binary_links_neither_curl_nor_vips_nor_a_shared_swift_runtime():
    names = linked(release_binary())
    bad = [n for n in names if any(re.search(p, n) for p in FORBIDDEN)]
    assert not bad, f"linked at start-up: {bad}"
    # a handful of system libraries, not the 124 of a FoundationNetworking + libvips build
    assert len(names) <= 30, names


def test_release_binary_still_publishes_through_run_time_libcurl(tmp_path):
    """The lazily loaded transport works from the static binary (a publish to a real
    wsgidav on loopback)."""
    from webdav_server import PASSWORD, USER, WebDAVServer, make_site, tree
    binary = release_binary()
    site = make_site(tmp_path, pages=1)
    with WebDAVServer(tmp_path / "srv") as dav:
        env = dict(os.environ, DOSSIER_WEBDAV_USER=USER, DOSSIER_WEBDAV_PASSWORD=PASSWORD)
        p = subprocess.run([binary, "publish", "--site", str(site), "--to", dav.url + "s/"], env=env,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
    assert tree(tmp_path / "srv" / "s") == tree(site)
