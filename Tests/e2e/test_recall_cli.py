"""End-to-end tests of the recall section and `dossier recall` tools (the built binary).

The study table is checked against an independent Python reimplementation of the mean
entry time, computed from each participant's raw.csv (not from Dossier's rolled-up data).
"""
import csv
import io
import pathlib
import re
import shutil
import statistics

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "Tests" / "RecallStudyTests" / "Fixtures"


def make_project(root: pathlib.Path, run_dossier, n=6, seed=11, taps=False):
    logs = root / "data" / "logs"
    args = ["recall", "simulate", "--participants", n, "--seed", seed, "--out", logs]
    if taps:
        args.append("--taps")
    run_dossier(*args)
    shutil.move(str(logs / "strings.txt"), root / "data" / "strings.txt")
    shutil.copy(FIXTURES / "desktop-rolled-up-appendix-b.csv", root / "data" / "cohort.csv")
    (root / "dossier.yml").write_text(
        "title: Recall e2e\n"
        "recall:\n"
        "  strings: data/strings.txt\n"
        "  logs: data/logs\n"
        "  desktop_cohorts: data/cohort.csv\n",
        encoding="utf-8",
    )
    return root


def read_csv(path: pathlib.Path):
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))


def entry_means_from_raw(raw_rows):
    """Mean entry time per string (s) from raw.csv: a run of key presses (down/tap) in one
    Entry field, ended by a key or focus in another field, a button or a page."""
    header, rows = raw_rows[0], raw_rows[1:]
    assert header[0].startswith("A ") and header[9].startswith("J ")
    runs = {}
    current = None  # (string, phase, [times])

    def close():
        nonlocal current
        if current and current[2]:
            runs.setdefault(int(current[0]), []).append(current[2][-1] - current[2][0])
        current = None

    for r in rows:
        t, string, phase, event = int(r[0]), r[2], r[3], r[10]
        if event in ("down", "tap") and phase.startswith("Entry "):
            if current is None or (current[0], current[1]) != (string, phase):
                close()
                current = (string, phase, [])
            current[2].append(t)
        elif event == "focus":
            if current is not None and phase != current[1]:
                close()
        elif event in ("up", "touch") or event.startswith("touch "):
            continue
        else:
            close()
    close()
    return {s: statistics.fmean(d) / 1000 for s, d in runs.items()}


def test_simulate_is_deterministic(tmp_path, run_dossier):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    run_dossier("recall", "simulate", "--participants", 3, "--seed", 5, "--out", a)
    run_dossier("recall", "simulate", "--participants", 3, "--seed", 5, "--out", b)
    run_dossier("recall", "simulate", "--participants", 3, "--seed", 6, "--out", c)
    for name in ("S001.jsonl", "S002.jsonl", "S003.jsonl", "strings.txt"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    assert (a / "S001.jsonl").read_bytes() != (c / "S001.jsonl").read_bytes()


def test_simulate_usage_errors_exit_2(run_dossier):
    proc = run_dossier("recall", "simulate", "--participants", 0, "--out", "x", check=False)
    assert proc.returncode == 2


@pytest.mark.parametrize("taps", [False, True])
def test_build_matches_independent_entry_means(tmp_path, run_dossier, taps):
    root = make_project(tmp_path / "p", run_dossier, taps=taps)
    proc = run_dossier("build", root)
    assert "warning" not in proc.stderr.lower()
    site = root / "_site" / "recall"
    assert (site / "index.html").exists()
    table = read_csv(site / "study-table-appendix-b.csv")
    assert table[0][0] == "label" and table[1][0] == "order" and table[3][0] == "string length"
    order = [int(x) for x in table[1][1:]]
    lengths = [int(x) for x in table[3][1:]]
    assert lengths == sorted(lengths)
    strings = (root / "data" / "strings.txt").read_text(encoding="utf-8").splitlines()
    assert [len(strings[o - 1]) for o in order] == lengths
    checked = 0
    for row in table[5:]:
        if row[0] == "section":
            continue
        pid = row[0]
        page = site / "participants" / pid
        assert (page / "index.html").exists() and (page / "report.md").exists()
        raw = read_csv(page / "raw.csv")
        assert all(len(r) == 11 for r in raw)
        means = entry_means_from_raw(raw)
        for col, o in enumerate(order, start=1):
            if o in means:
                assert row[col] == f"{means[o]:.2f}".rstrip("0").rstrip("."), (pid, o)
                checked += 1
            else:
                assert row[col] == ""
    assert checked >= 10


def test_changing_one_log_rebuilds_one_participant(tmp_path, run_dossier):
    root = make_project(tmp_path / "p", run_dossier, n=4, taps=True)
    run_dossier("build", root)
    log = root / "data" / "logs" / "S002.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    # Drop the Thank You page: S002 becomes incomplete.
    if lines[-1].find('"thankyou"') >= 0:
        lines = lines[:-1]
    else:
        lines.append('{"t":99999999,"type":"close"}')
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = run_dossier("build", root)
    # The three other participants' pages are reused; S002, the summary and the home page are rendered.
    m = re.search(r"(\d+) pages? rendered, (\d+) unchanged", proc.stderr + proc.stdout)
    assert m and int(m.group(2)) == 3, proc.stderr
    assert "incomplete" in (root / "_site" / "recall" / "participants" / "S002" / "index.html").read_text(encoding="utf-8")


def test_time_going_backwards_is_an_error_with_file_and_line(tmp_path, run_dossier):
    root = make_project(tmp_path / "p", run_dossier, n=2, taps=True)
    log = root / "data" / "logs" / "S001.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    lines.insert(5, '{"t":1,"type":"focus","field":1}')
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = run_dossier("build", root, check=False)
    assert proc.returncode == 1
    assert "S001.jsonl:6: event time 1 goes backwards" in proc.stderr


def test_import_desktop_appendix_a(tmp_path, run_dossier):
    out = tmp_path / "p2.jsonl"
    run_dossier("recall", "import-desktop", FIXTURES / "desktop-raw-appendix-a.csv", "--out", out)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert '"participant":"2"' in lines[0]
    keys = [l for l in lines if '"type":"key"' in l]
    assert len(keys) == 23
    assert '"key":"Oemtilde","action":"up","text":"5c2\'"' in keys[11]


def test_csv_outputs_quote_and_neutralise_tricky_strings(tmp_path, run_dossier):
    root = tmp_path / "q"
    (root / "data").mkdir(parents=True)
    strings = ["=x1234", "-y,567", '+z"890', "@abcdef", " a b c", "end sp ", "q", "r", "s", "t"]
    (root / "data" / "strings.txt").write_text("\n".join(strings) + "\n", encoding="utf-8")
    run_dossier("recall", "simulate", "--participants", 2, "--seed", 3, "--abandon-rate", 0,
                "--strings", root / "data" / "strings.txt", "--out", root / "data" / "logs")
    (root / "dossier.yml").write_text("recall:\n  strings: data/strings.txt\n  logs: data/logs\n", encoding="utf-8")
    run_dossier("build", root)
    page = root / "_site" / "recall" / "participants" / "S001"
    raw = read_csv(page / "raw.csv")
    assert all(len(r) == 11 for r in raw)
    assert (page / "raw.csv").read_bytes().count(b"\r\n") == len(raw)
    targets = {r[6] for r in raw[1:] if r[6]}
    expected = {("'" + s if s[0] in "=+-@" else s) for s in strings}
    assert targets == expected
    rolled = read_csv(page / "rolled-up.csv")
    assert {r[2] for r in rolled[1:] if r[2]} == expected


def test_cohort_cells_that_only_a_number_parser_accepts_stay_neutralised_text(tmp_path, run_dossier):
    root = make_project(tmp_path / "p", run_dossier, n=1, taps=True)
    lines = (root / "data" / "cohort.csv").read_text(encoding="utf-8").splitlines()
    cells = lines[2].split(",")
    cells[1:4] = ["-0x1p4", "-inf", "-nan(SUM)"]      # in the `string` row: text, not numbers
    lines[2] = ",".join(cells)
    (root / "data" / "cohort.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    run_dossier("build", root)
    out = read_csv(root / "_site" / "recall" / "cohorts" / "cohort.csv")
    assert out[2][1:4] == ["'-0x1p4", "'-inf", "'-nan(SUM)"]
    assert out[5][1] == "1.26"                           # plain numbers stay numbers
