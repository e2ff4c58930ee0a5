"""Shared parts of the benchmarks (Benchmarks/bench.py): paths, timing Dossier against its peers alternately, machine facts, saving results."""
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


def alternate(runs, contenders, prepare=None, quiet=False):
    """contenders: [(name, cmd-or-callable)]; returns {name: [(wall, cpu, rss)]}.
    `quiet`: no line per run (for the many short runs of a start-up benchmark)."""
    out = {name: [] for name, _ in contenders}
    for i in range(runs):
        for name, cmd in contenders:
            if prepare:
                prepare(name, i)
            out[name].append(cmd() if callable(cmd) else timed(cmd))
            w, c, r = out[name][-1]
            if not quiet:
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
    data["command"] = (f"python3 Benchmarks/{Path(sys.argv[0]).name} "
                       + " ".join(shlex.quote(a) for a in sys.argv[1:]))
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
