"""docs/game-privacy.md on a cohort large enough for the public model: the comparisons,
τ quartiles, the minimum group size, the public model (fit, noise, scores, class totals,
AUC) and the figures computed from them (ROC, calibration, Brier, the intervals)."""
import hashlib
import json
import math
import re
import subprocess
from fractions import Fraction

import pytest

import test_doc_game_privacy_impl as dp
from test_doc_game_privacy_release import build, make_project

KEY = hashlib.sha256(b"doc-game-privacy-model").digest()
Z = 1.959964


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("model") / "p", players=360, seed=11, key=KEY)
    build(root)
    analysis = dp.analyze([root / "data/cohort.jsonl"], root)
    pj = json.loads((root / "_site/game/privacy.json").read_text())
    digest = dp.digest_files(dp.unit_salt(), [("data/cohort.jsonl", (root / "data/cohort.jsonl").read_bytes())])
    assert pj["release"] == dp.release_id(KEY, digest)
    return root, analysis["players"], pj["release"], digest


def comparison_rows(root):
    return dp.read_csv(root / "_site/game/comparisons.csv")


def released(root):
    """{group: (n, {measure: (mean, sd)})} as comparisons.csv shows them."""
    out = {}
    for r in comparison_rows(root):
        for side in "ab":
            if r["n_" + side] != "not shown":
                out.setdefault(r["group_" + side], (int(r["n_" + side]), {}))[1][r["measure"]] = \
                    (float(r["mean_" + side]), float(r["sd_" + side]))
    return out


def test_comparisons_n_and_means_follow_the_clamped_noisy_sums(study):
    root, players, rel, digest = study
    want = dp.comparisons(players, KEY, rel, digest)
    got = released(root)
    assert got, "no group shown"
    for g, (n, stats) in got.items():
        assert n == want[g][0], g
        for m, (mean, _) in stats.items():
            assert mean == pytest.approx(want[g][1][m][0], rel=1e-9, abs=1e-12), (g, m)


def test_comparisons_sd_is_the_rounded_spread_of_the_doc(study):
    # "Spread Σ round(min(|k − m̃|, D)²) — each player's term rounded to an integer, then summed"
    root, players, rel, digest = study
    want = dp.comparisons(players, KEY, rel, digest, spread_rounding="term")
    per_term = dp.comparisons(players, KEY, rel, digest, spread_rounding="sum")
    for g, (n, stats) in released(root).items():
        for m, (_, sd) in stats.items():
            assert sd == pytest.approx(want[g][1][m][1], rel=1e-9), \
                (g, m, f"rounding the sum instead gives {per_term[g][1][m][1]}")


def test_a_group_is_shown_exactly_when_its_bound_reaches_20(study):
    root, players, rel, digest = study
    want = dp.comparisons(players, KEY, rel, digest)
    shown = {g for g, (n, _) in want.items() if n - dp.min_bound() >= 20}
    for r in comparison_rows(root):
        for side in "ab":
            g = r["group_" + side]
            if g in shown:
                assert r["n_" + side] == str(want[g][0])
            else:
                assert [r[k + "_" + side] for k in ("n", "mean", "sd")] == ["not shown", "", ""]
                assert (r["hedges_g"], r["g_low"], r["g_high"]) == ("", "", "")
    tq = {r["group"] for r in dp.read_csv(root / "_site/game/tau-quartiles.csv")}
    assert tq == shown & set(dp.GROUPS)


def test_tau_quartiles_come_from_the_keyed_noisy_histogram(study):
    root, players, rel, digest = study
    rows = dp.read_csv(root / "_site/game/tau-quartiles.csv")
    assert rows and list(rows[0]) == ["group", "q1", "median", "q3"]
    for r in rows:
        g = r["group"]
        cells = [0] * 40
        for p in players:
            if p["group"] == g and dp.measure(p, "tau") is not None:
                cells[dp.hist_bin(dp.measure(p, "tau"), 0, 600, 40)] += 1
        noise = dp.Noise(dp.part_stream(KEY, rel, "tau/" + g, digest))
        noisy = [c + noise.laplace(Fraction(4)) for c in cells]
        for col, p in (("q1", 0.25), ("median", 0.5), ("q3", 0.75)):
            assert float(r[col]) == pytest.approx(dp.quantile(noisy, p, 0, 600), rel=1e-9), (g, col)


def test_hedges_g_and_its_honest_interval(study):
    root = study[0]
    eq = dp.part_eps(6000, "comparisons") / 7
    v = lambda d: dp.laplace_sd(Fraction(d) / eq) ** 2
    bounds = {m: (lo, hi) for m, lo, hi in dp.COMPARED}
    checked = 0
    for r in comparison_rows(root):
        if "not shown" in (r["n_a"], r["n_b"]):
            continue
        lo, hi = bounds[r["measure"]]
        u = (hi - lo) / 100
        n1, n2 = int(r["n_a"]), int(r["n_b"])
        m1, m2, s1, s2 = (float(r[k]) for k in ("mean_a", "mean_b", "sd_a", "sd_b"))
        J = 1 - 3 / (4 * (n1 + n2) - 9)
        sp2 = ((n1 - 1) * s1 ** 2 + (n2 - 1) * s2 ** 2) / (n1 + n2 - 2)
        g = J * (m1 - m2) / math.sqrt(sp2)
        vs = (n1 + n2) / (n1 * n2) + g * g / (2 * (n1 + n2))
        M = [(v(100) + ((m - lo) / u) ** 2 * v(1)) / n ** 2 * u * u for m, n in ((m1, n1), (m2, n2))]
        P = 2 * v(625) * u ** 4 / (n1 + n2 - 2) ** 2
        vn = J * J * sum(M) / sp2 + g * g * P / (4 * sp2 ** 2)
        h = Z * math.sqrt(vs + vn)
        assert float(r["hedges_g"]) == pytest.approx(g, rel=1e-7, abs=1e-9)
        assert (float(r["g_low"]), float(r["g_high"])) == (pytest.approx(g - h, rel=1e-6), pytest.approx(g + h, rel=1e-6))
        checked += 1
    assert checked >= 3


# MARK: - the public model

def training_rows(players):
    rows = []
    for p in players:
        if p["group"] not in ("control", "adhd") or p["measures"].get("encounters", 0) < 30:
            continue
        vals = [dp.measure(p, m) for m, _, _ in dp.PUBLIC_FEATURES]
        if any(v is None for v in vals):
            continue
        z = [2 * (min(max(v, lo), hi) - lo) / (hi - lo) - 1 for v, (_, lo, hi) in zip(vals, dp.PUBLIC_FEATURES)]
        rows.append(([x / math.sqrt(6) for x in [1.0, *z]], 1 if p["group"] == "adhd" else -1))
    return rows


def fit(rows, lam=40.0):
    import numpy as np
    X = np.array([x for x, _ in rows])
    y = np.array([t for _, t in rows], dtype=float)
    J = lambda w: float(np.sum(np.logaddexp(0, -y * (X @ w))) + lam / 2 * w @ w)
    w = np.zeros(6)
    for _ in range(100):
        s = 1 / (1 + np.exp(y * (X @ w)))
        grad = X.T @ (-y * s) + lam * w
        if np.linalg.norm(grad) <= 1e-9:
            break
        p = 1 / (1 + np.exp(-(X @ w)))
        H = (X * (p * (1 - p))[:, None]).T @ X + lam * np.eye(6)
        step, t, j0 = np.linalg.solve(H, grad), 1.0, J(w)
        while J(w - t * step) > j0 + 1e-12 * abs(j0):
            t /= 2
        w = w - t * step
    return list(w)


@pytest.fixture(scope="module")
def public_model(study):
    root, players, rel, digest = study
    rows = training_rows(players)
    k = [dp.round_half_away(1000 * w) for w in fit(rows)]
    noise = dp.Noise(dp.part_stream(KEY, rel, "model-fit", digest))
    kt = [c + noise.laplace(Fraction(68)) for c in k]
    wt = [c / 1000 for c in kt]
    scores = []
    for x, y in rows:
        t = 0.0
        for a, b in zip(wt, x):
            t += a * b
        scores.append((t, y))
    n_pos = sum(1 for _, y in rows if y == 1)
    noise = dp.Noise(dp.part_stream(KEY, rel, "model-n", digest))
    nt_pos, nt_neg = n_pos + noise.laplace(Fraction(4)), len(rows) - n_pos + noise.laplace(Fraction(4))
    return dict(rows=rows, wt=wt, scores=scores, n_pos=n_pos, n_neg=len(rows) - n_pos, nt_pos=nt_pos, nt_neg=nt_neg)


def test_model_json_has_the_documented_keys_and_noisy_coefficients(study, public_model):
    root, rel = study[0], study[2]
    model = json.loads((root / "_site/game/model.json").read_text())
    assert sorted(model) == sorted(["features", "lambda", "noisyCoefficients", "nTrain", "nPositive", "scoreRange",
                                    "auc", "aucLow", "aucHigh", "brier", "privacyRelease"])
    assert model["features"] == [{"measure": m, "lower": lo, "upper": hi} for m, lo, hi in dp.PUBLIC_FEATURES]
    assert (model["lambda"], model["privacyRelease"]) == (40, rel)
    assert model["noisyCoefficients"] == public_model["wt"]


def test_class_totals_and_the_fifty_rule(study, public_model):
    model = json.loads((study[0] / "_site/game/model.json").read_text())
    pos, neg = max(0, public_model["nt_pos"]), max(0, public_model["nt_neg"])
    assert pos >= 50 and neg >= 50
    assert (model["nPositive"], model["nTrain"]) == (pos, pos + neg)


def test_score_range_and_histograms_follow_the_released_model(study, public_model):
    root, _, rel, digest = study
    model = json.loads((root / "_site/game/model.json").read_text())
    wt, s = public_model["wt"], math.sqrt(6)
    c, h = wt[0] / s, math.sqrt(sum(w * w for w in wt[1:])) / s or 1.0
    lo, hi = c - 2 * h, c + 2 * h
    assert model["scoreRange"] == [pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12)]
    P, N = [0] * 10, [0] * 10
    for t, y in public_model["scores"]:
        (P if y == 1 else N)[dp.hist_bin(t, lo, hi, 10)] += 1
    noise = dp.Noise(dp.part_stream(KEY, rel, "model", digest))
    P = [v + noise.laplace(Fraction(2)) for v in P]
    N = [v + noise.laplace(Fraction(2)) for v in N]
    rows = dp.read_csv(root / "_site/game/score-histogram.csv")
    assert list(rows[0]) == ["bin_low", "bin_high", "with_diagnosis_noisy", "without_noisy"]
    assert [int(r["with_diagnosis_noisy"]) for r in rows] == P
    assert [int(r["without_noisy"]) for r in rows] == N
    sig = lambda t: 1 / (1 + math.exp(-t))
    edges = [lo + (hi - lo) * b / 10 for b in range(11)]
    for b, r in enumerate(rows):
        assert float(r["bin_low"]) == pytest.approx(0 if b == 0 else sig(edges[b]), rel=1e-9)
        assert float(r["bin_high"]) == pytest.approx(1 if b == 9 else sig(edges[b + 1]), rel=1e-9)


def test_auc_is_the_floored_mann_whitney_count_plus_noise(study, public_model):
    root, _, rel, digest = study
    pm = public_model
    pos = [t for t, y in pm["scores"] if y == 1]
    neg = [t for t, y in pm["scores"] if y == -1]
    u2 = sum(2 if a > b else (1 if a == b else 0) for a in pos for b in neg)
    M = max(50, min(pm["nt_pos"], pm["nt_neg"]) - math.ceil(4 / dp.part_eps(6000, "model-n")))
    a, b, G = max(pm["n_pos"], M), max(pm["n_neg"], M), 100000
    k = (G * u2 + a * b) // (2 * a * b)
    delta = -(-G // M) + 1
    noise = dp.Noise(dp.part_stream(KEY, rel, "model-auc", digest))
    auc = min(max((k + noise.laplace(Fraction(delta) / dp.part_eps(6000, "model-auc"))) / G, 0), 1)
    assert json.loads((root / "_site/game/model.json").read_text())["auc"] == pytest.approx(auc, abs=1e-12)


def test_roc_calibration_brier_and_auc_interval_are_post_processing(study):
    root = study[0]
    model = json.loads((root / "_site/game/model.json").read_text())
    hist = dp.read_csv(root / "_site/game/score-histogram.csv")
    P = [max(0, int(r["with_diagnosis_noisy"])) for r in hist]
    N = [max(0, int(r["without_noisy"])) for r in hist]
    hp, hn = sum(P), sum(N)
    lo, hi = model["scoreRange"]
    e = [lo + (hi - lo) * b / 10 for b in range(11)]
    sig = lambda t: 1 / (1 + math.exp(-t))
    roc = [(1, 0, 0)] + [(sig(e[b]) if b else 0, sum(N[b:]) / hn, sum(P[b:]) / hp) for b in range(9, -1, -1)]
    got = [tuple(float(r[k]) for k in ("threshold", "fpr", "tpr")) for r in dp.read_csv(root / "_site/game/roc.csv")]
    assert got == [tuple(pytest.approx(v, rel=1e-9, abs=1e-12) for v in p) for p in roc]
    brier = 0.0
    for b, r in enumerate(dp.read_csv(root / "_site/game/calibration.csv")):
        n, pb = P[b] + N[b], sig((e[b] + e[b + 1]) / 2)
        brier += P[b] * (1 - pb) ** 2 + N[b] * pb ** 2
        assert int(r["n"]) == n and float(r["predicted"]) == pytest.approx(pb, rel=1e-9)
        assert r["observed"] == "" if n < 20 else float(r["observed"]) == pytest.approx(P[b] / n, rel=1e-9)
    assert model["brier"] == pytest.approx(brier / (hp + hn), rel=1e-12)
    A, npos = model["auc"], model["nPositive"]
    nneg = model["nTrain"] - npos
    q1, q2 = A / (2 - A), 2 * A * A / (1 + A)
    vhm = (A * (1 - A) + (npos - 1) * (q1 - A * A) + (nneg - 1) * (q2 - A * A)) / (npos * nneg)
    M = max(50, min(npos, nneg) - 16)
    sd = dp.laplace_sd(Fraction(-(-100000 // M) + 1) / Fraction(9, 4)) / 100000
    half = Z * math.sqrt(vhm + sd * sd)
    assert model["aucLow"] == pytest.approx(max(0, A - half), abs=1e-8)
    assert model["aucHigh"] == pytest.approx(min(1, A + half), abs=1e-8)


def test_no_private_model_figures_on_the_public_site(study):
    root = study[0]
    text = (root / "_site/game/model.json").read_text()
    assert '"coefficients"' not in text and "standardi" not in text.lower()
    names = {p.name for p in (root / "_site/game").rglob("*")}
    assert not names & {"players.csv", "players.json", "model-coefficients.csv", "players"}
    assert not (root / "_site/PRIVATE-SITE.txt").exists()


def test_model_json_is_written_as_the_doc_says(study):
    # game-privacy.md: JSONEncoder, sorted keys, pretty printed, no final newline, shortest round-trip numbers
    from test_doc_game_privacy_release import assert_encoder_json
    assert_encoder_json((study[0] / "_site/game/model.json").read_text(encoding="utf-8"), "model.json")