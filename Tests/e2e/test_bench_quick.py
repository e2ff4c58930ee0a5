"""The benchmark harness (issue #8) keeps working: `make bench-quick`'s work in a few
seconds, and the pandas peer computes the same numbers as Dossier. Timings are not checked.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "Benchmarks"

needs_tools = pytest.mark.skipif(
    shutil.which("hugo") is None or shutil.which("cmark-gfm") is None,
    reason="hugo and cmark-gfm come from scripts/deps/bench.apt (make deps)")


def has_recall(dossier_bin):
    p = subprocess.run([dossier_bin, "recall", "simulate", "--help"], capture_output=True, text=True)
    return p.returncode == 0 and "--participants" in p.stdout


def bench(dossier_bin, tmp_path, *args):
    env = dict(os.environ, DOSSIER_BENCH_BIN=str(Path(dossier_bin).resolve()),
               BENCH_RESULTS=str(tmp_path / "results"))
    p = subprocess.run([sys.executable, str(BENCH / "bench.py"), *args], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, f"bench.py {' '.join(args)} failed:\n{p.stdout}\n{p.stderr}"
    return p


def result(tmp_path, name):
    return json.loads((tmp_path / "results" / f"{name}.json").read_text())


@needs_tools
def test_markdown_command_matches_cmark_gfm_apart_from_heading_anchors(dossier_bin, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("Intro with *emphasis* and a table:\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n"
                   "- [x] done\n- ~~gone~~ https://example.org\n\n<script>x</script>\n")
    ours = subprocess.run([dossier_bin, "markdown", str(doc)], capture_output=True, text=True, check=True).stdout
    exts = sum((["-e", e] for e in ("table", "strikethrough", "autolink", "tagfilter", "tasklist")), [])
    theirs = subprocess.run(["cmark-gfm", "--validate-utf8", "--github-pre-lang", *exts, str(doc)],
                            capture_output=True, text=True, check=True).stdout
    assert ours == theirs   # no headings: byte-identical to the reference command
    doc.write_text("# One\n\ntext\n\n## Two\n")
    ours = subprocess.run([dossier_bin, "markdown", str(doc)], capture_output=True, text=True, check=True).stdout
    assert '<h1 id="one"><a class="anchor" href="#one" aria-hidden="true" tabindex="-1">#</a>One</h1>' in ours
    assert '<h2 id="two">' in ours


@needs_tools
def test_pages_and_markdown_benchmarks_run_and_record_results(dossier_bin, tmp_path):
    bench(dossier_bin, tmp_path, "pages", "--pages", "30", "--runs", "1", "--regen")
    r = result(tmp_path, "pages")
    # Both generators built every page (30 pages + the home page).
    assert r["html_files"]["dossier"] >= 31 and r["html_files"]["hugo"] >= 31
    assert r["dossier"]["runs"] == 1 and r["peer"]["median_s"] > 0
    # The C floor (issue #45) wrote the same pages in Dossier's chrome, from the same Markdown.
    floor = BENCH / "work/pages-30/floor-out"
    assert r["floor"]["runs"] == 1 and len(list(floor.glob("pages/*/index.html"))) == 30
    # each floor page is a Dossier page's chrome around what cmark-gfm makes of the same Markdown
    theirs = (floor / "pages/p00001/index.html").read_text()
    md = (BENCH / "work/pages-30/dossier/content/pages/p00001.md").read_text().split("---\n", 2)[2]
    exts = sum((["-e", e] for e in ("table", "strikethrough", "autolink", "tagfilter", "tasklist")), [])
    body = subprocess.run(["cmark-gfm", "--validate-utf8", "--github-pre-lang", *exts], input=md,
                          capture_output=True, text=True, check=True).stdout
    assert f'<article class="content-page">\n{body}\n</article>' in theirs and "<table>" in body
    assert theirs.startswith("<!DOCTYPE html>") and '<nav class="site-nav"' in theirs
    bench(dossier_bin, tmp_path, "failing", "--pages", "30", "--runs", "1")
    f = result(tmp_path, "failing")
    assert f["dangling"] == 3 and f["dossier"]["runs"] == 1 and f["peer"]["runs"] == 1
    bench(dossier_bin, tmp_path, "markdown", "--mb", "1", "--runs", "1")
    assert result(tmp_path, "markdown")["bytes"] >= 1_000_000
    bench(dossier_bin, tmp_path, "report", "--out", str(tmp_path / "RESULTS.md"))
    text = (tmp_path / "RESULTS.md").read_text()
    assert "1. 30 Markdown pages" in text and "4. Markdown" in text and "Reproduce" in text
    assert "pages ÷ their floor" in text and "failing build, 30 pages, 3 dangling links" in text


@needs_tools
def test_pandas_peer_agrees_with_dossier_on_a_small_study(dossier_bin, tmp_path):
    pytest.importorskip("pandas")
    if not has_recall(dossier_bin):
        pytest.skip("this dossier was built without the recall domain")
    bench(dossier_bin, tmp_path, "agree", "--participants", "8")
    r = result(tmp_path, "agree")
    assert r["files"] == 9 and r["differing"] == 0   # study table + one rolled-up file each
    # The comparison is not vacuous: the peer's files hold Entry rows with real numbers.
    peer = BENCH / "work/agree-8/peer/csv/participants"
    rows = [row for f in sorted(peer.glob("*.csv")) for row in csv.reader(f.open(newline=""))]
    entries = [row for row in rows if row[5] == "entry"]
    assert len(entries) > 50 and all(row[10].isdigit() for row in entries)
    table = (BENCH / "work/agree-8/_site/recall/study-table-appendix-b.csv").read_text(encoding="utf-8-sig")
    assert table == (BENCH / "work/agree-8/peer/csv/study-table.csv").read_text()


@needs_tools
def test_tuned_polars_peer_agrees_with_dossier_on_a_small_study(dossier_bin, tmp_path):
    """Issue #45's tuned peer computes the same numbers (same check as the pandas peer's)."""
    pytest.importorskip("polars")
    if not has_recall(dossier_bin):
        pytest.skip("this dossier was built without the recall domain")
    bench(dossier_bin, tmp_path, "agree", "--participants", "8", "--peer", "polars")
    r = result(tmp_path, "agree-polars")
    assert r["files"] == 9 and r["differing"] == 0
    peer = BENCH / "work/agree-polars-8/peer-polars/csv/participants"
    rows = [row for f in sorted(peer.glob("*.csv")) for row in csv.reader(f.open(newline=""))]
    entries = [row for row in rows if row[5] == "entry"]
    assert len(entries) > 50 and all(row[10].isdigit() for row in entries)
    assert any(row[5] == "dynamics" and row[17] for row in rows)     # keystroke medians, not blanks


@needs_tools
def test_study_benchmark_checks_the_tuned_peer_on_its_own_outputs(dossier_bin, tmp_path):
    """`bench.py study` compares the tuned peer's outputs of its timed runs with Dossier's
    (the same check as `agree`, on the benchmark's study), and the report's tuned-peer row
    says how many files agreed."""
    pytest.importorskip("polars")
    if not has_recall(dossier_bin):
        pytest.skip("this dossier was built without the recall domain")
    bench(dossier_bin, tmp_path, "study", "--participants", "6", "--runs", "1", "--tuned-only")
    r = result(tmp_path, "study-6")
    assert r["tuned_agreement"]["files"] == 7 and r["tuned_agreement"]["differing"] == 0
    bench(dossier_bin, tmp_path, "report", "--out", str(tmp_path / "RESULTS.md"))
    text = (tmp_path / "RESULTS.md").read_text()
    assert "tuned peer" in text and "agreement: 7 of 7 CSV files" in text


def test_agreement_check_notices_a_different_number(tmp_path):
    sys.path.insert(0, str(BENCH))
    try:
        import bench as b
    finally:
        sys.path.pop(0)
    ours, theirs = tmp_path / "ours.csv", tmp_path / "theirs.csv"
    header = "participant,string,target,length,phase,item,index,field,start_ms,end_ms,duration_ms\r\n"
    ours.write_text(header + "S1,1,abc,3,Entry,entry,1,1,10,20,10\r\nS1,1,abc,3,Entry,entry,2,2,30,45,15\r\n")
    theirs.write_text(header + "S1,1,abc,3,Entry,entry,2,2,30,45,15\r\n")
    assert b.compare_rolled(ours, theirs) == []
    theirs.write_text(header + "S1,1,abc,3,Entry,entry,2,2,30,46,16\r\n")
    assert len(b.compare_rolled(ours, theirs)) == 1
    theirs.write_text(header + "S1,1,abc,3,Entry,entry,3,2,30,45,15\r\n")
    assert "no row" in b.compare_rolled(ours, theirs)[0]


@needs_tools
def test_issue_20_benchmarks_run_and_report_every_goal(dossier_bin, tmp_path):
    """The floor, start-up and three-size incremental benchmarks run and the report marks
    each of issue #20's goals met or not met (timings are not checked)."""
    if not has_recall(dossier_bin):
        pytest.skip("this dossier was built without the recall domain")
    p = subprocess.run([dossier_bin, "recall", "parse", "--help"], capture_output=True, text=True)
    assert p.returncode == 0
    bench(dossier_bin, tmp_path, "startup", "--runs", "2")
    st = result(tmp_path, "startup")
    assert st["dossier"]["runs"] == 2 and st["peer"]["median_s"] > 0
    assert st["parsed"]["runs"] == 2 and st["parsed"]["median_s"] > 0     # `dossier version`
    bench(dossier_bin, tmp_path, "incremental", "--participants", "3,5", "--runs", "1", "--memory")
    rows = result(tmp_path, "incremental")["rows"]
    assert [r["participants"] for r in rows] == [3, 5]
    assert all(r["incremental"]["median_s"] > 0 and r["full"]["median_s"] > 0 for r in rows)
    assert [r["participants"] for r in result(tmp_path, "memory")["rows"]] == [3, 5]
    bench(dossier_bin, tmp_path, "report", "--out", str(tmp_path / "RESULTS.md"))
    text = (tmp_path / "RESULTS.md").read_text()
    assert "5. start-up" in text and "three study sizes" in text and "Peak resident memory" in text
    assert "`dossier version` (through the argument parser)" in text
    assert text.count("**met**") + text.count("**not met**") >= 4


def test_parse_floor_reads_every_log_and_reports_a_bad_one(dossier_bin, tmp_path):
    if not has_recall(dossier_bin):
        pytest.skip("this dossier was built without the recall domain")
    logs = tmp_path / "logs"
    subprocess.run([dossier_bin, "recall", "simulate", "--participants", "3", "--seed", "2", "--out", str(logs)],
                   check=True, capture_output=True)
    p = subprocess.run([dossier_bin, "recall", "parse", str(logs)], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.startswith("3 logs, ")
    assert int(p.stdout.split(", ")[1].split()[0]) > 1000
    (logs / "S2.jsonl").write_text('{"type":"session"}\n{"not json\n')
    p = subprocess.run([dossier_bin, "recall", "parse", str(logs)], capture_output=True, text=True)
    assert p.returncode == 1 and "S2.jsonl" in p.stderr
