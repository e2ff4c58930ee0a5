#!/usr/bin/env python3
"""Utility of the differentially private game site (docs/game-privacy.md), as a report.

Builds the demo cohort's public site with N different privacy keys (key i =
SHA-256("dossier-utility-<i>")) at the default budget and compares each published kind of
number with the exact value from `dossier game analyze --json`:

- counts: every group × age band × gender cell (absolute error, players);
- means: every shown group mean of the published measures (error as % of the clamp range);
- AUC: the published AUC of the public (differentially private) model against the private
  model's exact out-of-fold AUC;
(the calibration error is in the in-process report only: its reference needs the released
model's exact bins).

The end-to-end cross-check of `make privacy-utility` (which computes the same in-process,
Tests/DossierKitTests/GamePrivacyUtilityTests.swift): one build per key, so slow. Writes
a Markdown report (default Benchmarks/work/game-privacy-utility-binary.md) and prints it.
"""
import argparse
import csv
import hashlib
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]
RANGES = {"hitRTSD": (0, 250), "tau": (0, 400), "omissionRate": (0, 0.4)}


def rows(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def measure(p, name):
    m = p["measures"]
    if name == "tau":
        return ((m.get("exGaussian") or {}).get("params") or {}).get("tau")
    return m.get(name)


def exact_auc(pos, neg):
    s = sum((1.0 if a > b else 0.5 if a == b else 0.0) for a in pos for b in neg)
    return s / (len(pos) * len(neg))


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--bin", default=str(REPO / ".build" / "debug" / "dossier"))
    ap.add_argument("--out", default=str(REPO / "Benchmarks" / "work" / "game-privacy-utility-binary.md"))
    ap.add_argument("--work", default=str(REPO / "Benchmarks" / "work" / "privacy-utility"),
                    help="one result file per seed; several runs may share it (each claims seeds) and a run "
                         "reuses the seeds already done")
    a = ap.parse_args()
    data = REPO / "Examples" / "demo" / "data" / "game" / "cohort.jsonl"
    exact = json.loads(subprocess.run([a.bin, "game", "analyze", "--json", str(data)], check=True,
                                      capture_output=True, text=True).stdout)
    players = exact["players"]
    group = {p["id"]: p["group"] for p in players}
    truth_cells = {}
    for p in players:
        k = (p["group"], p["ageBand"] or "unknown", (p["survey"] or {}).get("gender") or "unknown")
        truth_cells[k] = truth_cells.get(k, 0) + 1
    truth_means = {}
    for p in players:
        for m in RANGES:
            v = measure(p, m)
            if v is not None:
                truth_means.setdefault((p["group"], m), []).append(v)
    oof = exact["model"]["outOfFold"]
    pos = [v for k, v in oof.items() if group[k] == "adhd"]
    neg = [v for k, v in oof.items() if group[k] != "adhd"]
    auc_true = exact_auc(pos, neg)
    work = pathlib.Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        proj = pathlib.Path(tmp) / "p"
        proj.mkdir()
        shutil.copy(data, proj / "cohort.jsonl")
        (proj / "dossier.yml").write_text("title: Utility\noutput: _site\ngame:\n  telemetry: cohort.jsonl\n  simulated: true\n")
        (proj / ".dossier").mkdir()
        for seed in range(a.seeds):
            try:
                os.close(os.open(work / f"{seed}.claim", os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                continue
            count_err, mean_err, auc_err = [], [], []
            key = hashlib.sha256(f"dossier-utility-{seed}".encode()).hexdigest()
            (proj / ".dossier" / "privacy.key").write_text(key + "\n")
            subprocess.run([a.bin, "build", str(proj)], check=True, capture_output=True)
            game = proj / "_site" / "game"
            for r in rows(game / "group-counts.csv"):
                count_err.append(abs(int(r["n_noisy"]) - truth_cells.get((r["group"], r["age_band"], r["gender"]), 0)))
            seen = set()
            for r in rows(game / "comparisons.csv"):
                for side in ("a", "b"):
                    key2 = (r[f"group_{side}"], r["measure"])
                    if r[f"mean_{side}"] and key2 not in seen:
                        seen.add(key2)
                        lo, hi = RANGES[r["measure"]]
                        t = statistics.fmean(truth_means[key2])
                        mean_err.append(100 * abs(float(r[f"mean_{side}"]) - t) / (hi - lo))
            model = json.loads((game / "model.json").read_text())
            auc_err.append(abs(model["auc"] - auc_true))
            (work / f"{seed}.json").write_text(json.dumps([count_err, mean_err, auc_err]))
            print(f"seed {seed}: AUC error {auc_err[-1]:.4f}", file=sys.stderr)

    done = [json.loads((work / f"{seed}.json").read_text()) for seed in range(a.seeds) if (work / f"{seed}.json").exists()]
    if len(done) < a.seeds:
        print(f"{len(done)} of {a.seeds} seeds done (others are being run elsewhere); no report yet", file=sys.stderr)
        return
    count_err, mean_err, auc_err = ([x for d in done for x in d[i]] for i in range(3))

    def line(name, xs, unit):
        return (f"| {name} | {len(xs)} | {statistics.median(xs):.3g} | {quantile(xs, 0.9):.3g} | "
                f"{quantile(xs, 0.95):.3g} | {max(xs):.3g} | {unit} |")
    within = sum(1 for e in auc_err if e <= 0.03) / len(auc_err)
    report = "\n".join([
        "# Utility of the public game site (demo cohort, default budget ε = 6)",
        "",
        f"{a.seeds} releases with different keys; `python3 Benchmarks/game_privacy_utility.py --seeds {a.seeds}`",
        "(docs/game-privacy.md). Absolute errors against the exact values.",
        "",
        "| number | values | median | 90 % | 95 % | max | unit |",
        "|---|---|---|---|---|---|---|",
        line("count cell", count_err, "players"),
        line("group mean", mean_err, "% of clamp range"),
        line("AUC of the public model against the exact out-of-fold AUC", auc_err, "AUC"),
        "",
        f"Exact out-of-fold AUC {auc_true:.4f}; published AUC within ±0.03 of it in {100 * within:.0f} % of releases.",
        "",
    ])
    pathlib.Path(a.out).write_text(report)
    print(report)


if __name__ == "__main__":
    main()
