"""The five attacks of issue #31, run as an attacker would (only the public files; full
knowledge of every other player), against the demo and simulated cohorts of 45 and 520
players. Each recovered exact values from the old aggregate-only site; against the
differentially private release each must recover nothing exact."""
import csv
import json
import math
from fractions import Fraction
import re

import numpy as np
import pytest

from conftest import REPO
from test_game_public_model import BINS, _exact_bins

KEY = "5a0c3e97b1d24f68a7e9c1b3d5f70214" "86a8cae0f2143658" "7a9cbed0f1325476"
RANGES = {"hitRTSD": (0, 250), "tau": (0, 400), "omissionRate": (0, 0.4)}


def _rows(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def _chance_bound(game, part, cells):
    """How many of `cells` noisy counts may equal the truth by chance: discrete Laplace
    noise of scale 1/ε is 0 with probability tanh(ε/2); mean + 4 SD of that binomial.
    More exact cells than this would mean the noise is missing."""
    import math
    spends = json.loads((game / "privacy.json").read_text())["spends"]
    eps = float(next(s["epsilon"] for s in spends if s["part"] == part))
    p = math.tanh(eps / 2)
    return cells * p + 4 * math.sqrt(cells * p * (1 - p))


def _type7(xs, p):
    h = (len(xs) - 1) * p
    lo = int(h)
    return xs[lo] + (h - lo) * (xs[min(lo + 1, len(xs) - 1)] - xs[lo])


def _measure(player, name):
    m = player["measures"]
    if name == "tau":
        return ((m.get("exGaussian") or {}).get("params") or {}).get("tau")
    return m.get(name)


@pytest.fixture(scope="module")
def cohorts(tmp_path_factory, dossier_bin):
    import subprocess
    out = {}
    base = tmp_path_factory.mktemp("cohorts")
    sources = {"demo": REPO / "Examples" / "demo" / "data" / "game" / "cohort.jsonl"}
    for name, n, seed in (("sim45", 45, 7), ("sim520", 520, 31)):
        path = base / f"{name}.jsonl"
        subprocess.run([dossier_bin, "game", "simulate", "--players", str(n), "--seed", str(seed), "--out", str(path)], check=True)
        sources[name] = path
    for name, path in sources.items():
        lines = path.read_text().splitlines(keepends=True)
        analysis = json.loads(subprocess.run([dossier_bin, "game", "analyze", "--json", str(path)], check=True,
                                             capture_output=True, text=True).stdout)
        # The target: an unmedicated player with a diagnosis and every published measure.
        target = next(p for p in analysis["players"] if p["group"] == "adhd"
                      and all(_measure(p, m) is not None for m in RANGES))
        without = [l for l in lines if f'"player":"{target["id"]}"' not in l]
        out[name] = {"lines": lines, "without": without, "analysis": analysis, "target": target}
    return out


@pytest.fixture(scope="module")
def releases(cohorts, tmp_path_factory, dossier_bin):
    import subprocess

    def run(*args):
        subprocess.run([dossier_bin, *map(str, args)], check=True, capture_output=True)
    out = {}
    for name, c in cohorts.items():
        sites = {}
        for which in ("with", "without"):
            root = tmp_path_factory.mktemp(f"{name}-{which}")
            (root / "cohort.jsonl").write_text("".join(c["lines"] if which == "with" else c["without"]))
            (root / "dossier.yml").write_text("title: Game\noutput: _site\ngame:\n  telemetry: cohort.jsonl\n")
            (root / ".dossier").mkdir()
            (root / ".dossier" / "privacy.key").write_text(KEY + "\n")
            run("build", root)
            sites[which] = root / "_site" / "game"
        out[name] = sites
    return out


COHORTS = ["demo", "sim45", "sim520"]


def _cells(game):
    return {(r["group"], r["age_band"], r["gender"]): int(r["n_noisy"]) for r in _rows(game / "group-counts.csv")}


def _stats(game):
    out = {}
    for r in _rows(game / "comparisons.csv"):
        for side in ("a", "b"):
            if r[f"n_{side}"] != "not shown" and r[f"mean_{side}"]:
                out[(r[f"group_{side}"], r["measure"])] = (int(r[f"n_{side}"]), float(r[f"mean_{side}"]))
    return out


@pytest.mark.parametrize("name", COHORTS)
def test_attack_1_differencing_two_releases_recovers_nothing_exact(name, cohorts, releases):
    """Publish without one player, then with them: the difference of the two sites
    should give the player's group, age band, gender and every measure."""
    t = cohorts[name]["target"]
    a, b = _cells(releases[name]["without"]), _cells(releases[name]["with"])
    cell = (t["group"], t["ageBand"] or "unknown", (t["survey"] or {}).get("gender") or "unknown")
    diff = {k: b[k] - a[k] for k in a}
    indicator = {k: int(k == cell) for k in a}
    assert diff != indicator, "the count tables' difference is exactly the player's cell"
    # Every cell moved by noise, not by the player alone: many cells other than theirs differ.
    assert sum(1 for k, d in diff.items() if k != cell and d != 0) >= len(diff) // 4
    sa, sb = _stats(releases[name]["without"]), _stats(releases[name]["with"])
    errors = []
    for m, (lo, hi) in RANGES.items():
        key = ("adhd", m)
        if key not in sa or key not in sb:
            continue   # the group is not shown: nothing to difference
        (na, ma), (nb, mb) = sa[key], sb[key]
        guess = nb * mb - na * ma
        truth = _measure(t, m)
        # No measure comes out exact (without the noise every one does, to rounding)…
        assert abs(guess - truth) > 1e-6 * (hi - lo), f"{m}: differencing gave {guess}, exactly the player's {truth}"
        errors.append(abs(guess - truth) / (hi - lo))
    # …and the guesses are not all close either: noise may land one near the truth by
    # chance (a fixed key here, so the draw is the same each run), not every one.
    assert not errors or max(errors) > 0.01, f"every measure recovered within 1 % of its range: {errors}"
    # The public model's class totals and AUC: their difference is noise, not the player's
    # class (one more with or without a diagnosis) or the AUC they alone would move.
    files = [releases[name][w] / "model.json" for w in ("without", "with")]
    if all(f.exists() for f in files):
        a, b = (json.loads(f.read_text()) for f in files)
        moved = (b["nPositive"] - a["nPositive"], (b["nTrain"] - b["nPositive"]) - (a["nTrain"] - a["nPositive"]))
        assert moved not in ((1, 0), (0, 1)), f"the class totals moved by exactly one player: {moved}"
        assert a["auc"] != b["auc"]


@pytest.mark.parametrize("name", COHORTS)
def test_attack_2_model_file_against_comparisons_has_nothing_to_subtract(name, cohorts, releases):
    """Training-set means in model.json minus group means gave the left-out players' values."""
    game = releases[name]["with"]
    assert not (game / "model-coefficients.csv").exists()
    if (game / "model.json").exists():
        model = json.loads((game / "model.json").read_text())
        assert not {"standardizer", "coefficients", "intercept", "outOfFold", "tripod"} & set(model)
    # The group means themselves are not the exact means.
    exact = {}
    for p in cohorts[name]["analysis"]["players"]:
        for m in RANGES:
            v = _measure(p, m)
            if v is not None:
                exact.setdefault((p["group"], m), []).append(v)
    stats = _stats(game)
    assert stats or name == "sim45"
    for k, (n, mean) in stats.items():
        xs = exact[k]
        assert n != len(xs) or abs(mean - sum(xs) / len(xs)) > 1e-9, f"{k} is exact"


@pytest.mark.parametrize("name", COHORTS)
def test_attack_3_suppressed_and_known_zero_cells_are_not_recovered(name, cohorts, releases):
    """Margins plus known zeros (a complete survey always has an age and a gender) gave
    suppressed cells. Now every cell carries its own noise and the margins are only sums
    of the published cells, so they add no equation."""
    game = releases[name]["with"]
    cells = _cells(game)
    truth = {}
    for p in cohorts[name]["analysis"]["players"]:
        k = (p["group"], p["ageBand"] or "unknown", (p["survey"] or {}).get("gender") or "unknown")
        truth[k] = truth.get(k, 0) + 1
    exact = sum(1 for k, v in cells.items() if v == truth.get(k, 0))
    assert exact < _chance_bound(game, "counts", len(cells)), f"{exact} of {len(cells)} cells are exact"
    known_zeros = [k for k in cells if k[0] in ("control", "adhd", "adhd-medicated") and "unknown" in k[1:]]
    assert known_zeros and any(cells[k] != 0 for k in known_zeros), "known-zero cells are published as exact zeros"
    html = (game / "cohort" / "index.html").read_text()
    assert "&lt;5" not in html and "suppressed" not in html


@pytest.mark.parametrize("name", COHORTS)
def test_attack_4_box_plots_give_no_single_player_value(name, cohorts, releases):
    """Whisker ends and outliers were single players' τ; quartiles and mean solved small groups."""
    game = releases[name]["with"]
    html = (game / "cohort" / "index.html").read_text()
    # The only charts are the ROC and calibration curves (no box plot of individual τ).
    svgs = re.findall(r"<svg.*?</svg>", html, flags=re.S)
    titles = [re.search(r"<title[^>]*>([^<]*)</title>", svg).group(1) for svg in svgs]
    assert all(t.startswith(("ROC curve", "Calibration")) for t in titles), titles
    taus = {}
    for p in cohorts[name]["analysis"]["players"]:
        v = _measure(p, "tau")
        if v is not None:
            taus.setdefault(p["group"], []).append(v)
    rows = _rows(game / "tau-quartiles.csv")
    for r in rows:
        q = [float(r[c]) for c in ("q1", "median", "q3")]
        xs = sorted(taus[r["group"]])
        # The old tooltips' exact quartiles (type 7), which with the mean solved small
        # groups, are not what is published.
        exact = [_type7(xs, p) for p in (0.25, 0.5, 0.75)]
        assert any(abs(v - e) > 0.05 for v, e in zip(q, exact)), (r, exact)
    # The >= 20 rule on a bound 3 noise scales below the group's noisy complete-case count
    # (docs/game-privacy.md, "Minimum group size"): shown groups have n >= 20 + slack, hidden
    # ones publish no n.
    eps_q = Fraction(json.loads((game / "privacy.json").read_text())["epsilon"]) * Fraction(6, 24) / 7
    slack = math.ceil(3 / eps_q)
    ns = {}
    for r in _rows(game / "comparisons.csv"):
        ns.setdefault(r["group_a"], set()).add(r["n_a"])
        ns.setdefault(r["group_b"], set()).add(r["n_b"])
    for g, n in ns.items():
        shown = any(r["group"] == g for r in rows)
        assert len(n) == 1, (g, n)
        n = n.pop()
        if shown:
            assert int(n) - slack >= 20, f"{g}: noisy n {n} shown although n - {slack} < 20"
        else:
            assert n == "not shown" or g not in taus, f"{g}: n {n} published but no quartiles"


@pytest.mark.parametrize("name", COHORTS)
def test_attack_5_roc_and_calibration_files_hold_no_player_rows(name, cohorts, releases):
    """roc.csv had one row per training player, so "<5" calibration cells could be counted."""
    game = releases[name]["with"]
    model = cohorts[name]["analysis"].get("model")
    if model is None:
        assert not (game / "roc.csv").exists()
        return
    roc = _rows(game / "roc.csv")
    assert len(roc) == BINS + 1, "one row per bin edge, whatever the cohort size"
    hist = _rows(game / "score-histogram.csv")
    # The exact bins of the released public model's scores (docs/game-privacy.md).
    w = np.array(json.loads((game / "model.json").read_text())["noisyCoefficients"])
    exact_pos, exact_neg = _exact_bins(cohorts[name]["analysis"], w)
    pub_pos = [int(r["with_diagnosis_noisy"]) for r in hist]
    pub_neg = [int(r["without_noisy"]) for r in hist]
    assert pub_pos != exact_pos and pub_neg != exact_neg
    exact = sum(1 for a, b in zip(pub_pos + pub_neg, exact_pos + exact_neg) if a == b)
    assert exact < _chance_bound(game, "model", 2 * BINS), f"{exact} of {2 * BINS} bins are exact"


@pytest.fixture(scope="module")
def database_releases(tmp_path_factory, dossier_bin):
    """Public sites of D (31 players, each with a result key) and D−1 (the first 30),
    built from two databases under one privacy key."""
    import hashlib
    import subprocess

    def run(*args):
        return subprocess.run([dossier_bin, *map(str, args)], check=True, capture_output=True, text=True)
    from test_game_release_data import sealed_players
    base = tmp_path_factory.mktemp("db-releases")
    uploads = sealed_players(dossier_bin, base, players=31, seed=44)
    sites = {}
    for name, ups in (("D", uploads), ("D-1", uploads[:30])):
        root = base / name
        root.mkdir()
        run("game", "ingest", "--key", base / "study.key", *ups, "--db", root / "study.sqlite")
        (root / "dossier.yml").write_text("title: Game\noutput: _site\ngame:\n  database: study.sqlite\n  results_capacity: 40\n")
        (root / ".dossier").mkdir()
        (root / ".dossier" / "privacy.key").write_text(hashlib.sha256(b"attack 6").hexdigest() + "\n")
        run("build", root)
        sites[name] = root
    return sites


def test_attack_6_file_counts_sizes_and_names_tell_nothing(database_releases):
    """D against D−1 from the files alone: the same number of files, result files of one
    size, no exact player count in any text, and no side with a name the other lacks that
    could only be the newcomer's (one name differs each way: a real file or a decoy)."""
    d, d1 = database_releases["D"], database_releases["D-1"]
    files = lambda root: sorted(str(p.relative_to(root)) for p in (root / "_site").rglob("*") if p.is_file())
    assert len(files(d)) == len(files(d1))
    manifest = lambda root: json.loads((root / "_site.manifest.json").read_text())
    assert len(manifest(d)["files"]) == len(manifest(d1)["files"]) == len(files(d))
    results = {k: {p.name: p.stat().st_size for p in (r / "_site" / "game" / "results").glob("*.rmr")}
               for k, r in database_releases.items()}
    assert len(results["D"]) == len(results["D-1"]) == 40
    assert set(results["D"].values()) == set(results["D-1"].values()) and len(set(results["D"].values())) == 1
    only_d, only_d1 = set(results["D"]) - set(results["D-1"]), set(results["D-1"]) - set(results["D"])
    assert len(only_d) == len(only_d1) == 1
    for root, exact in ((d, 31), (d1, 30)):
        noisy = sum(int(r["n_noisy"]) for r in _rows(root / "_site" / "game" / "group-counts.csv"))
        for f in (root / "_site").rglob("*"):
            if f.suffix in (".html", ".md", ".csv", ".json", ".txt", ".xml"):
                text = re.sub(r"<[^>]+>", "", f.read_text(encoding="utf-8"))
                said = {int(n) for n in re.findall(r"(\d+)\s*(?:players|participants|people)\b", text)}
                said |= {int(n) for n in re.findall(r'"(?:players|count|nPlayers)"\s*:\s*(\d+)', text)}
                assert exact not in said - {noisy}, (f, exact)
