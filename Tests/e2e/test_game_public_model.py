"""The public game model re-implemented from docs/game-privacy.md ("The public model") alone,
against a real build of the demo with a known key: the clamped rows, the one fit on every
training player and its in-sample scores of this file must explain the published files up
to noise of the documented size."""
import csv
import json
import math
import subprocess

import numpy as np
import pytest

from conftest import REPO

KEY = "3c91d2e4f60718a2" "b3c4d5e6f7081920" "a1b2c3d4e5f60718" "293a4b5c6d7e8f90"
FEATURES = [("hitRTSD", 40, 180), ("tau", 40, 340), ("omissionRate", 0, 0.25), ("dPrime", 2, 5),
            ("commissionRate", 0, 5)]
LAMBDA, TOL, GRID = 40.0, 1e-9, 1000
BINS, AUC_STEPS, MIN_CLASS, SLACK_SCALES = 10, 100_000, 50, 4


def _measure(player, name):
    m = player["measures"]
    if name == "tau":
        return ((m.get("exGaussian") or {}).get("params") or {}).get("tau")
    return m.get(name)


def _row(values):
    s = math.sqrt(len(values) + 1)
    z = [2 * (min(max(v, lo), hi) - lo) / (hi - lo) - 1 for v, (_, lo, hi) in zip(values, FEATURES)]
    return np.array([1.0] + z) / s


def _training(analysis):
    out = []
    for p in sorted(analysis["players"], key=lambda p: p["id"]):
        if p["group"] not in ("control", "adhd") or p["measures"]["encounters"] < analysis["options"]["minimumEncounters"]:
            continue
        v = [_measure(p, f[0]) for f in FEATURES]
        if any(x is None for x in v):
            continue
        out.append((_row(v), 1.0 if p["group"] == "adhd" else -1.0))
    return out


def _fit(rows, ys):
    """Newton on J(w) = Σ log(1 + exp(−y w·x)) + Λ/2 ‖w‖² to ‖∇J‖ ≤ τ."""
    X, y = np.array(rows), np.array(ys)
    w = np.zeros(X.shape[1])
    for _ in range(100):
        m = y * (X @ w)
        g = -(X.T @ (y / (1 + np.exp(m)))) + LAMBDA * w
        if np.linalg.norm(g) <= TOL:
            return w
        p = 1 / (1 + np.exp(-(X @ w)))
        H = (X.T * (p * (1 - p))) @ X + LAMBDA * np.eye(X.shape[1])
        w = w - np.linalg.solve(H, g)
    raise AssertionError("no convergence")


def _laplace_sd(scale):
    q = math.exp(-1 / scale)
    return math.sqrt(2 * q) / (1 - q)


@pytest.fixture(scope="module")
def demo(tmp_path_factory, dossier_bin):
    data = REPO / "Examples" / "demo" / "data" / "game" / "cohort.jsonl"
    analysis = json.loads(subprocess.run([dossier_bin, "game", "analyze", "--json", str(data)], check=True,
                                         capture_output=True, text=True).stdout)
    root = tmp_path_factory.mktemp("public-model")
    (root / "dossier.yml").write_text(f"title: Game\noutput: _site\ngame:\n  telemetry: {data}\n")
    (root / ".dossier").mkdir()
    (root / ".dossier" / "privacy.key").write_text(KEY + "\n")
    subprocess.run([dossier_bin, "build", str(root)], check=True, capture_output=True)
    return analysis, root / "_site" / "game"


def test_published_coefficients_are_the_documented_fit_plus_noise_of_the_documented_size(demo):
    analysis, game = demo
    model = json.loads((game / "model.json").read_text())
    assert [(f["measure"], f["lower"], f["upper"]) for f in model["features"]] == FEATURES
    assert model["lambda"] == LAMBDA
    spends = {s["part"]: float(s["epsilon"]) for s in json.loads((game / "privacy.json").read_text())["spends"]}
    d1 = math.ceil(math.sqrt(len(FEATURES) + 1) * (1 + 2 * TOL) / LAMBDA * GRID) + len(FEATURES) + 1
    assert d1 == 68
    train = _training(analysis)
    k = np.rint(_fit([x for x, _ in train], [y for _, y in train]) * GRID)
    noise = list(np.rint(np.array(model["noisyCoefficients"]) * GRID) - k)
    assert len(noise) == len(FEATURES) + 1
    # 6 draws of discrete Laplace(68/ε_fit): present, and within 10 noise SDs.
    sd = _laplace_sd(d1 / spends["model-fit"])
    assert any(n != 0 for n in noise)
    assert max(abs(n) for n in noise) < 10 * sd, (noise, sd)


def _score_range(w):
    s = math.sqrt(len(w))
    h = float(np.linalg.norm(w[1:])) / s or 1.0
    c = w[0] / s
    return c - 2 * h, c + 2 * h


def _exact_bins(analysis, w):
    """The released model's score histograms without noise: (with, without a diagnosis)."""
    lo, hi = _score_range(w)
    pos, neg = [0] * BINS, [0] * BINS
    for x, y in _training(analysis):
        t = min(max(float(w @ x), lo), hi)
        (pos if y > 0 else neg)[min(BINS - 1, int((t - lo) / (hi - lo) * BINS))] += 1
    return pos, neg


def _spends(game):
    return {s["part"]: float(s["epsilon"]) for s in json.loads((game / "privacy.json").read_text())["spends"]}


def test_published_score_histograms_are_the_in_sample_scores_plus_noise(demo):
    analysis, game = demo
    model = json.loads((game / "model.json").read_text())
    spends = _spends(game)
    w = np.array(model["noisyCoefficients"])
    lo, hi = _score_range(w)
    assert model["scoreRange"] == pytest.approx([lo, hi], abs=1e-12)
    exact_pos, exact_neg = _exact_bins(analysis, w)     # the released noisy model's scores
    with open(game / "score-histogram.csv", newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == BINS
    # Bin edges as probabilities σ(edge); the end bins reach 0 and 1.
    edges = [lo + (hi - lo) * b / BINS for b in range(BINS + 1)]
    assert float(rows[0]["bin_low"]) == 0 and float(rows[-1]["bin_high"]) == 1
    for r, b in zip(rows[1:], range(1, BINS)):
        assert float(r["bin_low"]) == pytest.approx(1 / (1 + math.exp(-edges[b])), abs=1e-9)
    noise = [int(r["with_diagnosis_noisy"]) - a for r, a in zip(rows, exact_pos)]
    noise += [int(r["without_noisy"]) - b for r, b in zip(rows, exact_neg)]
    # 20 draws of discrete Laplace(1/ε_model): their mean square is near the variance
    # (a wrong row, range or model would move dozens of players between bins).
    var = _laplace_sd(1 / spends["model"]) ** 2
    ms = sum(n * n for n in noise) / len(noise)
    assert 0.2 * var < ms < 3.5 * var, (ms, var, noise)
    assert sum(exact_pos) == sum(1 for _, y in _training(analysis) if y > 0)


def test_published_auc_is_the_floored_mann_whitney_count_plus_noise(demo):
    """The AUC from docs/game-privacy.md ("The AUC"): class totals with noise, the floor M
    from them, U / (max(n₊, M)·max(n₋, M)) on a grid of 1/100 000, and discrete Laplace noise
    of scale (⌈G/M⌉ + 1)/ε_auc."""
    analysis, game = demo
    model = json.loads((game / "model.json").read_text())
    spends = _spends(game)
    w = np.array(model["noisyCoefficients"])
    train = _training(analysis)
    pos = np.array([float(w @ x) for x, y in train if y > 0])
    neg = np.array([float(w @ x) for x, y in train if y < 0])
    n_pos, n_neg = model["nPositive"], model["nTrain"] - model["nPositive"]
    sd_n = _laplace_sd(1 / spends["model-n"])
    assert abs(n_pos - len(pos)) < 10 * sd_n and abs(n_neg - len(neg)) < 10 * sd_n
    slack = math.ceil(SLACK_SCALES / spends["model-n"])
    m = max(MIN_CLASS, min(n_pos, n_neg) - slack)
    u2 = int(2 * (pos[:, None] > neg[None, :]).sum() + (pos[:, None] == neg[None, :]).sum())
    ab = max(len(pos), m) * max(len(neg), m)
    k = (AUC_STEPS * u2 + ab) // (2 * ab)
    delta = -(-AUC_STEPS // m) + 1
    noise = round(model["auc"] * AUC_STEPS) - k
    sd = _laplace_sd(delta / spends["model-auc"])
    assert noise != 0 and abs(noise) < 10 * sd, (noise, sd)
    # The published AUC is close to the exact AUC of these scores, and its interval holds it.
    assert abs(model["auc"] - u2 / (2 * len(pos) * len(neg))) < 0.1
    assert model["aucLow"] < model["auc"] < model["aucHigh"]
