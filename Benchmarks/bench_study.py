"""Benchmarks 2 and 3 (Benchmarks/bench.py study / incremental): a generated recall study built by Dossier and by the pandas+hugo peer."""
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

from bench_common import HERE, RESULTS, WORK, alternate, dossier_bin, python_packages, retire, rm, save, settle, summary, timed, tool_path


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


# The study peers: the pandas script of issue #8 and the tuned Polars one of issue #45,
# each followed by Hugo; each writes into its own folder of the study.
PEERS = {"pandas": ("recall_rollup.py", "peer"), "polars": ("recall_polars.py", "peer-polars")}


def peer_cmd(root, which="pandas"):
    """The peer's timed command. Its previous outputs (content/, csv/, public/) are moved
    aside before each run, untimed, as Dossier's are (see `bench_study`)."""
    script, folder = PEERS[which]
    peer = root / folder
    return (f"{shlex.quote(sys.executable)} {HERE / 'peers' / script} --strings {root / 'data/strings.txt'} "
            f"--logs {root / 'data/logs'} --out {peer} && "
            f"hugo --quiet -s {peer} -d {peer / 'public'}")


def prepare_peer(root, which="pandas"):
    peer = root / PEERS[which][1]
    if not (peer / "hugo.toml").exists():
        shutil.copytree(HERE / "peers/hugo-study", peer, dirs_exist_ok=True)
        shutil.copytree(HERE / "peers/hugo-layouts", peer / "layouts", dirs_exist_ok=True)


def bench_study(a):
    root = make_study(a.participants, regen=a.regen)
    prepare_peer(root)
    prepare_peer(root, "polars")
    d = dossier_bin()
    events = sum(sum(1 for _ in f.open("rb")) - 1 for f in (root / "data/logs").glob("*.jsonl"))
    mb = sum(f.stat().st_size for f in (root / "data/logs").glob("*.jsonl")) / 1e6

    trash = root / ".bench-trash"
    rm(trash)

    def prepare(name, i):
        # Moved aside, not deleted, until the runs are done (see `retire` and `settle`).
        if name == "dossier":
            retire(root / "_site", trash); retire(root / ".dossier", trash)
        elif name in ("pandas+hugo", "polars+hugo"):
            for out in ("content", "csv", "public"):
                retire(root / PEERS[name.split("+")[0]][1] / out, trash)

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
        if not a.no_peer and not a.tuned_only:
            contenders.append(("pandas+hugo", peer_cmd(root)))
        contenders.append(("polars+hugo", peer_cmd(root, "polars")))
        settled = settle(root / "data", root / "peer/layouts", d, tool_path("hugo"),
                         *python_packages("pandas", "numpy", "polars"))
        res = alternate(a.runs, contenders, prepare)
        rm(trash)
        data = {"participants": a.participants, "events": events, "log_mb": mb, "caches_dropped": settled,
                "dossier": summary(res["dossier"]), "floor": summary(res["parse floor"]),
                "tuned": summary(res["polars+hugo"]),
                "tuned_agreement": peer_agreement(root, "polars")}
        if a.tuned_only:
            save(f"study-{a.participants}", data)      # against the tuned peer and the floor only
            return
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


def peer_agreement(root, which):
    """The agreement check of `bench.py agree` on the benchmark's own study: the outputs
    of the last timed runs (Dossier's site and the peer's CSV files, left in place after
    the runs) compared as `agree` compares them. Returns the number of files compared and
    of those that differ, with the first differences."""
    from bench import compare_peer_outputs   # bench.py imports this module
    n, diffs = compare_peer_outputs(root / "_site/recall", root / PEERS[which][1] / "csv")
    print(f"agreement of the {which} peer on the benchmark's {n} files: {len(diffs)} differ")
    for k, v in list(diffs.items())[:5]:
        print(f"  {k}: " + "; ".join(v))
    return {"files": n, "differing": len(diffs), "first": {k: v for k, v in list(diffs.items())[:5]}}


def changed_log(root, d):
    """The log an incremental run changes (the middle file of the study) with its original
    bytes and those of a different simulated session of the same participant (seed 99):
    (path, original, changed)."""
    logs = sorted((root / "data/logs").glob("*.jsonl"))
    victim = logs[len(logs) // 2]
    alt_dir = WORK / "study-alt"
    rm(alt_dir)
    idx = int(victim.stem.lstrip("S"))
    subprocess.run([d, "recall", "simulate", "--participants", "1", "--first", str(idx), "--seed", "99",
                    "--out", str(alt_dir)], check=True, stdout=subprocess.DEVNULL)
    return victim, victim.read_bytes(), (alt_dir / victim.name).read_bytes()


def incremental_runs(root, d, runs, fresh=False):
    """3. A full build, then `runs` builds that each change one participant's log (the
    middle file: a different simulated session of the same participant, seed 99, then the
    original again, alternately), then builds with no change. Returns the timings of both
    and the changed file's name."""
    logs = sorted((root / "data/logs").glob("*.jsonl"))
    victim, original, changed = changed_log(root, d)
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
