"""TRIPOD figures recomputed with scikit-learn from the out-of-fold probabilities, and the
sample-size refusal (events per predictor < 10) shown on the page."""
import json

import numpy as np
import pytest

sk_lm = pytest.importorskip("sklearn.linear_model")
sk_metrics = pytest.importorskip("sklearn.metrics")
sk_pre = pytest.importorskip("sklearn.preprocessing")
optimize = pytest.importorskip("scipy.optimize")


def test_tripod_figures_match_sklearn(run_dossier, tmp_path):
    data = tmp_path / "c.jsonl"
    run_dossier("game", "simulate", "--players", "520", "--seed", "2014", "--obstacles", "40", "--out", data)
    a = json.loads(run_dossier("game", "analyze", "--json", data).stdout)
    m = a.get("model")
    assert m is not None, a.get("modelUnavailable")
    groups = {p["id"]: p["group"] for p in a["players"]}
    ids = sorted(m["outOfFold"])
    p = np.array([m["outOfFold"][i] for i in ids])
    y = np.array([groups[i] == "adhd" for i in ids]).astype(int)
    t = m["tripod"]
    assert t["n"] == len(ids) == m["nTrain"]
    lp = np.log(np.clip(p, 1e-12, 1 - 1e-12) / (1 - np.clip(p, 1e-12, 1 - 1e-12)))
    cox = sk_lm.LogisticRegression(penalty=None, tol=1e-12, max_iter=10000).fit(lp.reshape(-1, 1), y)
    assert abs(t["calibrationSlope"] - cox.coef_[0][0]) < 1e-4
    assert abs(t["calibrationIntercept"] - cox.intercept_[0]) < 1e-4
    citl = optimize.brentq(lambda a_: np.sum(y - 1 / (1 + np.exp(-(a_ + lp)))), -10, 10, xtol=1e-14)
    assert abs(t["calibrationInTheLarge"] - citl) < 1e-6
    th = t["atThreshold"]
    pred = (p >= th["threshold"]).astype(int)
    tn, fp, fn, tp = sk_metrics.confusion_matrix(y, pred, labels=[0, 1]).ravel()
    assert (th["tp"], th["fp"], th["tn"], th["fn"]) == (tp, fp, tn, fn)
    assert abs(th["sensitivity"] - sk_metrics.recall_score(y, pred)) < 1e-12
    assert abs(th["specificity"] - sk_metrics.recall_score(1 - y, 1 - pred)) < 1e-12
    if tp + fp:
        assert abs(th["ppv"] - sk_metrics.precision_score(y, pred)) < 1e-12
    assert abs(th["npv"] - sk_metrics.precision_score(1 - y, 1 - pred)) < 1e-12
    # Optimism: sklearn on its own bootstrap samples agrees within sampling noise.
    feats = ["hitRTMean", "hitRTSD", "tau", "omissionRate", "commissionRate", "anticipatoryRate", "dPrime", "blockSlope"]
    byid = {pl["id"]: pl for pl in a["players"]}

    def value(pl, f):
        ms = pl["measures"]
        if f == "tau":
            return ms["exGaussian"]["params"]["tau"]
        return ms[f]

    X = np.array([[value(byid[i], f) for f in feats] for i in ids])
    C = a["options"]["C"]

    def fit_auc(Xtr, ytr, Xte, yte):
        sc = sk_pre.StandardScaler().fit(Xtr)
        mdl = sk_lm.LogisticRegression(C=C, tol=1e-10, max_iter=10000).fit(sc.transform(Xtr), ytr)
        return sk_metrics.roc_auc_score(yte, mdl.predict_proba(sc.transform(Xte))[:, 1])

    apparent = fit_auc(X, y, X, y)
    assert abs(t["apparentAUC"] - apparent) < 1e-4
    rng = np.random.default_rng(5)
    opt = []
    for _ in range(200):
        idx = rng.integers(0, len(y), len(y))
        opt.append(fit_auc(X[idx], y[idx], X[idx], y[idx]) - fit_auc(X[idx], y[idx], X, y))
    assert abs(t["optimism"] - np.mean(opt)) < 0.01
    assert abs(t["optimismCorrectedAUC"] - (apparent - np.mean(opt))) < 0.01
    assert t["bootstrapReplicates"] == 200


def test_too_few_events_per_predictor_refuses_the_model(run_dossier, tmp_path):
    data = tmp_path / "c.jsonl"
    run_dossier("game", "simulate", "--players", "40", "--seed", "3", "--out", data)
    a = json.loads(run_dossier("game", "analyze", "--json", data).stdout)
    assert a.get("model") is None
    assert "10 per predictor" in a["modelUnavailable"]
    assert all(p["likelihood"].get("probability") is None for p in a["players"])
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "dossier.yml").write_text(f"title: G\noutput: _site\ngame:\n  telemetry: {data}\n")
    out = run_dossier("build", proj)
    html = (proj / "_site" / "game" / "cohort" / "index.html").read_text()
    # The public page decides on its own noisy counts and never repeats the private
    # model's reason, which states exact counts (docs/game-privacy.md, "The public model").
    assert "No model figures are shown" in html and "10 per predictor" not in html
    assert "too few players" in out.stderr + out.stdout
