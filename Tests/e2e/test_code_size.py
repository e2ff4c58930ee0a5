"""Small files with one job (docs/DESIGN: "Files under ~400 lines"): every Swift,
JavaScript and Python file of the repository (tracked, or new and not ignored) has at most 400 lines, except the
vendored files listed here by path (none today; axe-core is read from its PyPI wheel at
test time, never copied in).
"""
import subprocess

from conftest import REPO

LIMIT = 400
SUFFIXES = (".swift", ".js", ".py")
VENDORED = set()   # repository paths of files copied from elsewhere, kept as they came


def tracked_sources():
    # tracked files and new ones not yet added (ignored ones, such as .build, left out)
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=REPO, capture_output=True, check=True).stdout
    return [p for p in out.decode().split("\0") if p.endswith(SUFFIXES)]


def line_count(path):
    """Lines as `wc -l` counts them, plus a last line without its newline."""
    data = (REPO / path).read_bytes()
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


def test_no_source_file_is_over_400_lines():
    files = [p for p in tracked_sources() if (REPO / p).is_file()]
    assert len(files) > 300, len(files)   # git saw the repository
    over = sorted(((line_count(p), p) for p in files if p not in VENDORED and line_count(p) > LIMIT), reverse=True)
    assert not over, "split these by topic: " + ", ".join(f"{p} ({n})" for n, p in over)


def test_the_vendored_list_names_real_files():
    assert all((REPO / p).is_file() for p in VENDORED), sorted(VENDORED)
