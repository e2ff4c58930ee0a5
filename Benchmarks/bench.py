#!/usr/bin/env python3
"""Dossier's side-by-side benchmarks (issue #8). `bash Benchmarks/run.sh` drives this.

    python3 Benchmarks/bench.py pages    --pages 10000 --runs 5     # 1. render throughput vs hugo
    python3 Benchmarks/bench.py markdown --mb 20 --runs 7           # 5. Markdown vs cmark-gfm
    python3 Benchmarks/bench.py study    --participants 2000 --runs 3   # 2. study vs pandas+hugo and the parse floor, 3. incremental
    python3 Benchmarks/bench.py incremental --participants 500,1000,2000 --runs 5  # 3. one changed log at three sizes
    python3 Benchmarks/bench.py memory   --participants 500,1000,2000  # 4. peak RSS
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
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = Path(os.environ.get("BENCH_WORK") or HERE / "work")   # BENCH_WORK: e.g. a tmpfs, away from a noisy file system
RESULTS = Path(os.environ.get("BENCH_RESULTS") or WORK / "results")


def dossier_bin():
    b = os.environ.get("DOSSIER_BENCH_BIN") or str(REPO / ".build-release/release/dossier")
    if not Path(b).exists():
        sys.exit(f"bench: no dossier binary at {b} (build it: swift build -c release --scratch-path .build-release)")
    return b


# MARK: - Timing

def timed(cmd, cwd=None, env=None, stdout=subprocess.DEVNULL):
    """Runs cmd (a list, or a string for bash) and returns (wall s, cpu s, max RSS MB)."""
    if isinstance(cmd, str):
        cmd = ["bash", "-c", cmd]
    full_env = dict(os.environ, **(env or {}))
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdout=stdout, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"bench: command failed ({p.returncode}): {' '.join(map(str, cmd))}\n{err.decode(errors='replace')[-3000:]}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def alternate(runs, contenders, prepare=None):
    """contenders: [(name, cmd-or-callable)]; returns {name: [(wall, cpu, rss)]}."""
    out = {name: [] for name, _ in contenders}
    for i in range(runs):
        for name, cmd in contenders:
            if prepare:
                prepare(name, i)
            out[name].append(cmd() if callable(cmd) else timed(cmd))
            w, c, r = out[name][-1]
            print(f"  run {i + 1}/{runs} {name:>14}: {w:7.3f} s wall, {c:7.3f} s cpu, {r:7.1f} MB", flush=True)
    return out


def summary(samples):
    walls = [s[0] for s in samples]
    return {"median_s": statistics.median(walls), "min_s": min(walls), "max_s": max(walls),
            "cpu_median_s": statistics.median(s[1] for s in samples),
            "rss_max_mb": max(s[2] for s in samples), "runs": len(samples), "walls": walls}


def machine():
    load = os.getloadavg()
    return {"cores": os.cpu_count(), "load_at_start": round(load[0], 2), "platform": platform.platform(),
            "hugo": first_line(["hugo", "version"]), "cmark_gfm": first_line(["cmark-gfm", "--version"]),
            "python": platform.python_version(), "pandas": pandas_version(),
            "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def first_line(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()[0]
    except Exception:
        return "missing"


def pandas_version():
    try:
        import pandas
        return pandas.__version__
    except Exception:
        return "missing"


def save(name, data):
    RESULTS.mkdir(parents=True, exist_ok=True)
    data["machine"] = machine()
    data["command"] = "python3 Benchmarks/bench.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    (RESULTS / f"{name}.json").write_text(json.dumps(data, indent=2, sort_keys=True))


def rm(path):
    shutil.rmtree(path, ignore_errors=True)


def settle(*warm):
    """Leaves the file system as after a quiet minute, before a benchmark's timed runs:
    `sync`, then (as root) drop the kernel's clean caches, then read `warm` (the inputs
    and both tools' binaries) back in. On ext4 without a journal (this VM's root) every
    new inode is chosen by skipping the inodes deleted in the last 60 s — 360 s while
    their inode-table block is dirty — and each skip looks the block up in the buffer
    cache: after a compile or an earlier benchmark deleted tens of thousands of files,
    that search was 45 % of a 10,000-page build's CPU (docs/benchmarks.md). Dropping the
    caches forgets those blocks, so neither tool pays for what ran before it. Returns
    whether the caches could be dropped (not as a normal user: then only `sync`)."""
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        dropped = True
    except OSError:
        dropped = False
    for w in warm:
        w = Path(w)
        for f in ([w] if w.is_file() else (x for x in w.rglob("*") if x.is_file())):
            with open(f, "rb") as fh:
                while fh.read(1 << 20):
                    pass
    return dropped


def tool_path(name):
    return shutil.which(name) or name


def python_packages(*names):
    """The folders of the peer's Python packages, to read back in after `settle`."""
    import importlib.util
    out = []
    for n in names:
        spec = importlib.util.find_spec(n)
        if spec and spec.origin:
            out.append(Path(spec.origin).parent)
    return out


def retire(path, trash):
    """Moves `path` (if present) into the folder `trash`, which is removed only after the
    timed runs. Deleting 20,000 files and folders between runs made every later run
    slower on ext4, for both tools: ext4 skips recently freed inodes when it
    allocates new ones, so each run searched past the previous runs' deletions
    (docs/benchmarks.md). A rename costs nothing of the kind."""
    if path.exists() or path.is_symlink():
        trash.mkdir(parents=True, exist_ok=True)
        path.rename(trash / f"{len(list(trash.iterdir()))}-{path.name}")


# MARK: - 1. Pages

def bench_pages(a):
    root = WORK / f"pages-{a.pages}"
    if not (root / "dossier/content").exists() or a.regen:
        print(f"generating {a.pages} pages in {root}")
        subprocess.run([sys.executable, str(HERE / "gen_pages.py"), "--pages", str(a.pages), "--out", str(root)], check=True)
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
        else:
            retire(hproj / "public", trash)

    print(f"1. render throughput: {a.pages} pages, {a.runs} alternating runs")
    res = alternate(a.runs, [("dossier", [d, "build", "--clean", "--quiet", str(dproj)]),
                             ("hugo", ["hugo", "--quiet", "-s", str(hproj), "-d", str(hproj / "public")])],
                    prepare)
    rm(trash)
    dn = sum(1 for _ in (dproj / "_site").rglob("*.html"))
    hn = sum(1 for _ in (hproj / "public").rglob("*.html"))
    save("pages", {"pages": a.pages, "dossier": summary(res["dossier"]), "peer": summary(res["hugo"]),
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


def bench_markdown(a):
    path = WORK / f"big-{a.mb}mb.md"
    if not path.exists() or a.regen:
        print(f"generating {path}")
        make_big_markdown(path, a.mb)
    d = dossier_bin()
    exts = []
    for e in ("table", "strikethrough", "autolink", "tagfilter", "tasklist"):
        exts += ["-e", e]
    print(f"5. Markdown: {path.stat().st_size / 1e6:.1f} MB, {a.runs} alternating runs")
    res = alternate(a.runs, [("dossier", [d, "markdown", str(path)]),
                             ("cmark-gfm", ["cmark-gfm", "--validate-utf8", "--github-pre-lang", *exts, str(path)])])
    save("markdown", {"bytes": path.stat().st_size, "dossier": summary(res["dossier"]), "peer": summary(res["cmark-gfm"])})


# MARK: - 2./3. Study

RECALL_YML = """title: Study benchmark
description: A simulated memorization study.
base_url: https://bench.example.org/
output: _site
recall:
  strings: data/strings.txt
  logs: data/logs
"""


def make_study(n, seed=1, regen=False):
    """WORK/study-N/{data/logs, dossier.yml}; the logs are written by `dossier recall simulate`."""
    root = WORK / f"study-{n}"
    if (root / "dossier.yml").exists() and not regen:
        return root
    rm(root)
    logs = root / "data/logs"
    # Participant i's log depends only on (seed, i): a smaller study is the first n files
    # of a larger one (hard-linked).
    for bigger in sorted(WORK.glob("study-*/data/logs"), key=lambda p: -int(p.parent.parent.name.split("-")[1])):
        m = int(bigger.parent.parent.name.split("-")[1])
        if m > n and seed == 1 and (bigger.parent.parent / "dossier.yml").exists():
            logs.mkdir(parents=True)
            for f in sorted(bigger.glob("*.jsonl"))[:n]:
                os.link(f, logs / f.name)
            shutil.copy(bigger.parent / "strings.txt", root / "data/strings.txt")
            (root / "dossier.yml").write_text(RECALL_YML)
            return root
    print(f"simulating {n} participants in {logs}")
    subprocess.run([dossier_bin(), "recall", "simulate", "--participants", str(n), "--seed", str(seed), "--out", str(logs)],
                   check=True, stdout=subprocess.DEVNULL)
    shutil.move(str(logs / "strings.txt"), str(root / "data/strings.txt"))
    (root / "dossier.yml").write_text(RECALL_YML)
    return root


def peer_cmd(root):
    """The peer's timed command. Its previous outputs (content/, csv/, public/) are moved
    aside before each run, untimed, as Dossier's are (see `bench_study`)."""
    peer = root / "peer"
    return (f"{shlex.quote(sys.executable)} {HERE / 'peers/recall_rollup.py'} --strings {root / 'data/strings.txt'} "
            f"--logs {root / 'data/logs'} --out {peer} && "
            f"hugo --quiet -s {peer} -d {peer / 'public'}")


def prepare_peer(root):
    peer = root / "peer"
    if not (peer / "hugo.toml").exists():
        shutil.copytree(HERE / "peers/hugo-study", peer, dirs_exist_ok=True)


def bench_study(a):
    root = make_study(a.participants, regen=a.regen)
    prepare_peer(root)
    d = dossier_bin()
    events = sum(sum(1 for _ in f.open("rb")) - 1 for f in (root / "data/logs").glob("*.jsonl"))
    mb = sum(f.stat().st_size for f in (root / "data/logs").glob("*.jsonl")) / 1e6

    trash = root / ".bench-trash"
    rm(trash)

    def prepare(name, i):
        # Moved aside, not deleted, until the runs are done (see `retire` and `settle`).
        if name == "dossier":
            retire(root / "_site", trash); retire(root / ".dossier", trash)
        elif name == "pandas+hugo":
            for out in ("content", "csv", "public"):
                retire(root / "peer" / out, trash)

    saved = RESULTS / f"study-{a.participants}.json"
    if a.incremental_only:
        # Re-measure 3. only, against the full-build medians already saved for this size.
        if not saved.exists():
            sys.exit(f"bench: --incremental-only needs {saved} (run the study benchmark first)")
        data = json.loads(saved.read_text())
        print(f"3. incremental only (full build and peer from {saved.name})")
    else:
        print(f"2. study build: {a.participants} participants, {events} events ({mb:.0f} MB), {a.runs} alternating runs")
        # The floor: reading and parsing every log on every core and nothing else
        # (`dossier recall parse`, docs/benchmarks.md).
        contenders = [("dossier", [d, "build", "--clean", "--quiet", str(root)]),
                      ("parse floor", [d, "recall", "parse", str(root / "data/logs")])]
        if not a.no_peer:
            contenders.append(("pandas+hugo", peer_cmd(root)))
        settled = settle(root / "data", root / "peer/layouts", d, tool_path("hugo"), *python_packages("pandas", "numpy"))
        res = alternate(a.runs, contenders, prepare)
        rm(trash)
        data = {"participants": a.participants, "events": events, "log_mb": mb, "caches_dropped": settled,
                "dossier": summary(res["dossier"]), "floor": summary(res["parse floor"])}
        if a.no_peer:
            old = json.loads(saved.read_text()) if saved.exists() else {}
            if "peer" not in old:
                sys.exit(f"bench: --no-peer needs a saved peer result in {saved} (run once without it)")
            data["peer"] = old["peer"]
            # where the reused peer time was measured: carried over when it was itself reused
            data["peer_from"] = old.get("peer_from") or old.get("machine", {}).get("when", "an earlier run")
        else:
            data["peer"] = summary(res["pandas+hugo"])

    inc, noop, victim = incremental_runs(root, d, a.runs)
    data["incremental"] = summary(inc)
    data["noop"] = summary(noop)
    data["changed_file"] = victim
    save(f"study-{a.participants}", data)


def incremental_runs(root, d, runs, fresh=False):
    """3. A full build, then `runs` builds that each change one participant's log (the
    middle file: a different simulated session of the same participant, seed 99, then the
    original again, alternately), then builds with no change. Returns the timings of both
    and the changed file's name."""
    logs = sorted((root / "data/logs").glob("*.jsonl"))
    victim = logs[len(logs) // 2]
    original = victim.read_bytes()
    alt_dir = WORK / "study-alt"
    rm(alt_dir)
    idx = int(victim.stem.lstrip("S"))
    subprocess.run([d, "recall", "simulate", "--participants", "1", "--first", str(idx), "--seed", "99",
                    "--out", str(alt_dir)], check=True, stdout=subprocess.DEVNULL)
    changed = (alt_dir / victim.name).read_bytes()
    trash = root / ".bench-trash-incremental"
    if not fresh:   # else the caller has just built the site from nothing
        rm(trash)
        retire(root / "_site", trash); retire(root / ".dossier", trash)
        timed([d, "build", "--quiet", str(root)])
    # What a user's next build meets: the previous build's files in memory, no deletions.
    settle(root / "data", root / ".dossier", root / "_site", root / "_site.manifest.json", d)
    inc = []
    print(f"3. incremental: change {victim.name} of {len(logs)}, {runs} runs")
    try:
        for i in range(runs):
            victim.write_bytes(changed if i % 2 == 0 else original)
            inc.append(timed([d, "build", "--quiet", str(root)]))
            print(f"  run {i + 1}/{runs} incremental: {inc[-1][0]:7.3f} s wall, {inc[-1][1]:7.3f} s cpu", flush=True)
        noop = [timed([d, "build", "--quiet", str(root)]) for _ in range(max(1, runs // 2))]
    finally:
        victim.write_bytes(original)
        rm(trash)
    return inc, noop, victim.name


def study_wide_files(site):
    """The files of a study that list every participant: what a build after one changed
    log must write anew under the current output formats (every file of `recall/` outside
    the per-participant and per-cohort folders: the study-wide CSV and JSON tables, the
    dynamics tables, the summary page and summary.md), and the output manifest."""
    recall = site / "recall"
    out = [f for f in recall.rglob("*") if f.is_file()
           and not f.relative_to(recall).parts[0] in ("participants", "cohorts")]
    manifest = site.parent / (site.name + ".manifest.json")
    return sorted(out) + ([manifest] if manifest.exists() else [])


def output_floor(root, runs=3):
    """The floor under a one-changed-log build with these output formats (docs/incremental.md,
    round five): copy every study-wide file and the manifest in the kernel
    (`copy_file_range`, nothing read in user space) and take the SHA-256 of each new file
    (hashlib: OpenSSL, SHA-NI where the CPU has it), as a build that spliced them perfectly
    would at least have to. CPU time of this process (user + sys), median of `runs`."""
    import hashlib
    files = study_wide_files(root / "_site")
    dst = WORK / "floor-copy"
    samples = []
    for _ in range(runs):
        rm(dst); dst.mkdir(parents=True)
        t0, c0 = time.perf_counter(), time.process_time()
        for i, f in enumerate(files):
            size = f.stat().st_size
            with open(f, "rb") as src, open(dst / str(i), "wb") as out:
                done = 0
                while done < size:
                    n = os.copy_file_range(src.fileno(), out.fileno(), size - done)
                    if n <= 0:
                        break
                    done += n
            h = hashlib.sha256()
            with open(dst / str(i), "rb") as new:
                while chunk := new.read(1 << 20):
                    h.update(chunk)
            h.hexdigest()
        samples.append((time.perf_counter() - t0, time.process_time() - c0, 0.0))
    rm(dst)
    res = summary(samples)
    res["files"] = len(files)
    res["mb"] = sum(f.stat().st_size for f in files) / 1e6
    return res


def bench_incremental(a):
    """3. The cost of one changed log at several study sizes (it should not grow with the
    study), each beside one full build of that size."""
    d = dossier_bin()
    rows = []
    for n in [int(x) for x in a.participants.split(",")]:
        root = make_study(n, regen=a.regen)
        trash = root / ".bench-trash"
        rm(trash)
        retire(root / "_site", trash); retire(root / ".dossier", trash)
        settle(root / "data", d)
        full = timed([d, "build", "--clean", "--quiet", str(root)])
        print(f"3. full build of {n} participants: {full[0]:.3f} s wall, {full[1]:.3f} s cpu, {full[2]:.1f} MB", flush=True)
        inc, noop, victim = incremental_runs(root, d, a.runs, fresh=True)
        floor = output_floor(root, runs=3)
        print(f"3. floor of {n} participants: {floor['files']} study-wide files, {floor['mb']:.1f} MB; "
              f"copy + SHA-256 {floor['cpu_median_s']:.3f} s cpu", flush=True)
        rm(trash)
        rows.append({"participants": n, "full": summary([full]), "incremental": summary(inc),
                     "noop": summary(noop), "changed_file": victim, "floor": floor})
    save("incremental", {"rows": rows})
    if a.memory:
        # The clean builds' peak RSS (wait4's ru_maxrss, what /usr/bin/time -v prints)
        # as benchmark 6's table, without building every size a second time.
        mem = []
        for r in rows:
            logs = list((WORK / f"study-{r['participants']}" / "data/logs").glob("*.jsonl"))
            mem.append({"participants": r["participants"], "rss_mb": r["full"]["rss_max_mb"],
                        "largest_log_mb": max(f.stat().st_size for f in logs) / 1e6,
                        "total_log_mb": sum(f.stat().st_size for f in logs) / 1e6,
                        "how": "wait4 ru_maxrss of the clean builds of `bench.py incremental`"})
        save("memory", {"rows": mem})


# MARK: - 6. Start-up

def bench_startup(a):
    """`dossier markdown` of a one-line file against `cmark-gfm` on the same file,
    alternately, many runs: the median is the start-up cost."""
    path = WORK / "one-line.md"
    path.write_text("Hello, *world*.\n")
    d = dossier_bin()
    print(f"6. start-up: `dossier markdown` of a one-line file, {a.runs} alternating runs")
    out = {"dossier": [], "cmark-gfm": []}
    for i in range(a.runs):
        out["dossier"].append(timed([d, "markdown", str(path)]))
        out["cmark-gfm"].append(timed(["cmark-gfm", str(path)]))
    for k, v in out.items():
        print(f"  {k:>10}: median {statistics.median(s[0] for s in v) * 1000:.1f} ms")
    save("startup", {"dossier": summary(out["dossier"]), "peer": summary(out["cmark-gfm"])})


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


def agree(n, seed=3, quiet=False):
    root = WORK / f"agree-{n}"
    rm(root)
    logs = root / "data/logs"
    subprocess.run([dossier_bin(), "recall", "simulate", "--participants", str(n), "--seed", str(seed), "--out", str(logs)],
                   check=True, stdout=subprocess.DEVNULL)
    shutil.move(str(logs / "strings.txt"), str(root / "data/strings.txt"))
    (root / "dossier.yml").write_text(RECALL_YML)
    subprocess.run([dossier_bin(), "build", "--quiet", str(root)], check=True)
    prepare_peer(root)
    subprocess.run(peer_cmd(root), shell=True, check=True, executable="/bin/bash")
    site, peer = root / "_site/recall", root / "peer/csv"
    diffs = {}
    pairs = [("study-table.csv", site / "study-table-appendix-b.csv", peer / "study-table.csv")]
    for f in sorted((peer / "participants").glob("*.csv")):
        pairs.append((f"participants/{f.name}", site / "participants" / f.stem / "rolled-up.csv", f))
    for name, ours, theirs in pairs:
        d = compare_rolled(ours, theirs) if name.startswith("participants/") else compare_csv(ours, theirs)
        if d:
            diffs[name] = d[:5]
    if not quiet:
        print(f"agreement on {n} participants: {len(pairs)} files compared, {len(diffs)} differ")
        for k, v in diffs.items():
            print(f"  {k}: " + "; ".join(v))
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
    n, diffs = agree(a.participants)
    save("agree", {"participants": a.participants, "files": n, "differing": len(diffs)})
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
    p.add_argument("--no-peer", action="store_true", help="time Dossier and the parse floor only; the peer's times come from the saved result")
    p.add_argument("--regen", action="store_true"); p.set_defaults(fn=bench_study)
    p = sub.add_parser("incremental"); p.add_argument("--participants", default="500,1000,2000")
    p.add_argument("--runs", type=int, default=5); p.add_argument("--regen", action="store_true")
    p.add_argument("--memory", action="store_true", help="also save the clean builds' peak RSS as the memory benchmark")
    p.set_defaults(fn=bench_incremental)
    p = sub.add_parser("startup"); p.add_argument("--runs", type=int, default=101); p.set_defaults(fn=bench_startup)
    p = sub.add_parser("memory"); p.add_argument("--participants", default="500,1000,2000")
    p.add_argument("--runs", type=int, default=3, help="clean builds per size; the table shows their median peak")
    p.add_argument("--regen", action="store_true"); p.set_defaults(fn=bench_memory)
    p = sub.add_parser("agree"); p.add_argument("--participants", type=int, default=12); p.set_defaults(fn=cmd_agree)
    p = sub.add_parser("report"); p.add_argument("--out", default=str(HERE / "RESULTS.md")); p.set_defaults(fn=report)
    a = ap.parse_args()
    WORK.mkdir(exist_ok=True)
    a.fn(a)


if __name__ == "__main__":
    main()
