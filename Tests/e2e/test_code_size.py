"""Small files with one job (docs/DESIGN: "Files under ~400 lines"): every Swift,
JavaScript and Python file of the repository (tracked, or new and not ignored) has at most
400 lines, except the vendored files listed here by path (none today; axe-core is read
from its PyPI wheel at test time, never copied in).

Lines a reader can take in: every Swift line of the repository (Sources/, Tests/, the
package manifest, Plugins/, Benchmarks/) has at most 120 characters, except inside a data
table — lines between `// BEGIN DATA TABLE` and `// END DATA TABLE` comments (a table of
values reads best one row a line) — and in the files listed in swift_long_lines_left.txt,
still waiting to be wrapped (the list only shrinks: a listed file without a long line
fails too).
"""
import re
import subprocess

from conftest import REPO

LIMIT = 400
SUFFIXES = (".swift", ".js", ".py")
VENDORED = set()   # repository paths of files copied from elsewhere, kept as they came
SWIFT_LINE_LIMIT = 120
BEGIN_TABLE = re.compile(r"^\s*// BEGIN DATA TABLE\b")
END_TABLE = re.compile(r"^\s*// END DATA TABLE\b")
# Swift files that still hold lines over 120 characters, one path a line: to be wrapped,
# then removed from the list (an empty list: every file wrapped).
LONG_LINES_LEFT = set((REPO / "Tests/e2e/swift_long_lines_left.txt").read_text().split())


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


def long_swift_lines(text):
    """(line number, length) of every line over the limit outside a data table; an
    unclosed table is an error (line number, -1) at its start."""
    out, table_start = [], None
    for n, line in enumerate(text.split("\n"), 1):
        if table_start is None and BEGIN_TABLE.match(line):
            table_start = n
        elif table_start is not None and END_TABLE.match(line):
            table_start = None
        elif table_start is None and len(line) > SWIFT_LINE_LIMIT:
            out.append((n, len(line)))
    return out + ([(table_start, -1)] if table_start is not None else [])


def swift_files():
    return [p for p in tracked_sources() if p.endswith(".swift") and (REPO / p).is_file()]


def test_no_swift_line_is_over_120_characters_outside_a_data_table():
    files = swift_files()
    assert len(files) > 200, len(files)
    over = {p: long_swift_lines((REPO / p).read_text()) for p in files if p not in LONG_LINES_LEFT}
    over = {p: lines for p, lines in over.items() if lines}
    assert not over, "wrap these lines (or mark a data table): " + "; ".join(
        f"{p}:{', '.join(str(n) for n, _ in lines[:5])}" + (f" (+{len(lines) - 5})" if len(lines) > 5 else "")
        for p, lines in sorted(over.items()))


def test_the_long_lines_list_names_files_that_still_have_them():
    wrapped = sorted(p for p in LONG_LINES_LEFT if not (REPO / p).is_file()
                     or not long_swift_lines((REPO / p).read_text()))
    assert not wrapped, "remove from LONG_LINES_LEFT: " + ", ".join(wrapped)


def test_the_line_check_fails_on_a_long_line_and_spares_a_data_table():
    long = "x" * 121
    assert long_swift_lines(f"let a = 1\n{long}\n") == [(2, 121)]
    assert long_swift_lines("x" * 120) == []
    table = f"// BEGIN DATA TABLE: one row a line\n{long}\n// END DATA TABLE\n{long}"
    assert long_swift_lines(table) == [(4, 121)]
    assert long_swift_lines(f"  // BEGIN DATA TABLE\n{long}") == [(1, -1)]
