"""Oracle tests for GameAnalytics: the ex-Gaussian MLE against scipy, the logistic
regression against scikit-learn, through the hidden `dossier game fit-*` commands."""
import json

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")
sklearn_lm = pytest.importorskip("sklearn.linear_model")
sklearn_pre = pytest.importorskip("sklearn.preprocessing")
sklearn_metrics = pytest.importorskip("sklearn.metrics")


@pytest.mark.parametrize("mu,sigma,tau,seed", [
    (400.0, 40.0, 100.0, 1),
    (350.0, 30.0, 150.0, 2),
    (500.0, 60.0, 80.0, 3),
    (450.0, 50.0, 200.0, 4),
])
def test_exgauss_mle_matches_scipy(run_dossier, mu, sigma, tau, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(mu, sigma, 2000) + rng.exponential(tau, 2000)
    out = json.loads(run_dossier("game", "fit-exgauss", "--json", input="\n".join(repr(float(v)) for v in x)).stdout)
    K, loc, scale = scipy_stats.exponnorm.fit(x)
    ref = {"mu": loc, "sigma": scale, "tau": K * scale}
    for name in ("mu", "sigma", "tau"):
        assert abs(out[name] - ref[name]) <= 0.02 * abs(ref[name]), (name, out[name], ref[name])
    # scipy can stop early: ours must be at least as likely (up to rounding).
    ll_scipy = float(np.sum(scipy_stats.exponnorm.logpdf(x, K, loc, scale)))
    ll_ours = float(np.sum(scipy_stats.exponnorm.logpdf(x, out["tau"] / out["sigma"], out["mu"], out["sigma"])))
    assert abs(ll_ours - out["logLikelihood"]) < 1e-6 * abs(ll_ours)
    assert ll_ours >= ll_scipy - 1e-6 * abs(ll_scipy)


def test_exgauss_rejects_too_few_values(run_dossier):
    proc = run_dossier("game", "fit-exgauss", "--json", input="1\n2\n3\n", check=False)
    assert proc.returncode == 1
    assert "at least 10" in proc.stderr


@pytest.mark.parametrize("C,seed", [(1.0, 11), (0.1, 12), (10.0, 13)])
def test_logistic_matches_sklearn(run_dossier, C, seed):
    rng = np.random.default_rng(seed)
    n, p = 400, 5
    X = rng.normal(size=(n, p)) * np.array([1.0, 50.0, 0.01, 3.0, 200.0]) + np.array([0, 400, 0.05, 1, 100])
    z = (X - X.mean(0)) / X.std(0)
    y = (rng.random(n) < 1 / (1 + np.exp(-(-0.4 + 1.1 * z[:, 0] - 0.8 * z[:, 1] + 0.3 * z[:, 3])))).astype(int)
    csv = "a,b,c,d,e,label\n" + "\n".join(",".join(repr(float(v)) for v in row) + f",{lab}" for row, lab in zip(X, y))
    out = json.loads(run_dossier("game", "fit-logistic", "--json", "--C", str(C), input=csv).stdout)
    Z = sklearn_pre.StandardScaler().fit_transform(X)
    # The default penalty is L2: C·Σ logloss + ½‖w‖², intercept not penalised.
    model = sklearn_lm.LogisticRegression(C=C, solver="lbfgs", tol=1e-12, max_iter=100000).fit(Z, y)
    assert abs(out["intercept"] - model.intercept_[0]) < 1e-3
    for ours, ref in zip(out["coefficients"], model.coef_[0]):
        assert abs(ours - ref) < 1e-3, (ours, ref)
    auc = sklearn_metrics.roc_auc_score(y, model.predict_proba(Z)[:, 1])
    assert abs(out["auc"] - auc) < 1e-3


def test_cohort_cv_auc_matches_sklearn_on_the_same_folds(run_dossier, tmp_path):
    """The cohort model's out-of-fold AUC, recomputed with scikit-learn on the same folds."""
    cohort = tmp_path / "cohort.jsonl"
    # 150 players would be refused (events per predictor < 10): 520 give ~96 events.
    run_dossier("game", "simulate", "--players", "520", "--seed", "5", "--obstacles", "40", "--out", cohort)
    a = json.loads(run_dossier("game", "analyze", "--json", cohort).stdout)
    m = a["model"]
    ids = sorted(m["outOfFold"])
    by_id = {p["id"]: p for p in a["players"]}
    y = np.array([1 if by_id[i]["group"] == "adhd" else 0 for i in ids])
    oof = np.array([m["outOfFold"][i] for i in ids])
    assert abs(sklearn_metrics.roc_auc_score(y, oof) - m["cvAUC"]) < 1e-9
