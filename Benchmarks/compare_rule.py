"""The verdict of `Benchmarks/compare.py` (docs/benchmarks.md, "Comparing two binaries")
and the Markdown table it is shown in: pure functions of the measured numbers.

A row's verdict compares the head binary's runs with the base binary's on one measure
(CPU seconds, or peak RSS for the memory row):

- ratio = median(head) ÷ median(base);
- spread = the interquartile range of a side's runs, (q1, q3) as
  `statistics.quantiles(runs, n=4, method="inclusive")` gives them (linear
  interpolation between the sorted runs); one run's spread is that run;
- **regression**: ratio > LIMIT and q1(head) > q3(base) (the spreads do not overlap);
- **improvement**: ratio < 1 ÷ LIMIT and q3(head) < q1(base);
- **within 5 %**: 1 ÷ LIMIT ≤ ratio ≤ LIMIT;
- **unclear**: otherwise (beyond 5 % but the spreads overlap), or no base to divide by.
"""
import statistics

LIMIT = 1.05
REGRESSION, IMPROVEMENT, WITHIN, UNCLEAR = "regression", "improvement", "within 5 %", "unclear"


def spread(runs):
    """(q1, q3) of the runs: their interquartile range (the run itself for one run)."""
    runs = list(runs)
    if len(runs) == 1:
        return runs[0], runs[0]
    q1, _, q3 = statistics.quantiles(runs, n=4, method="inclusive")
    return q1, q3


def ratio(base, head):
    """median(head) ÷ median(base), or None when the base median is not positive."""
    mb = statistics.median(base)
    return statistics.median(head) / mb if mb > 0 else None


def verdict(base, head, limit=LIMIT):
    """The verdict on two lists of runs of one measure (the rule in this module's text)."""
    r = ratio(base, head)
    if r is None:
        return UNCLEAR
    (b1, b3), (h1, h3) = spread(base), spread(head)
    if r > limit and h1 > b3:
        return REGRESSION
    if r < 1 / limit and h3 < b1:
        return IMPROVEMENT
    if 1 / limit <= r <= limit:
        return WITHIN
    return UNCLEAR


def side(samples):
    """One binary's runs of a row, [(wall s, cpu s, rss MB)], as lists with medians and spreads."""
    out = {}
    for i, key in enumerate(("wall_s", "cpu_s", "rss_mb")):
        runs = [s[i] for s in samples]
        out[key] = {"runs": runs, "median": statistics.median(runs), "spread": list(spread(runs))}
    return out


def row(key, what, base, head, judged="cpu_s"):
    """A row of the comparison: both sides' numbers, head ÷ base of each measure, and the
    verdict on the `judged` one."""
    b, h = side(base), side(head)
    return {"row": key, "what": what, "judged": judged, "base": b, "head": h,
            "ratio": {k: ratio(b[k]["runs"], h[k]["runs"]) for k in b},
            "verdict": verdict(b[judged]["runs"], h[judged]["runs"])}


# MARK: - The table

def amount(x, key, like=None):
    """x in MB, or in ms below 0.1 s (of `like`, when given: one unit for a whole cell)."""
    if key == "rss_mb":
        return f"{x:.1f} MB"
    return f"{x * 1000:.1f} ms" if (x if like is None else like) < 0.1 else f"{x:.3f} s"


def cell(s, key):
    m, (q1, q3) = s[key]["median"], s[key]["spread"]
    return f"{amount(m, key)} ({amount(q1, key, m)}–{amount(q3, key, m)})"


def times(r):
    return "n/a" if r is None else f"{r:.3f}"


JUDGED = {"cpu_s": "CPU", "rss_mb": "peak RSS"}


def table(rows):
    """The Markdown table of the rows (docs/benchmarks.md shows its columns)."""
    out = ["| row | measure | base: median (q1–q3) | head: median (q1–q3) | head ÷ base | "
           "wall: base → head | wall head ÷ base | runs | verdict |",
           "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        k = r["judged"]
        wall = (f"{amount(r['base']['wall_s']['median'], 'wall_s')} → {amount(r['head']['wall_s']['median'], 'wall_s')}"
                if k == "cpu_s" else "(the study row's runs)")
        wall_ratio = times(r["ratio"]["wall_s"]) if k == "cpu_s" else ""
        verdict_cell = f"**{r['verdict']}**" if r["verdict"] in (REGRESSION, IMPROVEMENT) else r["verdict"]
        out.append(f"| {r['what']} | {JUDGED[k]} | {cell(r['base'], k)} | {cell(r['head'], k)} | "
                   f"**{times(r['ratio'][k])}** | {wall} | {wall_ratio} | {len(r['base'][k]['runs'])} | "
                   f"{verdict_cell} |")
    return "\n".join(out)
