"""The release binary loads only what start-up needs (issue #20, goal 5): the Swift
runtime and Foundation are inside it (`--static-swift-stdlib`), and libcurl (publish,
sync, ingest) and libvips (panoramas) are loaded at run time by the commands that use
them, so neither they nor their dependencies appear among the binary's linked libraries.

Skipped when there is no release binary (`make test-release` builds it and runs these).
"""
import os
import pathlib
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


# ICU (issue #45): its shared libraries, and in a static binary its data blob (a 30 MB
# table of contents named `icudtNNl/…`) and the Foundation code that needs it.
ICU_LIBS = re.compile(r"libFoundationInternationalization|lib_FoundationICU|libicu")
ICU_BYTES = re.compile(rb"icudt\d\d[lb][/_]|20FoundationInternationalization")


def icu_in(binary):
    """What of ICU `binary` loads or carries: libraries from ldd, marks in its bytes."""
    found = [n for n in linked(binary) if ICU_LIBS.search(n)]
    with open(binary, "rb") as f:
        data = f.read()
    found += sorted({m.group(0).decode() for m in ICU_BYTES.finditer(data)})
    return found


def test_icu_marks_are_found_where_icu_is():
    """The check above is not blind: the toolchain's own ICU carriers are caught by it."""
    lib = pathlib.Path(shutil.which("swift")).resolve().parents[1] / "lib" / "swift" / "linux"
    if not (lib / "libFoundation.so").exists():
        pytest.skip("no shared Foundation in this toolchain")
    assert any("lib_FoundationICU" in n for n in icu_in(str(lib / "libFoundation.so")))
    assert any(n.startswith("icudt") for n in icu_in(str(lib / "lib_FoundationICU.so")))


def test_the_shipped_release_binary_loads_no_icu_library():
    """`make release` / `make install` (--static-swift-stdlib): start-up maps no ICU
    library (the shared Foundation would load libFoundationInternationalization and
    lib_FoundationICU, 40 MB, at every start: issue #45). The file itself still carries
    ICU's code and data, linked in statically (docs/benchmarks.md, "5. Start-up")."""
    assert [n for n in linked(release_binary()) if ICU_LIBS.search(n)] == []


# ICU carried (issue #45, docs/benchmarks.md "5. Start-up"): a static binary that links
# corelibs Foundation (libFoundation.a: NSString, CharacterSet, JSONSerialization,
# formatters, NSRegularExpression…) also links FoundationInternationalization and ICU's
# data table, the symbol `icudt<NN>_dat` (30 MB), whether or not it is ever used.
ICU_DATA_SYMBOL = re.compile(r"\bicudt\d+_dat\b")


def icu_carried(binary):
    """ICU's data symbol from the symbol table (`nm`), or, for a stripped file, the marks
    of ICU's data and FoundationInternationalization in its bytes."""
    nm = shutil.which("nm")
    if nm:
        out = subprocess.run([nm, binary], capture_output=True, text=True).stdout
        if out.strip():
            return sorted({m.group(0) for m in ICU_DATA_SYMBOL.finditer(out)})
    return [n for n in icu_in(binary) if not ICU_LIBS.search(n)]


def one_line_program(tmp_path, name, body):
    """A static one-line Swift program, as the release build links (`-static-stdlib`)."""
    swiftc = shutil.which("swiftc")
    if not swiftc:
        pytest.skip("swiftc is not installed")
    src = tmp_path / f"{name}.swift"
    src.write_text(body + "\n")
    out = tmp_path / name
    subprocess.run([swiftc, "-O", "-static-stdlib", str(src), "-o", str(out)], check=True, capture_output=True,
                   timeout=600)
    return str(out)


def test_the_icu_check_finds_icu_where_it_is_and_only_there(tmp_path):
    """The check below is not blind: one call of `String(format:)` links ICU's data into a
    static program, and the same program printing with the standard library does not."""
    carrier = one_line_program(tmp_path, "fmt", 'import Foundation\nprint(String(format: "%.2f", 2.5))')
    plain = one_line_program(tmp_path, "plain", 'import FoundationEssentials\nprint(URL(fileURLWithPath: "/a").path)')
    assert icu_carried(carrier), "String(format:) should pull ICU's data into a static binary"
    assert icu_carried(plain) == []


def test_the_shipped_release_binary_carries_no_icu():
    """The static release binary holds no ICU data (`icudt<NN>_dat`): nothing in it calls
    corelibs Foundation, so neither FoundationInternationalization nor ICU is linked and
    start-up maps a file of about a fifth of the size."""
    assert icu_carried(release_binary()) == []
