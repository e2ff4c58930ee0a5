"""Independent re-implementation of docs/game-measures.md "Model", "Model performance (TRIPOD)" and "Per-player
likelihood and the suggestion", with `SeededRandom` (xoshiro256** seeded by SplitMix64) as "Simulator" defines it,
and the demo numbers of docs/game-model-card.md, from the docs alone.

The cohort is `dossier game simulate --players 520 --seed 2014 --obstacles 40` (the model card's recipe). The
model's inputs — each player's eight features — are taken from the program's `measures` (the measures themselves
are re-implemented in test_doc_game_measures.py); everything after them is recomputed here with numpy.
"""
import json
import math
import subprocess

import numpy as np
import pytest

Z975 = 1.959963984540054   # docs/game-measures.md: z = Φ⁻¹(0.975) in every 95 % interval

from test_doc_game_measures import analyze, close

FEATURES = ["hitRTMean", "hitRTSD", "tau", "omissionRate", "commissionRate", "anticipatoryRate", "dPrime",
            "blockSlope"]
M64 = (1 << 64) - 1


class SeededRandom:
    """xoshiro256** seeded by four SplitMix64 outputs of the seed (docs/game-measures.md, "Simulator")."""

    def __init__(self, seed):
        state, self.s = seed & M64, []
        for _ in range(4):
            state = (state + 0x9E3779B97F4A7C15) & M64
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    def next(self):
        s = self.s
        rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & M64  # noqa: E731
        result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53

    def below(self, n):
        return int(self.uniform() * n)


def expit(x):
    return 1 / (1 + np.exp(-x))


def fit_logistic(X, y, C):
    """Newton on Σ logloss + ‖w‖²/(2C) from zeros, step halving, stop when the largest step < 1e-10."""
    Xt = np.hstack([np.ones((len(X), 1)), X])
    pen = np.full(Xt.shape[1], 1 / C)
    pen[0] = 0

    def objective(b):
        eta = Xt @ b
        return float(np.sum(np.logaddexp(0, eta) - y * eta) + 0.5 * np.sum(pen * b * b))

    b = np.zeros(Xt.shape[1])
    for _ in range(100):
        p = expit(Xt @ b)
        grad = Xt.T @ (p - y) + pen * b
        hess = (Xt * (p * (1 - p))[:, None]).T @ Xt + np.diag(pen)
        step = np.linalg.solve(hess, grad)
        lam = 1.0
        while objective(b - lam * step) > objective(b) and lam > 1e-10:
            lam /= 2
        b = b - lam * step
        if np.max(np.abs(lam * step)) < 1e-10:
            break
    p = expit(Xt @ b)
    hess = (Xt * (p * (1 - p))[:, None]).T @ Xt + np.diag(pen)
    return b, hess


def standardise(X):
    m, s = X.mean(axis=0), X.std(axis=0)
    s[s == 0] = 1
    return m, s


def fit_std(X, y, C):
    m, s = standardise(X)
    b, hess = fit_logistic((X - m) / s, y, C)
    return m, s, b, hess


def predict(model, X):
    m, s, b, _ = model
    return expit(b[0] + ((X - m) / s) @ b[1:])


def auc(p, y):
    pos, neg = p[y == 1], p[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return float(psi.mean()), psi


@pytest.fixture(scope="module")
def demo(tmp_path_factory, dossier_bin):
    folder = tmp_path_factory.mktemp("model")
    path = folder / "cohort.jsonl"
    subprocess.run([dossier_bin, "game", "simulate", "--players", "520", "--seed", "2014", "--obstacles", "40",
                    "--output", str(path), "--quiet"], check=True, capture_output=True, timeout=120)
    surveys = {}
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec["type"] == "survey":
            surveys[rec["player"]] = rec
    analysis = analyze(dossier_bin, path)
    rows = []
    for p in sorted(analysis["players"], key=lambda p: p["id"]):
        srv = surveys.get(p["id"])
        m = p["measures"]
        x = [m.get(f) if f != "tau" else (m.get("exGaussian") or {}).get("params", {}).get("tau") for f in FEATURES]
        if not srv or not srv["complete"] or srv.get("medicated") or m["encounters"] < 30 or None in x:
            continue
        rows.append((p["id"], x, 1 if srv["diagnosed"] else 0, srv["age"]))
    ids = [r[0] for r in rows]
    X = np.array([r[1] for r in rows], float)
    y = np.array([r[2] for r in rows], float)
    return {"analysis": analysis, "surveys": surveys, "ids": ids, "X": X, "y": y, "ages": [r[3] for r in rows],
            "model": analysis["model"], "full": fit_std(X, y, 1.0)}


def out_of_fold(X, y, k=5, seed=2014):
    rng = SeededRandom(seed)
    folds = np.zeros(len(y), int)
    for label in (1, 0):
        idx = [i for i in range(len(y)) if y[i] == label]
        for i in range(len(idx) - 1, 0, -1):
            j = rng.below(i + 1)
            idx[i], idx[j] = idx[j], idx[i]
        for pos, i in enumerate(idx):
            folds[i] = pos % k
    oof = np.zeros(len(y))
    for f in range(k):
        train = folds != f
        oof[~train] = predict(fit_std(X[train], y[train], 1.0), X[~train])
    return oof


def test_training_set_and_model_card_numbers(demo):
    model, y = demo["model"], demo["y"]
    assert model["nTrain"] == len(y) == 433 and model["nPositive"] == int(y.sum()) == 96
    assert round(model["cvAUC"], 3) == 0.760 and round(model["brier"], 3) == 0.142
    assert (round(model["cvAUCLow"], 3), round(model["cvAUCHigh"], 3)) == (0.702, 0.819)
    assert demo["analysis"]["validatedAges"] == [min(demo["ages"]), max(demo["ages"])] == [6, 70]


def test_standardiser_and_penalised_fit(demo):
    model = demo["model"]
    m, s, b, hess = demo["full"]
    assert np.allclose(model["standardizer"]["means"], m, rtol=1e-12)
    assert np.allclose(model["standardizer"]["sds"], s, rtol=1e-12)
    assert close(model["model"]["intercept"], b[0], rel=1e-7)
    assert np.allclose(model["model"]["coefficients"], b[1:], rtol=1e-7, atol=1e-9)
    assert np.allclose(np.array(model["model"]["covariance"]), np.linalg.inv(hess), rtol=1e-6, atol=1e-10)


def test_cross_validation_folds_and_out_of_fold_predictions(demo):
    oof = out_of_fold(demo["X"], demo["y"])
    got = demo["model"]["outOfFold"]
    assert sorted(got) == sorted(demo["ids"])
    assert np.allclose([got[i] for i in demo["ids"]], oof, rtol=1e-8, atol=1e-12)


def test_auc_delong_brier_calibration_roc(demo):
    model, y = demo["model"], demo["y"]
    p = np.array([model["outOfFold"][i] for i in demo["ids"]])
    a, psi = auc(p, y)
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    se = math.sqrt(v10.var(ddof=1) / len(v10) + v01.var(ddof=1) / len(v01))
    assert close(model["cvAUC"], a, rel=1e-12) and close(model["cvAUCSE"], se, rel=1e-9)
    assert close(model["cvAUCLow"], max(0, a - Z975 * se), abs_=1e-12)
    assert close(model["cvAUCHigh"], min(1, a + Z975 * se), abs_=1e-12)
    assert close(model["brier"], float(np.mean((p - y) ** 2)), rel=1e-12)
    assert close(model["trainAUC"], auc(predict(demo["full"], demo["X"]), y)[0], rel=1e-9)
    bins = np.minimum((p * 10).astype(int), 9)
    for k, row in enumerate(model["calibration"]):
        inside = bins == k
        assert (row["low"], row["high"], row["n"]) == (k / 10, (k + 1) / 10, int(inside.sum())), k
        if inside.any():
            assert close(row["meanPredicted"], p[inside].mean()) and close(row["observed"], y[inside].mean())
    points = {r["threshold"]: (r["fpr"], r["tpr"]) for r in model["roc"]}
    for t in set(p.tolist()):
        assert points[t] == (float(np.mean(p[y == 0] >= t)), float(np.mean(p[y == 1] >= t))), t


def test_auc_interval_uses_the_documented_z(demo):
    model = demo["model"]
    a, se = model["cvAUC"], model["cvAUCSE"]
    assert close(model["cvAUCLow"], a - Z975 * se, rel=1e-12) and close(model["cvAUCHigh"], a + Z975 * se, rel=1e-12)


def cox(p, y):
    lp = np.log(np.clip(p, 1e-12, 1 - 1e-12) / (1 - np.clip(p, 1e-12, 1 - 1e-12)))
    b, _ = fit_logistic(lp[:, None], y, 1e12)
    a = 0.0
    for _ in range(100):
        q = expit(a + lp)
        step = np.sum(y - q) / np.sum(q * (1 - q))
        a += step
        if abs(step) < 1e-12:
            break
    return b, a


def test_tripod_figures(demo):
    model, y, X = demo["model"], demo["y"], demo["X"]
    tri = model["tripod"]
    p = np.array([model["outOfFold"][i] for i in demo["ids"]])
    (intercept, slope), citl = cox(p, y)
    assert close(tri["calibrationSlope"], slope, rel=1e-6) and close(tri["calibrationIntercept"], intercept, rel=1e-6)
    assert close(tri["calibrationInTheLarge"], citl, rel=1e-8)
    pos = p >= 0.7
    tp, fp = int((pos & (y == 1)).sum()), int((pos & (y == 0)).sum())
    fn, tn = int((~pos & (y == 1)).sum()), int((~pos & (y == 0)).sum())
    at = tri["atThreshold"]
    assert (at["tp"], at["fp"], at["fn"], at["tn"]) == (tp, fp, fn, tn) == (12, 5, 84, 332)
    assert close(at["ppv"], tp / (tp + fp)) and close(at["npv"], tn / (tn + fn))
    rng, n, optimism = SeededRandom(1996), len(y), []
    for _ in range(200):
        idx = np.array([rng.next() % n for _ in range(n)])
        if min(y[idx].sum(), n - y[idx].sum()) < 2:
            continue
        rep = fit_std(X[idx], y[idx], 1.0)
        optimism.append(auc(predict(rep, X[idx]), y[idx])[0] - auc(predict(rep, X), y)[0])
    apparent = auc(predict(demo["full"], X), y)[0]
    assert tri["bootstrapReplicates"] == len(optimism) and close(tri["apparentAUC"], apparent)
    assert close(tri["optimism"], float(np.mean(optimism)), rel=1e-6)
    assert close(tri["optimismCorrectedAUC"], apparent - float(np.mean(optimism)), rel=1e-8)


def wald_problems(demo, z, tol):
    model, analysis = demo["model"], demo["analysis"]
    m, s, b, hess = demo["full"]
    cov = np.linalg.inv(hess)
    row = {pid: i for i, pid in enumerate(demo["ids"])}
    bad = []
    for p in analysis["players"]:
        if p["id"] in row:
            lik = p["likelihood"]
            xt = np.concatenate([[1.0], (demo["X"][row[p["id"]]] - m) / s])
            oof = model["outOfFold"][p["id"]]
            centre, se = math.log(oof / (1 - oof)), math.sqrt(float(xt @ cov @ xt))   # eta + shift = logit(oof)
            for key, sign in (("low", -1), ("high", 1)):
                if not close(lik[key], float(expit(centre + sign * z * se)), rel=1e-9, abs_=tol):
                    bad.append((p["id"], key))
    return bad


def test_likelihood_interval_is_the_shifted_wald_interval(demo):
    assert wald_problems(demo, Z975, tol=1e-5) == []


def test_likelihood_interval_uses_the_documented_z(demo):
    assert wald_problems(demo, Z975, tol=1e-13) == []


def test_per_player_likelihood_and_suggestion(demo):
    model, analysis = demo["model"], demo["analysis"]
    lo_age, hi_age = analysis["validatedAges"]
    row = {pid: i for i, pid in enumerate(demo["ids"])}
    suggested = 0
    for p in analysis["players"]:
        lik = p["likelihood"]
        if p["id"] not in row:
            assert "probability" not in lik and lik["suggest"] is False, p["id"]
            continue
        oof = model["outOfFold"][p["id"]]
        assert lik["outOfFold"] is True and close(lik["probability"], oof, rel=1e-12)
        srv, meas = demo["surveys"][p["id"]], p["measures"]
        want = (not srv["diagnosed"] and meas["encounters"] >= 100 and meas["sessions"] >= 2 and oof >= 0.7
                and lik["low"] >= 0.5 and lo_age <= srv["age"] <= hi_age)
        assert lik["suggest"] is want, p["id"]
        suggested += want
    assert suggested == 2   # docs/game-model-card.md: "reach it for 2 of 520 players"


def weighted(rng, weights):
    u, acc = rng.uniform(), 0.0
    for i, w in enumerate(weights):
        acc += w
        if u < acc:
            return i
    return len(weights) - 1


@pytest.mark.parametrize("seed", [1, 2, 7, 2014, 99991])
def test_simulator_first_draws_reproduce_the_survey_line(dossier_bin, seed):
    """id (12 hex digits of next()), gender, age band, age, diagnosed, medicated, incomplete — in the documented
    order and proportions; the survey line's fields in the documented order, no spaces."""
    out = subprocess.run([dossier_bin, "game", "simulate", "--players", "1", "--seed", str(seed), "--obstacles",
                          "10", "--quiet"], capture_output=True, text=True, timeout=60, check=True).stdout
    rng = SeededRandom(seed)
    pid = f"{rng.next():016x}"[:12]
    gender = ["female", "male", "other"][weighted(rng, [0.47, 0.47, 0.06])]
    lo, hi = [(6, 12), (13, 17), (18, 29), (30, 44), (45, 70)][weighted(rng, [0.2, 0.2, 0.3, 0.2, 0.1])]
    age = lo + rng.below(hi - lo + 1)
    diagnosed = rng.uniform() < 0.35
    medicated = diagnosed and rng.uniform() < 0.45
    incomplete = rng.uniform() < 0.03
    rec = {"type": "survey", "player": pid, "complete": not incomplete}
    if not incomplete:
        rec["diagnosed"] = diagnosed
        if diagnosed:
            rec["medicated"] = medicated
    rec["age"] = age
    if not incomplete:
        rec["gender"] = gender
    assert out.splitlines()[0] == json.dumps(rec, separators=(",", ":"))
