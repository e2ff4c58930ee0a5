#!/usr/bin/env python3
"""Is one Dossier binary slower than another, row by row? (`make bench-compare`)

    python3 Benchmarks/compare.py --base OLD/dossier --head NEW/dossier
    python3 Benchmarks/compare.py --base OLD/dossier --head NEW/dossier --quick
    python3 Benchmarks/compare.py --base B --head H --rows pages --pages 2000 --pages-runs 3

The rows of `make bench` (Benchmarks/run.sh) that time Dossier alone: start-up, Markdown,
pages, failing build, study, peak RSS of the study build, incremental. Each row runs the
two binaries alternately (base, head, base, head, …) on the same generated inputs and
reports the CPU (user + system) and wall medians of each, head ÷ base, the interquartile
spread and a verdict (Benchmarks/compare_rule.py; docs/benchmarks.md, "Comparing two
binaries"). The table goes to stdout and `--out`; every run's numbers to
$BENCH_RESULTS/compare.json (default Benchmarks/work/results/).
"""
import argparse
import hashlib
import os
import resource
import shutil
import sys
import time
from pathlib import Path

import compare_rule
from bench import big_markdown, make_pages, one_line_markdown
from bench_common import WORK, alternate, retire, rm, save, settle, timed
from bench_floor import make_failing, timed_status
from bench_study import changed_log, make_study

ROWS = ("startup", "markdown", "pages", "failing", "study", "rss", "incremental")
# run.sh's sizes and runs; the study's 3 runs are 5 here (a verdict needs a spread)
FULL = {"pages": 10000, "pages_runs": 5, "mb": 20, "markdown_runs": 15, "startup_runs": 101,
        "participants": 2000, "study_runs": 5, "incremental_runs": 5}
QUICK = {"pages": 100, "pages_runs": 2, "mb": 1, "markdown_runs": 2, "startup_runs": 3,
         "participants": 8, "study_runs": 2, "incremental_runs": 2}
TRASH = WORK / ".compare-trash"     # earlier outputs, moved aside and deleted after the last row


def pair(o, argv):
    """The two contenders of a row for `alternate`: base first, then head."""
    return [("base", argv(o.base)), ("head", argv(o.head))]


def timed_pairs(o, runs, contenders, prepare=None, quiet=False):
    """`o.warmup` untimed pairs (base, head), then `runs` timed ones: the first runs after
    `settle` pay for what it dropped, and would always be base's. `prepare` is told the
    number of the run counting the warm-up runs (0, 1, …), so a change it makes alternates
    across them too."""
    alternate(o.warmup, contenders, prepare, quiet=True)
    shifted = (lambda name, i: prepare(name, i + o.warmup)) if prepare else None
    return alternate(runs, contenders, shifted, quiet)


def settled(o, *inputs):
    """`settle` before a row's timed runs, with both binaries read back in; notes whether
    the caches could be dropped."""
    o.caches_dropped = settle(*inputs, o.base, o.head)


def retire_outputs(project):
    for p in [project / "_site", project / ".dossier", *project.glob("_site.*")]:
        retire(p, TRASH)


# MARK: - Rows

def row_startup(o):
    path = one_line_markdown()
    print(f"start-up: `dossier markdown` of a one-line file, {o.startup_runs} alternating runs")
    res = timed_pairs(o, o.startup_runs, pair(o, lambda d: [d, "markdown", str(path)]), quiet=True)
    return "start-up: `dossier markdown` of a one-line file", res


def row_markdown(o):
    path = big_markdown(o.mb)
    settled(o, path)
    print(f"Markdown: {path.stat().st_size / 1e6:.1f} MB, {o.markdown_runs} alternating runs")
    res = timed_pairs(o, o.markdown_runs, pair(o, lambda d: [d, "markdown", str(path)]))
    return f"Markdown, `dossier markdown` of a {path.stat().st_size / 1e6:.1f} MB document", res


def row_pages(o):
    project = make_pages(o.pages) / "dossier"
    settled(o, project / "content")
    print(f"pages: {o.pages} pages, {o.pages_runs} alternating runs")
    res = timed_pairs(o, o.pages_runs, pair(o, lambda d: [d, "build", "--clean", "--quiet", str(project)]),
                    lambda name, i: retire_outputs(project))
    return f"pages: `dossier build --clean` of {o.pages:,} pages", res


def row_failing(o):
    _, project = make_failing(o.pages)
    settled(o, project / "content")
    print(f"failing build: {o.pages} pages, 10 % with a dangling link, {o.pages_runs} alternating runs")

    def build(d):     # must fail: exit 1 (dangling links)
        return lambda: timed_status([d, "build", "--clean", "--quiet", str(project)], 1)
    res = timed_pairs(o, o.pages_runs, pair(o, build), lambda name, i: retire_outputs(project))
    return f"failing build: {o.pages:,} pages, {(o.pages + 9) // 10:,} dangling links (exit 1)", res


def with_own_peak(argv):
    """A contender for `alternate` that runs `argv` under `/usr/bin/time`, whose own small
    process starts it: its peak RSS is then the command's own, not at least this harness's
    (a child's `ru_maxrss` starts from its parent's peak). Wall and CPU still come from
    `wait4` (they include `time`'s own few hundred microseconds)."""
    peak = WORK / ".compare-peak-rss"

    def run():
        wall, cpu, _ = timed(["/usr/bin/time", "-f", "%M", "-o", str(peak), *argv])
        return wall, cpu, int(peak.read_text().split()[-1]) / 1024.0
    return run


def row_study(o):
    project = make_study(o.participants)
    settled(o, project / "data")
    print(f"study: {o.participants} participants, {o.study_runs} alternating runs")
    res = timed_pairs(o, o.study_runs,
                      pair(o, lambda d: with_own_peak([d, "build", "--clean", "--quiet", str(project)])),
                      lambda name, i: retire_outputs(project))
    return f"study: `dossier build --clean`, {o.participants:,} participants", res


def incremental_copy(src, dst, victim, original):
    """dst: the study `src` with its logs hard-linked, except the changed one (`victim`,
    a file of its own, holding `original`)."""
    retire(dst, TRASH)
    (dst / "data/logs").mkdir(parents=True)
    for f in (src / "data/logs").glob("*.jsonl"):
        if f.name != victim:
            os.link(f, dst / "data/logs" / f.name)
    (dst / "data/logs" / victim).write_bytes(original)
    shutil.copy(src / "data/strings.txt", dst / "data/strings.txt")
    shutil.copy(src / "dossier.yml", dst / "dossier.yml")


def row_incremental(o):
    """Each binary builds its own copy of the study (a build reads the cache its own
    version wrote); both copies change the same log the same way before each run."""
    src = make_study(o.participants)
    victim, original, changed = changed_log(src, o.base)
    projects = {name: WORK / f"compare-incremental-{o.participants}" / name for name in ("base", "head")}
    for name, d in (("base", o.base), ("head", o.head)):
        incremental_copy(src, projects[name], victim.name, original)
        timed([d, "build", "--quiet", str(projects[name])])          # the full build before, untimed
    settled(o, *(p / x for p in projects.values() for x in ("data", ".dossier", "_site", "_site.manifest.json")))

    def change(name, i):   # the other session, then the original again, alternately: each build sees one change
        (projects[name] / "data/logs" / victim.name).write_bytes(changed if i % 2 == 0 else original)
    print(f"incremental: change {victim.name} of {o.participants}, {o.incremental_runs} alternating runs")
    res = timed_pairs(o, o.incremental_runs, [(name, [d, "build", "--quiet", str(projects[name])])
                                         for name, d in (("base", o.base), ("head", o.head))], change)
    for p in projects.values():
        retire(p, TRASH)
    return f"incremental: `dossier build` after one changed log ({victim.name} of {o.participants:,})", res


# MARK: - Running

def measure(o):
    """Runs the chosen rows in the order of ROWS; the memory row is judged on the study
    row's runs (their peak RSS), so either of the two runs the study builds."""
    rows = []
    runners = {"startup": row_startup, "markdown": row_markdown, "pages": row_pages, "failing": row_failing,
               "study": row_study, "incremental": row_incremental}
    for key, run in runners.items():
        wanted = [k for k in ((key, "rss") if key == "study" else (key,)) if k in o.rows]
        if not wanted:
            continue
        load = os.getloadavg()[0]
        t0 = time.time()
        what, res = run(o)
        made = [compare_rule.row(k, what, res["base"], res["head"]) if k != "rss" else
                compare_rule.row(k, f"peak RSS of the study build, {o.participants:,} participants",
                                 res["base"], res["head"], judged="rss_mb") for k in wanted]
        for r in made:
            r.update(load_at_start=round(load, 2), load_at_end=round(os.getloadavg()[0], 2),
                     seconds=round(time.time() - t0, 1))
            print(f"  -> {r['row']}: head ÷ base {compare_rule.times(r['ratio'][r['judged']])}: {r['verdict']}",
                  flush=True)
        rows += made
    rm(TRASH)
    return rows


def binary(path, label):
    p = Path(path).resolve()
    if not (p.is_file() and os.access(p, os.X_OK)):
        sys.exit(f"compare: no executable dossier at {path}")
    commit = p.parent / "commit.txt"     # written by Benchmarks/build_rev.sh
    return {"path": str(p), "label": label or (commit.read_text().split()[0][:12] if commit.exists() else str(p)),
            "commit": commit.read_text().strip() if commit.exists() else None,
            "sha256": sha256(p)}


def sha256(path):
    """In pieces: this process's peak RSS is part of every child's (see `harness_rss_mb`)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def header(data):
    b, h = data["base"], data["head"]
    lines = [f"# Dossier: head against base, {data['when']}", "",
             f"- base: `{b['label']}` — {b['path']} (sha256 {b['sha256'][:12]})",
             f"- head: `{h['label']}` — {h['path']} (sha256 {h['sha256'][:12]})"]
    if b["sha256"] == h["sha256"]:
        lines.append("- the two binaries are the same bytes: every difference below is the machine's")
    lines += [f"- machine: {os.cpu_count()} cores; load average {data['load_at_start']} at the start, "
              f"{data['load_at_end']} at the end; caches dropped before the timed runs: {data['caches_dropped']}; "
              f"peak RSS of the harness itself (the least a child's can read): {data['harness_rss_mb']} MB",
              f"- after {data['warmup']} untimed pair(s), runs alternate base, head, base, head, …; "
              f"verdict on the CPU (user + system) medians "
              f"(peak RSS for the memory row): regression when head ÷ base > {compare_rule.LIMIT} and the "
              f"interquartile spreads do not overlap (docs/benchmarks.md, \"Comparing two binaries\")", ""]
    return "\n".join(lines)


def options(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the binary compared against (the older one)")
    ap.add_argument("--head", required=True, help="the binary under test")
    ap.add_argument("--base-label", help="its name in the report (default: commit of commit.txt beside it, or path)")
    ap.add_argument("--head-label")
    ap.add_argument("--quick", action="store_true", help="tiny sizes, 2 runs (3 for start-up): the harness works")
    ap.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, of {', '.join(ROWS)}")
    ap.add_argument("--out", help="also write the Markdown report to this file")
    ap.add_argument("--warmup", type=int, default=1, help="untimed pairs before each row's timed runs (default 1)")
    for k, v in FULL.items():
        ap.add_argument("--" + k.replace("_", "-"), type=int, help=f"default {v:,}; --quick {QUICK[k]}")
    o = ap.parse_args(argv)
    for k in FULL:
        if getattr(o, k) is None:
            setattr(o, k, (QUICK if o.quick else FULL)[k])
    o.rows = [r.strip() for r in o.rows.split(",") if r.strip()]
    unknown = [r for r in o.rows if r not in ROWS]
    if unknown:
        ap.error(f"unknown rows {', '.join(unknown)} (rows: {', '.join(ROWS)})")
    return o


def main(argv=None):
    o = options(argv)
    data = {"base": binary(o.base, o.base_label), "head": binary(o.head, o.head_label),
            "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_at_start": round(os.getloadavg()[0], 2),
            "limit": compare_rule.LIMIT, "sizes": {k: getattr(o, k) for k in FULL}, "quick": o.quick,
            "warmup": o.warmup}
    o.base, o.head = data["base"]["path"], data["head"]["path"]
    os.environ["DOSSIER_BENCH_BIN"] = o.base      # the generated inputs are made by the base binary
    o.caches_dropped = None
    WORK.mkdir(parents=True, exist_ok=True)
    rm(TRASH)
    data["rows"] = measure(o)
    data["load_at_end"] = round(os.getloadavg()[0], 2)
    # A child's ru_maxrss starts from this process's peak (Linux carries the high-water
    # mark of the memory a child starts in across exec): a peak RSS below it is not seen.
    data["harness_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    data["caches_dropped"] = "not asked (no row settles)" if o.caches_dropped is None else o.caches_dropped
    report = header(data) + "\n" + compare_rule.table(data["rows"]) + "\n"
    save("compare", data)
    print("\n" + report)
    if o.out:
        Path(o.out).parent.mkdir(parents=True, exist_ok=True)
        Path(o.out).write_text(report)


if __name__ == "__main__":
    main()
