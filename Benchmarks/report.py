"""Writes the generated block of Benchmarks/RESULTS.md from Benchmarks/work/results/*.json.

Everything between `<!-- bench:begin -->` and `<!-- bench:end -->` is replaced; the rest
of the file (profiles, optimisations, notes) is kept as written. A file without the
markers gets them appended. The goals are issue #20's (docs/benchmarks.md, "Goals").
"""
import json
from pathlib import Path

from bench_floor import goal_rows

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"

# Issue #20's goals (docs/benchmarks.md defines each).
PAGES_MAX = 0.20          # Dossier ÷ Hugo, wall and CPU (issue #45; #20 had 0.30)
STUDY_MAX = 0.05          # Dossier ÷ (pandas + Hugo)
FLOOR_MAX = 4.0           # Dossier ÷ reading and parsing the logs alone (issue #45; #20 had 3)
TUNED_MAX = 0.2           # Dossier ÷ the tuned Polars + Hugo peer, CPU (issue #45)
INCREMENTAL_MAX = 0.01    # one changed log ÷ full build, at the largest size
FLAT_MAX = 1.25           # incremental at the largest size ÷ at the smallest
MARKDOWN_MAX = 1.05       # Dossier ÷ cmark-gfm
STARTUP_MAX_MS = 6.0      # median wall time of `dossier markdown` on a one-line file (issue #45; #20 had 10)
MEMORY_MAX_MB = 100.0     # peak RSS at the largest study
MEMORY_GROWTH_MAX = 5.0   # MB per 1,000 participants between the smallest and largest study


def load(results, name):
    p = results / f"{name}.json"
    return json.loads(p.read_text()) if p.exists() else None


def verdict(ok):
    return "**met**" if ok else "**not met**"


def timing(r, name=""):
    return (f"{name}{' ' if name else ''}{r['median_s']:.3f} s (cpu {r['cpu_median_s']:.2f} s, "
            f"{r['rss_max_mb']:.0f} MB)")


def goal_pages(pages):
    d, p = pages["dossier"], pages["peer"]
    wall, cpu = d["median_s"] / p["median_s"], d["cpu_median_s"] / p["cpu_median_s"]
    row = (f"| 1. {pages['pages']:,} Markdown pages | {timing(d)} | {timing(p, 'hugo')} | "
           f"**{wall:.2f}** wall, **{cpu:.2f}** cpu | ≤ {PAGES_MAX} both | {verdict(wall <= PAGES_MAX and cpu <= PAGES_MAX)} "
           f"| {d['runs']} | {pages['html_files']['dossier']} / {pages['html_files']['hugo']} HTML files |")
    return [row]


def goal_study(s):
    d = s["dossier"]
    rows = []
    if "peer" in s:
        p = s["peer"]
        ratio = d["median_s"] / p["median_s"]
        peer_note = f"peer timed {s['peer_from']}; " if s.get("peer_from") else ""
        rows.append(f"| 2. study, {s['participants']:,} participants ({s['events']:,} events, {s['log_mb']:.0f} MB) "
                    f"| {timing(d)} | {timing(p, 'pandas+hugo')} | **{ratio:.3f}** | ≤ {STUDY_MAX} "
                    f"| {verdict(ratio <= STUDY_MAX)} | {d['runs']} | {peer_note}|")
    n = f"{s['participants']:,}"
    # (what, result key, peer name, ratio of CPU or wall, goal, ratio shown as)
    for what, key, name, cpu, goal, shown in (
            ("the tuned peer (Polars + Hugo, peers/recall_polars.py)", "tuned", "polars+hugo", True, TUNED_MAX,
             "**{:.3f}** cpu"),
            ("its floor (read + parse every log, `dossier recall parse`)", "floor", "floor", False, FLOOR_MAX,
             "**{:.2f}×**")):
        if key in s:
            o = s[key]
            r = d["cpu_median_s"] / o["cpu_median_s"] if cpu else d["median_s"] / o["median_s"]
            met, note = r <= goal, f"cpu {d['cpu_median_s'] / o['cpu_median_s']:.2f}×"
            if key == "tuned":
                # the peer's outputs of the timed runs compared with Dossier's (bench_study.peer_agreement)
                ag = s.get("tuned_agreement")
                note = (f"agreement: {ag['files'] - ag['differing']} of {ag['files']} CSV files" if ag
                        else "agreement not checked at this size")
                met = met and ag is not None and ag["differing"] == 0
            elif key == "floor":
                # CPU a participant, comparable across sizes (docs/perf-study.md: the single
                # 10,000-participant run also pays this VM for memory handed back to its host)
                note += f"; {d['cpu_median_s'] * 1000 / s['participants']:.2f} ms cpu a participant"
            rows.append(f"| 2. study ({n} participants) ÷ {what} | {timing(d)} | {timing(o, name)} "
                        f"| {shown.format(r)} | ≤ {goal:g}{'' if cpu else '×'} | {verdict(met)} | {o['runs']} "
                        f"| {note} |")
    if "incremental" in s:
        inc = s["incremental"]["median_s"] / d["median_s"]
        rows.append(f"| 3. incremental: one log changed ({s['changed_file']}) | {s['incremental']['median_s']:.3f} s "
                    f"(cpu {s['incremental']['cpu_median_s']:.2f} s) | full build {d['median_s']:.3f} s "
                    f"| **{inc * 100:.2f} %** | ≤ {INCREMENTAL_MAX * 100:g} % | {verdict(inc <= INCREMENTAL_MAX)} "
                    f"| {s['incremental']['runs']} | no change at all: {s['noop']['median_s']:.3f} s |")
    return rows


def goal_markdown(md):
    d, p = md["dossier"], md["peer"]
    ratio = d["median_s"] / p["median_s"]
    return [f"| 4. Markdown, {md['bytes'] / 1e6:.1f} MB document | {timing(d)} | {timing(p, 'cmark-gfm')} "
            f"| **{ratio:.2f}** | ≤ {MARKDOWN_MAX} | {verdict(ratio <= MARKDOWN_MAX)} | {d['runs']} | |"]


def goal_startup(st):
    d, p = st["dossier"], st["peer"]
    ms = d["median_s"] * 1000
    return [f"| 5. start-up: `dossier markdown` of a one-line file | {ms:.1f} ms ({d['rss_max_mb']:.0f} MB) "
            f"| cmark-gfm {p['median_s'] * 1000:.1f} ms ({p['rss_max_mb']:.0f} MB) | {ms:.1f} ms | ≤ {STARTUP_MAX_MS:g} ms "
            f"| {verdict(ms <= STARTUP_MAX_MS)} | {d['runs']} | median"
            + (f"; `dossier version` (through the argument parser) {st['parsed']['median_s'] * 1000:.1f} ms"
               if "parsed" in st else "") + " |"]


def incremental_table(inc):
    rows = inc["rows"]
    out = ["", "**3. One changed log at three study sizes** (`dossier build` after one participant's log changed; "
           "each size beside one full `--clean` build of it):", "",
           "| participants | incremental (wall) | incremental (cpu) | no change | full build | incremental ÷ full "
           "| output floor (cpu) | incremental ÷ floor |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        i, f = r["incremental"], r["full"]
        fl = r.get("floor")
        floor_cells = (f"| {fl['cpu_median_s']:.3f} s ({fl['files']} files, {fl['mb']:.0f} MB) "
                       f"| {i['cpu_median_s'] / max(1e-9, fl['cpu_median_s']):.1f}× |") if fl else "| — | — |"
        out.append(f"| {r['participants']:,} | {i['median_s']:.3f} s | {i['cpu_median_s']:.3f} s | {r['noop']['median_s']:.3f} s "
                   f"| {f['median_s']:.2f} s | {i['median_s'] / f['median_s'] * 100:.2f} % " + floor_cells)
    lo, hi = rows[0], rows[-1]
    flat = hi["incremental"]["median_s"] / lo["incremental"]["median_s"]
    flat_cpu = hi["incremental"]["cpu_median_s"] / max(1e-9, lo["incremental"]["cpu_median_s"])
    out += ["", f"Goal: the same cost at every size, {hi['participants']:,} ÷ {lo['participants']:,} participants ≤ "
            f"{FLAT_MAX}: {verdict(flat <= FLAT_MAX)} ({flat:.2f} wall, {flat_cpu:.2f} cpu); "
            f"≤ {INCREMENTAL_MAX * 100:g} % of the full build at {hi['participants']:,}: "
            f"{verdict(hi['incremental']['median_s'] / hi['full']['median_s'] <= INCREMENTAL_MAX)} "
            f"({hi['incremental']['median_s'] / hi['full']['median_s'] * 100:.2f} %)."]
    if lo.get("floor") and hi.get("floor"):
        out += ["", "The output floor is what any one-change build must do with these output formats: copy every "
                "study-wide file and the manifest and take their SHA-256 (docs/incremental.md, round five); "
                f"it alone grows {hi['floor']['cpu_median_s'] / max(1e-9, lo['floor']['cpu_median_s']):.1f}× "
                f"from {lo['participants']:,} to {hi['participants']:,} participants."]
    return out


def memory_table(mem):
    runs = len(mem["rows"][0].get("rss_runs_mb", [0]))
    how = mem["rows"][0]["how"] + (f"; median of {runs} clean builds per size" if runs > 1 else "")
    out = ["", "**6. Peak resident memory** of `dossier build --clean` (" + how + "):", "",
           "| participants | logs (MB) | largest log (MB) | peak RSS (MB) |", "|---:|---:|---:|---:|"]
    for r in mem["rows"]:
        out.append(f"| {r['participants']:,} | {r['total_log_mb']:.0f} | {r['largest_log_mb']:.2f} | {r['rss_mb']:.0f} |")
    rows = mem["rows"]
    top = rows[-1]
    growth = (rows[-1]["rss_mb"] - rows[0]["rss_mb"]) / max(1, rows[-1]["participants"] - rows[0]["participants"]) * 1000
    out += ["", f"Goal < {MEMORY_MAX_MB:g} MB at the largest size: {verdict(top['rss_mb'] < MEMORY_MAX_MB)} "
            f"({top['rss_mb']:.0f} MB at {top['participants']:,}); flat (≤ {MEMORY_GROWTH_MAX:g} MB per 1,000 participants): "
            f"{verdict(growth <= MEMORY_GROWTH_MAX)} ({growth:.1f} MB per 1,000)."]
    return out


def site_size_table(results):
    """Issue #34: a site's bytes grow linearly with its pages (site_size.py)."""
    rows = sorted((json.loads(p.read_text()) for p in results.glob("site-size-*.json")), key=lambda r: r["pages"])
    if not rows:
        return []
    out = ["", "**Site size** (`python3 Benchmarks/site_size.py --pages N`: N one-line content pages, "
           "`dossier build --clean --quiet`):", "",
           "| pages | build (wall) | site | bytes a page |", "|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['pages']:,} | {r['seconds']:.2f} s | {r['site_bytes'] / 1e6:.1f} MB | {r['bytes_per_page']:,.0f} |")
    if len(rows) > 1:
        lo, hi = rows[0], rows[-1]
        out += ["", f"Goal: linear (bytes a page at {hi['pages']:,} ≤ 1.10 × at {lo['pages']:,}): "
                f"{verdict(hi['bytes_per_page'] <= 1.10 * lo['bytes_per_page'])}."]
    return out


def settled_note(*results):
    """How the file system was left before the timed runs (bench.py `settle`)."""
    flags = [r.get("caches_dropped") for r in results if r]
    if flags and all(flags):
        return ("Before the pages and study runs the file system was settled (`sync`, the kernel's clean "
                "caches dropped, inputs and binaries read back in), so neither tool paid for files deleted before it.")
    if any(f is False for f in flags):
        return ("The kernel's caches could not be dropped (not root): runs may pay for files deleted before them "
                "(docs/benchmarks.md, \"Same starting point\").")
    return ""


def build_block(results):
    lines = [BEGIN, "", "## Latest numbers (generated by `bash Benchmarks/run.sh`)", ""]
    names = ("pages", "markdown", "memory", "agree", "startup", "incremental", "failing", "agree-polars")
    pages, md, mem, agree, startup, inc, failing, agree_tuned = (load(results, n) for n in names)
    studies = sorted(results.glob("study-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    study_all = [json.loads(p.read_text()) for p in studies]
    full = [r for r in study_all if "peer" in r]           # with the pandas peer and incremental runs
    study = full[-1] if full else None
    any_r = next((r for r in (pages, md, mem, agree, startup, inc, study, *study_all) if r), None)
    if not any_r:
        return "\n".join(lines + ["No results yet: run `bash Benchmarks/run.sh`.", "", END])
    m = any_r["machine"]
    lines += [f"Machine: {m['cores']} cores, {m['platform']}; load average {m['load_at_start']} when the run began "
              f"({m['when']}); {m['hugo']}; {m['cmark_gfm']}; Python {m['python']}, pandas {m['pandas']}.", "",
              "Wall-clock **medians** of alternating runs (Dossier, peer, Dossier, peer, …); ratio = Dossier ÷ peer. "
              "Goals: issue #20 (docs/benchmarks.md). " + settled_note(pages, study), "",
              "| goal | Dossier | peer | ratio | goal | | runs | |", "|---|---|---|---:|---|---|---:|---|"]
    cmds = []
    for r, fn in ((pages, goal_pages), (study, goal_study), (md, goal_markdown), (startup, goal_startup)):
        if r:
            lines += fn(r)
            cmds.append(r["command"])
    for r in (r for r in study_all if r is not study):   # the other sizes: the tuned peer and the floor
        lines += [row for row in goal_study(r) if "tuned peer" in row or "its floor" in row]
        cmds.append(r["command"])
    lines += goal_rows(pages, failing)
    if failing:
        cmds.append(failing["command"])
    if inc:
        lines += incremental_table(inc)
        cmds.append(inc["command"])
    if mem:
        lines += memory_table(mem)
        cmds.append(mem["command"])
    lines += site_size_table(results)
    if agree:
        lines += ["", f"**Agreement**: the pandas peer and Dossier give the same numbers for a simulated study of "
                  f"{agree['participants']} participants: {agree['files'] - agree['differing']} of {agree['files']} "
                  f"CSV files identical (`{agree['command']}`)."]
    if agree_tuned:
        lines += ["", f"**Agreement of the tuned peer**: Polars and Dossier, {agree_tuned['participants']} participants: "
                  f"{agree_tuned['files'] - agree_tuned['differing']} of {agree_tuned['files']} CSV files identical "
                  f"(`{agree_tuned['command']}`)."]
    lines += ["", "Reproduce: `make bench` (all of the above), or one at a time:", ""]
    lines += [f"    {c}" for c in dict.fromkeys(cmds)]
    lines += ["", END]
    return "\n".join(lines)


def write_report(results, out):
    block = build_block(results)
    text = out.read_text() if out.exists() else "# Benchmarks\n\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    out.write_text(text)
    print(f"wrote {out}")
