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

KEY = "3c" * 32
FEATURES = [("hitRTSD", 40, 180), ("tau", 40, 340), ("omissionRate", 0, 0.25), ("dPrime", 2, 5),
            ("commissionRate", 0, 5)]
LAMBDA, TOL, GRID = 10.0, 1e-9, 1000


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
    assert d1 == 251
    train = _training(analysis)
    k = np.rint(_fit([x for x, _ in train], [y for _, y in train]) * GRID)
    noise = list(np.rint(np.array(model["noisyCoefficients"]) * GRID) - k)
    assert len(noise) == len(FEATURES) + 1
    # 6 draws of discrete Laplace(251/ε_fit): present, and within 10 noise SDs.
    sd = _laplace_sd(d1 / spends["model-fit"])
    assert any(n != 0 for n in noise)
    assert max(abs(n) for n in noise) < 10 * sd, (noise, sd)


def test_published_score_histograms_are_the_in_sample_scores_plus_noise(demo):
    analysis, game = demo
    model = json.loads((game / "model.json").read_text())
    spends = {s["part"]: float(s["epsilon"]) for s in json.loads((game / "privacy.json").read_text())["spends"]}
    w = np.array(model["noisyCoefficients"])
    exact_pos, exact_neg = [0] * 20, [0] * 20
    for x, y in _training(analysis):
        p = 1 / (1 + math.exp(-float(w @ x)))          # the released noisy model
        (exact_pos if y > 0 else exact_neg)[min(19, int(p * 20))] += 1
    with open(game / "score-histogram.csv", newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    noise = [int(r["with_diagnosis_noisy"]) - a for r, a in zip(rows, exact_pos)]
    noise += [int(r["without_noisy"]) - b for r, b in zip(rows, exact_neg)]
    # 40 draws of discrete Laplace(1/ε_model): their mean square is near the variance
    # (a wrong row or model would move dozens of players between bins).
    var = _laplace_sd(1 / spends["model"]) ** 2
    ms = sum(n * n for n in noise) / len(noise)
    assert 0.25 * var < ms < 3 * var, (ms, var, noise)
    assert sum(exact_pos) == sum(1 for _, y in _training(analysis) if y > 0)
