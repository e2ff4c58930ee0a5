"""`Benchmarks/compare.py` (`make bench-compare`): two dossier binaries, every row of
`make bench` run with both alternately. Its quick mode gives every row a ratio and a
verdict; a head that burns a fixed amount of extra CPU and memory after each run is
flagged on every row; the verdicts follow the rule of docs/benchmarks.md, checked here
against a plain reimplementation of it. Timings themselves are not checked.

`make test` runs the rule; the two comparisons (four minutes of benchmark runs) run in
`make bench-quick`, with the benchmarks they keep working.
"""
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import bench_quick_only

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "Benchmarks"
ROWS = ["startup", "markdown", "pages", "failing", "study", "rss", "incremental"]
QUICK_RUNS = {"startup": 3, "markdown": 2, "pages": 2, "failing": 2, "study": 2, "rss": 2, "incremental": 2}


def rule_module():
    sys.path.insert(0, str(BENCH))
    try:
        import compare_rule
    finally:
        sys.path.pop(0)
    return compare_rule


# MARK: - The rule, written again plainly (docs/benchmarks.md, "Comparing two binaries")

def plain_median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def plain_quartile(xs, p):
    """The p-quantile by linear interpolation between the sorted runs, position (n-1)·p."""
    s = sorted(xs)
    pos = (len(s) - 1) * p
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


def plain_verdict(base, head, limit=1.05):
    if plain_median(base) <= 0:
        return "unclear"
    r = plain_median(head) / plain_median(base)
    if r > limit and plain_quartile(head, 0.25) > plain_quartile(base, 0.75):
        return "regression"
    if r < 1 / limit and plain_quartile(head, 0.75) < plain_quartile(base, 0.25):
        return "improvement"
    return "within 5 %" if 1 / limit <= r <= limit else "unclear"


def test_verdict_rule_on_given_numbers():
    rule = rule_module()
    base = [1.00, 1.02, 0.99, 1.01, 1.00]
    assert rule.verdict(base, base) == "within 5 %"                       # identical numbers
    assert rule.verdict(base, [x * 1.10 for x in base]) == "regression"   # 10 % more, tight spreads
    assert rule.verdict(base, [x * 0.90 for x in base]) == "improvement"
    # 10 % more at the median, but the head's spread reaches under the base's: not shown
    assert rule.verdict(base, [0.98, 1.00, 1.10, 1.12, 1.30]) == "unclear"
    # one slow outlier of five does not move the spread (q1–q3) nor the verdict
    assert rule.verdict(base, [1.00, 1.01, 0.99, 1.02, 3.0]) == "within 5 %"
    assert rule.verdict([1.0], [1.05]) == "within 5 %"                    # the limit itself is not beyond it
    assert rule.verdict([1.0], [1.06]) == "regression"                    # one run: its spread is the run
    assert rule.verdict([0.0, 0.0], [1.0, 1.0]) == "unclear"             # nothing to divide by
    assert rule.spread([1, 2, 3, 4, 5]) == (2, 4)
    assert rule.ratio([2.0, 4.0], [6.0]) == 2.0
    # Against the plain reimplementation, on many random lists of runs around the limit.
    rng = random.Random(7)
    seen = set()
    for _ in range(3000):
        n, m = rng.randint(1, 9), rng.randint(1, 9)
        scale = rng.choice([0.9, 1.0, 1.04, 1.07, 1.2])
        noise = rng.choice([0.001, 0.02, 0.1])
        b = [1 + rng.gauss(0, noise) for _ in range(n)]
        h = [scale * (1 + rng.gauss(0, noise)) for _ in range(m)]
        for side in (b, h):
            for i in range(len(side)):
                side[i] = max(side[i], 0.01)
        assert rule.verdict(b, h) == plain_verdict(b, h), (b, h)
        seen.add(rule.verdict(b, h))
    assert seen == {"regression", "improvement", "within 5 %", "unclear"}


# MARK: - compare.py --quick

def has_recall(dossier_bin):
    p = subprocess.run([dossier_bin, "recall", "simulate", "--help"], capture_output=True, text=True)
    return p.returncode == 0 and "--participants" in p.stdout


def compare(tmp_path, base, head, *args):
    env = dict(os.environ, BENCH_WORK=str(tmp_path / "work"), BENCH_RESULTS=str(tmp_path / "results"))
    out = tmp_path / "compare.md"
    p = subprocess.run([sys.executable, str(BENCH / "compare.py"), "--base", str(base), "--head", str(head),
                        "--quick", "--out", str(out), *args], cwd=REPO, env=env, capture_output=True, text=True,
                       timeout=900)
    assert p.returncode == 0, f"compare.py failed:\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}"
    data = json.loads((tmp_path / "results" / "compare.json").read_text())
    return data, out.read_text(), p.stdout


def check_rows_follow_the_rule(data, table):
    """Every row present once, with a ratio, the quick runs and the verdict the plain rule gives."""
    rows = {r["row"]: r for r in data["rows"]}
    assert list(rows) == ROWS
    for key, r in rows.items():
        judged = r["judged"]
        assert judged == ("rss_mb" if key == "rss" else "cpu_s")
        b, h = r["base"][judged]["runs"], r["head"][judged]["runs"]
        assert len(b) == len(h) == QUICK_RUNS[key], key
        assert all(x > 0 for x in b + h), key
        assert r["ratio"][judged] == pytest.approx(plain_median(h) / plain_median(b))
        assert r["verdict"] == plain_verdict(b, h), key
        assert f"**{r['ratio'][judged]:.3f}**" in table and r["what"] in table
    assert table.count("\n| ") == 1 + len(ROWS)      # the header, then one line a row
    return rows


@bench_quick_only("seven benchmark rows run with two binaries")
def test_quick_comparison_of_a_binary_with_itself_gives_every_row_a_ratio(dossier_bin, tmp_path):
    if not has_recall(dossier_bin):
        pytest.skip("this dossier was built without the recall domain")
    data, table, stdout = compare(tmp_path, dossier_bin, dossier_bin)
    check_rows_follow_the_rule(data, table)
    assert data["base"]["sha256"] == data["head"]["sha256"]
    assert "the two binaries are the same bytes" in table and table in stdout
    assert data["quick"] and data["sizes"]["pages"] == 100 and data["warmup"] == 1


def burner(tmp_path, real):
    """A head that is the real binary followed, after every run, by a fixed amount of work:
    a counting loop of 20 million steps (about a second of CPU time) over a 200 MB buffer
    it has written (so its peak RSS is at least 200 MB); its exit status is the binary's."""
    script = tmp_path / "slow-head" / "dossier"
    script.parent.mkdir()
    script.write_text(f"""#!/bin/bash
{real} "$@"
status=$?
{sys.executable} -c '
buf = bytearray(b"\\x01") * (200 * 1024 * 1024)
x = 0
for i in range(20_000_000):
    x += i & 7
assert buf[-1] == 1 and x > 0
'
exit $status
""")
    script.chmod(0o755)
    return script


@bench_quick_only("seven benchmark rows run with a head that burns a second a run")
def test_a_head_that_burns_more_cpu_and_memory_is_a_regression_on_every_row(dossier_bin, tmp_path):
    if not has_recall(dossier_bin):
        pytest.skip("this dossier was built without the recall domain")
    slow = burner(tmp_path, Path(dossier_bin).resolve())
    data, table, _ = compare(tmp_path, dossier_bin, slow, "--head-label", "slow", "--warmup", "0")
    rows = check_rows_follow_the_rule(data, table)
    for key, r in rows.items():
        judged = r["judged"]
        assert r["verdict"] == "regression", (key, r["base"][judged]["runs"], r["head"][judged]["runs"])
    assert min(r["head"]["rss_mb"]["runs"][0] for r in rows.values()) >= 200
    assert "`slow`" in table and "same bytes" not in table
