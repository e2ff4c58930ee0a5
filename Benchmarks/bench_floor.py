"""The pages floor and the failing build (issue #45), for Benchmarks/bench.py.

The floor is Benchmarks/floor/pages_floor.c: libcmark-gfm rendering every page of the
render benchmark with Dossier's extensions and writing the same pages (in the same chrome),
home page and sitemap; compiled here with the system C compiler. A failing build is the
same corpus with a dangling link added to every tenth page (docs/benchmarks.md).
"""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench_common import HERE, WORK, alternate, dossier_bin, retire, rm, save, settle, summary

FLOOR_SRC = HERE / "floor" / "pages_floor.c"


def floor_bin():
    """Compiles pages_floor.c (again when the source is newer) and returns its path."""
    out = WORK / "pages_floor"
    if not out.exists() or out.stat().st_mtime < FLOOR_SRC.stat().st_mtime:
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libcmark-gfm"], capture_output=True,
                               text=True, check=True).stdout.split()
        subprocess.run(["cc", "-O2", "-Wno-format-truncation", "-o", str(out), str(FLOOR_SRC), *flags,
                        "-lcmark-gfm-extensions"], check=True)
    return out


def make_chrome(site, out):
    """One of Dossier's pages with its rendered Markdown replaced by `<!--body-->`."""
    page = next((site / "pages").glob("*/index.html")).read_text()
    m = re.search(r'(<article class="content-page">\n)(.*?)(\n</article>)', page, re.S)
    if not m:
        sys.exit(f"bench: no <article class=\"content-page\"> in {site}/pages/*/index.html")
    out.write_text(page[:m.start(2)] + "<!--body-->" + page[m.end(2):])


def floor_contender(dproj, out, trash):
    """The floor as a contender of `alternate`: renders dproj/content into out. Its
    previous output is moved into `trash` (deleted after the timed runs), as Dossier's
    and Hugo's are: deleting it before each run made the floor alone pay ext4's cost of
    creating files right after a deletion (its CPU swung 0.26-1.05 s at 2,000 pages)."""
    fb, chrome = floor_bin(), out.parent / "floor-chrome.html"
    rm(chrome)           # made from this run's first Dossier site

    def run():
        if not chrome.exists():
            make_chrome(dproj / "_site", chrome)
        retire(out, trash)
        return timed_status([str(fb), str(dproj / "content"), str(out), str(chrome)], 0)
    return run


def timed_status(cmd, want):
    """Runs cmd, which must exit `want`; returns (wall s, cpu s, max RSS MB)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != want:
        sys.exit(f"bench: {' '.join(cmd)} exited {code}, not {want}\n{err.decode(errors='replace')[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def make_failing(pages):
    """The pages corpus's Dossier project (made if missing) and WORK/failing-N: a copy of
    it with a dangling link added to every tenth page. Returns (passing, failing)."""
    src = WORK / f"pages-{pages}" / "dossier"
    if not (src / "content").exists():
        subprocess.run([sys.executable, str(HERE / "gen_pages.py"), "--pages", str(pages), "--out", str(src.parent)],
                       check=True)
    bad = WORK / f"failing-{pages}"
    rm(bad)              # made afresh: the corpus may have been regenerated
    shutil.copytree(src, bad, ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier", "floor-*"))
    for i, f in enumerate(sorted((bad / "content" / "pages").glob("*.md"))):
        if i % 10 == 0:
            f.write_text(f.read_text() + f"\nSee [the missing page](../gone-{i}/index.html).\n")
    return src, bad


def bench_failing(a):
    """A clean build of the pages corpus against the same corpus with a dangling link on
    every tenth page (it must fail, exit 1), alternately."""
    src, bad = make_failing(a.pages)
    d = dossier_bin()
    trash = WORK / ".failing-trash"
    rm(trash)
    settle(src / "content", bad / "content", d)

    def prepare(name, i):
        # Moved aside, not deleted, until all runs are done (see `retire`): deleting the
        # passing build's 10,000 files before each run made the next one pay for them
        # (its CPU grew from 2 s to 12 s over three runs, docs/benchmarks.md).
        for p in (src / "_site", src / ".dossier", bad / "_site", bad / ".dossier"):
            retire(p, trash)

    print(f"failing build: {a.pages} pages, 10 % with a dangling link, {a.runs} alternating runs")
    res = alternate(a.runs, [("passing", lambda: timed_status([d, "build", "--clean", "--quiet", str(src)], 0)),
                             ("failing", lambda: timed_status([d, "build", "--clean", "--quiet", str(bad)], 1))],
                    prepare)
    rm(trash)
    save("failing", {"pages": a.pages, "dangling": (a.pages + 9) // 10, "dossier": summary(res["failing"]),
                     "peer": summary(res["passing"])})


def goal_rows(pages, failing):
    """Report rows (Benchmarks/report.py): pages ÷ floor, failing ÷ passing."""
    rows = []
    if pages and "floor" in pages:
        d, f = pages["dossier"], pages["floor"]
        cpu = d["cpu_median_s"] / f["cpu_median_s"]
        rows.append(f"| 1. pages ÷ their floor (cmark-gfm renders + writes the same pages, Benchmarks/floor/) "
                    f"| cpu {d['cpu_median_s']:.2f} s | floor cpu {f['cpu_median_s']:.2f} s ({f['median_s']:.3f} s wall) "
                    f"| **{cpu:.2f}×** cpu | ≤ 1.5× | {'**met**' if cpu <= 1.5 else '**not met**'} | {f['runs']} | |")
    if failing:
        d, p = failing["dossier"], failing["peer"]
        cpu = d["cpu_median_s"] / p["cpu_median_s"]
        rows.append(f"| failing build, {failing['pages']:,} pages, {failing['dangling']:,} dangling links "
                    f"| cpu {d['cpu_median_s']:.2f} s | passing build cpu {p['cpu_median_s']:.2f} s "
                    f"| **{cpu:.2f}×** cpu | ≤ 1.2× | {'**met**' if cpu <= 1.2 else '**not met**'} | {d['runs']} | |")
    return rows
