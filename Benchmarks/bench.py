#!/usr/bin/env python3
"""Dossier's side-by-side benchmarks (issue #8). `bash Benchmarks/run.sh` drives this.

    python3 Benchmarks/bench.py pages    --pages 10000 --runs 5     # 1. render throughput vs hugo
    python3 Benchmarks/bench.py markdown --mb 20 --runs 7           # 5. Markdown vs cmark-gfm
    python3 Benchmarks/bench.py study    --participants 2000 --runs 3   # 2. study vs pandas+hugo and the parse floor, 3. incremental
    python3 Benchmarks/bench.py incremental --participants 500,1000,2000 --runs 5  # 3. one changed log at three sizes
    python3 Benchmarks/bench.py memory   --participants 500,1000,2000  # 4. peak RSS
    python3 Benchmarks/bench.py failing  --pages 10000 --runs 5     # a build with 10 % dangling links vs passing
    python3 Benchmarks/bench.py startup  --runs 101                 # 6. `dossier markdown` of a one-line file vs cmark-gfm
    python3 Benchmarks/bench.py agree    --participants 12          # pandas peer == Dossier (numbers)
    python3 Benchmarks/bench.py report   [--out Benchmarks/RESULTS.md]

Each measuring command runs Dossier and its peer *alternately* (D, P, D, P, …) in the same
run, so both see the same machine load, and stores wall-clock medians (and CPU time and
peak RSS from wait4) in Benchmarks/work/results/<name>.json. `report` writes those into
the generated block of RESULTS.md. Dossier is `$DOSSIER_BENCH_BIN` (run.sh sets it to the
release build; `--quick` uses the debug build).
"""
import argparse
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from bench_common import HERE, RESULTS, WORK, alternate, dossier_bin, retire, rm, save, settle, summary, timed, tool_path
from bench_floor import bench_failing, floor_contender
from bench_study import PEERS, RECALL_YML, bench_incremental, bench_study, make_study, peer_cmd, prepare_peer


# MARK: - 1. Pages

def make_pages(n, regen=False):
    """WORK/pages-N/{dossier,hugo}: the same N generated Markdown pages for both (gen_pages.py)."""
    root = WORK / f"pages-{n}"
    if not (root / "dossier/content").exists() or regen:
        print(f"generating {n} pages in {root}")
        subprocess.run([sys.executable, str(HERE / "gen_pages.py"), "--pages", str(n), "--out", str(root)], check=True)
    return root


def bench_pages(a):
    root = make_pages(a.pages, a.regen)
    d = dossier_bin()
    dproj, hproj = root / "dossier", root / "hugo"

    trash = root / ".bench-trash"
    rm(trash)
    settled = settle(dproj / "content", hproj / "content", hproj / "layouts", d, tool_path("hugo"))

    def prepare(name, i):
        # Each starts from an empty output folder; the previous output is moved aside,
        # not deleted, until all runs are done (see `retire`).
        if name == "dossier":
            retire(dproj / "_site", trash); retire(dproj / ".dossier", trash)
            for p in dproj.glob("_site.*"):
                retire(p, trash)
        elif name == "hugo":
            retire(hproj / "public", trash)

    print(f"1. render throughput: {a.pages} pages, {a.runs} alternating runs (Dossier, Hugo, the C floor)")
    res = alternate(a.runs, [("dossier", [d, "build", "--clean", "--quiet", str(dproj)]),
                             ("hugo", ["hugo", "--quiet", "-s", str(hproj), "-d", str(hproj / "public")]),
                             ("floor", floor_contender(dproj, root / "floor-out", trash))],
                    prepare)
    rm(trash)
    dn = sum(1 for _ in (dproj / "_site").rglob("*.html"))
    hn = sum(1 for _ in (hproj / "public").rglob("*.html"))
    save("pages", {"pages": a.pages, "dossier": summary(res["dossier"]), "peer": summary(res["hugo"]),
                   "floor": summary(res["floor"]),
                   "html_files": {"dossier": dn, "hugo": hn}, "caches_dropped": settled})


# MARK: - 5. Markdown

def make_big_markdown(path, mb):
    """Concatenates generated pages (without front matter) up to `mb` megabytes."""
    src = WORK / "pages-md"
    if not (src / "dossier").exists():
        subprocess.run([sys.executable, str(HERE / "gen_pages.py"), "--pages", "400", "--out", str(src), "--seed", "5"],
                       check=True)
    parts = []
    for f in sorted((src / "dossier/content/pages").glob("*.md")):
        text = f.read_text()
        parts.append(text.split("---\n", 2)[2])
    chunk = "\n".join(parts)
    out, size = [], 0
    while size < mb * 1_000_000:
        out.append(chunk)
        size += len(chunk.encode())
    path.write_text("\n".join(out))


def big_markdown(mb, regen=False):
    """WORK/big-MBmb.md, made by `make_big_markdown` unless it is there already."""
    path = WORK / f"big-{mb}mb.md"
    if not path.exists() or regen:
        print(f"generating {path}")
        make_big_markdown(path, mb)
    return path


def bench_markdown(a):
    path = big_markdown(a.mb, a.regen)
    d = dossier_bin()
    exts = []
    for e in ("table", "strikethrough", "autolink", "tagfilter", "tasklist"):
        exts += ["-e", e]
    print(f"5. Markdown: {path.stat().st_size / 1e6:.1f} MB, {a.runs} alternating runs")
    res = alternate(a.runs, [("dossier", [d, "markdown", str(path)]),
                             ("cmark-gfm", ["cmark-gfm", "--validate-utf8", "--github-pre-lang", *exts, str(path)])])
    save("markdown", {"bytes": path.stat().st_size, "dossier": summary(res["dossier"]), "peer": summary(res["cmark-gfm"])})


# MARK: - 6. Start-up

def one_line_markdown():
    path = WORK / "one-line.md"
    path.write_text("Hello, *world*.\n")
    return path


def bench_startup(a):
    """`dossier markdown` of a one-line file against `cmark-gfm` on the same file,
    alternately, many runs: the median is the start-up cost."""
    path = one_line_markdown()
    d = dossier_bin()
    print(f"6. start-up: `dossier markdown` of a one-line file, {a.runs} alternating runs")
    # `dossier markdown` starts without the argument parser; every other command goes
    # through it (and reads every command's help): `dossier version` shows that cost.
    out = {"dossier": [], "cmark-gfm": [], "dossier version": []}
    for i in range(a.runs):
        out["dossier"].append(timed([d, "markdown", str(path)]))
        out["cmark-gfm"].append(timed(["cmark-gfm", str(path)]))
        out["dossier version"].append(timed([d, "version"]))
    for k, v in out.items():
        print(f"  {k:>15}: median {statistics.median(s[0] for s in v) * 1000:.1f} ms")
    save("startup", {"dossier": summary(out["dossier"]), "peer": summary(out["cmark-gfm"]),
                     "parsed": summary(out["dossier version"])})


# MARK: - 4. Memory

def bench_memory(a):
    """Peak RSS of a clean build at each size: the median of `--runs` builds, since one
    build's peak moves by 2–3 MB from run to run (how many worker threads, and so malloc
    arenas, it happens to use) — as much as the growth the goal bounds."""
    d = dossier_bin()
    rows = []
    for n in [int(x) for x in a.participants.split(",")]:
        root = make_study(n, regen=a.regen)
        logs = list((root / "data/logs").glob("*.jsonl"))
        largest = max(f.stat().st_size for f in logs) / 1e6
        samples = []
        for _ in range(a.runs):
            rm(root / "_site"); rm(root / ".dossier")
            rss = None
            if Path("/usr/bin/time").exists():
                p = subprocess.run(["/usr/bin/time", "-v", d, "build", "--clean", "--quiet", str(root)],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    sys.exit(f"bench: dossier build failed\n{p.stderr[-3000:]}")
                for line in p.stderr.splitlines():
                    if "Maximum resident set size" in line:
                        rss = int(line.split(":")[1]) / 1024.0
                how = "/usr/bin/time -v"
            if rss is None:
                rss = timed([d, "build", "--clean", "--quiet", str(root)])[2]
                how = "wait4 ru_maxrss"
            samples.append(rss)
        rss = statistics.median(samples)
        print(f"4. memory: {n} participants: peak RSS {rss:.1f} MB, median of {len(samples)} "
              f"({', '.join(f'{x:.1f}' for x in samples)}; largest log {largest:.2f} MB)")
        rows.append({"participants": n, "rss_mb": rss, "rss_runs_mb": samples, "largest_log_mb": largest,
                     "total_log_mb": sum(f.stat().st_size for f in logs) / 1e6, "how": how})
    save("memory", {"rows": rows})


# MARK: - Agreement (the pandas peer computes the same numbers)

def compare_csv(a_path, b_path):
    """Cell-by-cell comparison of two CSV files; returns a list of differences."""
    import csv
    with open(a_path, newline="", encoding="utf-8-sig") as f:
        ra = list(csv.reader(f))
    with open(b_path, newline="", encoding="utf-8-sig") as f:
        rb = list(csv.reader(f))
    diffs = []
    if len(ra) != len(rb):
        diffs.append(f"{len(ra)} rows vs {len(rb)} rows")
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x != y:
            diffs.append(f"row {i + 1}: {x} vs {y}")
    return diffs


def agree(n, seed=3, quiet=False, which="pandas"):
    root = WORK / f"agree-{n}" if which == "pandas" else WORK / f"agree-{which}-{n}"
    rm(root)
    logs = root / "data/logs"
    subprocess.run([dossier_bin(), "recall", "simulate", "--participants", str(n), "--seed", str(seed), "--out", str(logs)],
                   check=True, stdout=subprocess.DEVNULL)
    shutil.move(str(logs / "strings.txt"), str(root / "data/strings.txt"))
    (root / "dossier.yml").write_text(RECALL_YML)
    subprocess.run([dossier_bin(), "build", "--quiet", str(root)], check=True)
    prepare_peer(root, which)
    subprocess.run(peer_cmd(root, which), shell=True, check=True, executable="/bin/bash")
    files, diffs = compare_peer_outputs(root / "_site/recall", root / PEERS[which][1] / "csv")
    if not quiet:
        print(f"agreement of the {which} peer on {n} participants: {files} files compared, {len(diffs)} differ")
        for k, v in diffs.items():
            print(f"  {k}: " + "; ".join(v))
    return files, diffs


def compare_peer_outputs(site, peer):
    """A peer's CSV files (`peer`) against Dossier's (`site`, its `recall/` folder): the
    study table byte for byte, each participant's rows within Dossier's rolled-up.csv.
    Returns the number of files compared and {file: first differences}."""
    diffs = {}
    pairs = [("study-table.csv", site / "study-table-appendix-b.csv", peer / "study-table.csv")]
    for f in sorted((peer / "participants").glob("*.csv")):
        pairs.append((f"participants/{f.name}", site / "participants" / f.stem / "rolled-up.csv", f))
    for name, ours, theirs in pairs:
        d = compare_rolled(ours, theirs) if name.startswith("participants/") else compare_csv(ours, theirs)
        if d:
            diffs[name] = d[:5]
    return len(pairs), diffs


def compare_rolled(ours, theirs):
    """The peer writes a subset of rolled-up.csv's rows (the items it computes): each of its
    rows must appear, identical, in Dossier's file."""
    import csv
    with open(ours, newline="", encoding="utf-8-sig") as f:
        mine = {tuple(r[:7]): r for r in csv.reader(f)}
    with open(theirs, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    diffs = []
    for r in rows[1:]:
        m = mine.get(tuple(r[:7]))
        if m is None:
            diffs.append(f"no row {r[:7]} in Dossier's file")
        elif m != r:
            diffs.append(f"{m} vs {r}")
    return diffs


def cmd_agree(a):
    n, diffs = agree(a.participants, which=a.peer)
    save("agree" if a.peer == "pandas" else f"agree-{a.peer}",
         {"participants": a.participants, "files": n, "differing": len(diffs), "peer": a.peer})
    sys.exit(1 if diffs else 0)


# MARK: - Report

def report(a):
    from report import write_report
    write_report(RESULTS, Path(a.out))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pages"); p.add_argument("--pages", type=int, default=10000); p.add_argument("--runs", type=int, default=5)
    p.add_argument("--regen", action="store_true"); p.set_defaults(fn=bench_pages)
    p = sub.add_parser("markdown"); p.add_argument("--mb", type=int, default=20); p.add_argument("--runs", type=int, default=7)
    p.add_argument("--regen", action="store_true"); p.set_defaults(fn=bench_markdown)
    p = sub.add_parser("study"); p.add_argument("--participants", type=int, default=2000); p.add_argument("--runs", type=int, default=3)
    p.add_argument("--incremental-only", action="store_true", help="re-time only benchmark 3, against the saved full-build results")
    p.add_argument("--tuned-only", action="store_true", help="Dossier, the parse floor and the tuned Polars peer only "
                   "(no pandas peer, no incremental runs): the 500- and 10,000-participant sizes of `make bench`")
    p.add_argument("--no-peer", action="store_true", help="time Dossier and the parse floor only; the peer's times come from the saved result")
    p.add_argument("--regen", action="store_true"); p.set_defaults(fn=bench_study)
    p = sub.add_parser("incremental"); p.add_argument("--participants", default="500,1000,2000")
    p.add_argument("--runs", type=int, default=5); p.add_argument("--regen", action="store_true")
    p.add_argument("--memory", action="store_true", help="also save the clean builds' peak RSS as the memory benchmark")
    p.set_defaults(fn=bench_incremental)
    p = sub.add_parser("failing"); p.add_argument("--pages", type=int, default=10000); p.add_argument("--runs", type=int, default=5)
    p.set_defaults(fn=bench_failing)
    p = sub.add_parser("startup"); p.add_argument("--runs", type=int, default=101); p.set_defaults(fn=bench_startup)
    p = sub.add_parser("memory"); p.add_argument("--participants", default="500,1000,2000")
    p.add_argument("--runs", type=int, default=3, help="clean builds per size; the table shows their median peak")
    p.add_argument("--regen", action="store_true"); p.set_defaults(fn=bench_memory)
    p = sub.add_parser("agree"); p.add_argument("--participants", type=int, default=12)
    p.add_argument("--peer", choices=["pandas", "polars"], default="pandas"); p.set_defaults(fn=cmd_agree)
    p = sub.add_parser("report"); p.add_argument("--out", default=str(HERE / "RESULTS.md")); p.set_defaults(fn=report)
    a = ap.parse_args()
    WORK.mkdir(exist_ok=True)
    a.fn(a)


if __name__ == "__main__":
    main()
