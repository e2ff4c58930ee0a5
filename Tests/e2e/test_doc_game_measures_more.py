"""Independent re-implementation of docs/game-measures.md "Ex-Gaussian" (the censored and complete-data
likelihoods, the flags), "Norms" (reference groups with their fallbacks, z, mid-rank percentile, T, Wilson
interval, normed ages), "Group comparisons" (Hedges' g) and "Sample size" (the refusal's numbers), from the docs.

The cohort is hand-made: players with ex-Gaussian reaction times whose slow ones fall out of the window, ties in
the measures (many omission rates of 0), players without a survey or with an incomplete one, and players older or
younger than every no-diagnosis player.
"""
import json
import math
import random
import subprocess

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.special import log_ndtr

from test_doc_game_measures import analyze, close, mean, measures, sd1, session, survey, write_jsonl

NORMED = ["hitRTMean", "hitRTSD", "hitRTCV", "mu", "sigma", "tau", "omissionRate", "commissionRate",
          "anticipatoryRate", "dPrime", "blockSlope", "isiSlope"]
BANDS = [(3, 12, "3\u201312"), (13, 17, "13\u201317"), (18, 29, "18\u201329"), (30, 44, "30\u201344"),
         (45, math.inf, "45+")]
COMPARISONS = [("adhd", "control"), ("adhd-medicated", "control"), ("adhd-medicated", "adhd")]


def band_of(age):
    return next(b for b in BANDS if b[0] <= age <= b[1])


def synthetic_sessions(pid, rng, n_sessions, n_obstacles, mu=420, sigma=50, tau=150, comm=3):
    recs = []
    for number in range(1, n_sessions + 1):
        t, obstacles = 0, []
        for _ in range(n_obstacles):
            t += rng.choice([1000, 2000, 4000])
            obstacles.append(t)
        dur = obstacles[-1] + 2000
        taps = []
        for a in obstacles:
            rt = round(rng.gauss(mu, sigma) + rng.expovariate(1 / tau))
            if rng.random() < 0.02:
                taps.append(a + rng.randrange(100))
            if 0 <= rt:
                taps.append(a + rt)
        taps += [rng.randrange(dur) for _ in range(rng.randrange(comm + 1))]
        recs.append(session(pid, number, dur, obstacles, sorted(min(x, dur) for x in taps), start=5000 * number))
    return recs


# MARK: - ex-Gaussian

def censored_loglik(params, rts, censor):
    """Σ log f(rt) + Σ log S(c), f and S as written in the docs (scipy's exponnorm logpdf/logsf)."""
    mu, sigma, tau = params
    x = np.asarray(rts, float)
    ll = (-math.log(tau) + (mu - x) / tau + sigma ** 2 / (2 * tau ** 2) + log_ndtr((x - mu) / sigma - sigma / tau))
    total = float(ll.sum())
    if censor:
        c = np.asarray(censor, float)
        z = (c - mu) / sigma
        total += float(np.logaddexp(log_ndtr(-z), -(c - mu) / tau + sigma ** 2 / (2 * tau ** 2)
                                    + log_ndtr(z - sigma / tau)).sum())
    return total


def best_nearby(start, rts, censor):
    """The best log-likelihood scipy's Nelder–Mead finds from `start`, on (μ, log σ, log τ)."""
    def nll(v):
        return -censored_loglik((v[0], math.exp(v[1]), math.exp(v[2])), rts, censor)
    x0 = [start[0], math.log(start[1]), math.log(start[2])]
    res = optimize.minimize(nll, x0, method="Nelder-Mead", options={"xatol": 1e-7, "fatol": 1e-10, "maxiter": 4000})
    return -res.fun


def moments(xs):
    n, m = len(xs), mean(xs)
    v = sum((x - m) ** 2 for x in xs) / (n - 1)
    k3 = sum((x - m) ** 3 for x in xs) / (n - 1)
    if n < 3 or k3 <= 0:
        return None
    tau = (k3 / 2) ** (1 / 3)
    return None if v <= tau ** 2 else (m - tau, math.sqrt(v - tau ** 2), tau)


@pytest.fixture(scope="module")
def cohort(tmp_path_factory, dossier_bin):
    rng = random.Random(77)
    records, sessions, surveys = [], {}, {}

    def add(pid, srv, n_sessions=2, n_obstacles=25, **kw):
        if srv is not None:
            records.append(srv)
            surveys[pid] = srv
        sessions[pid] = synthetic_sessions(pid, rng, n_sessions, n_obstacles, **kw)
        records.extend(sessions[pid])

    for i in range(14):   # controls 18–29: 10 female (their own group), 4 male (fallback to the band)
        add(f"c{i:02d}", survey(f"c{i:02d}", age=18 + i % 12, gender="female" if i < 10 else "male"),
            tau=rng.choice([90, 150, 260]), comm=rng.choice([0, 0, 4]))
    for i in range(5):    # controls 30–44, other: a band with fewer than 10 players
        add(f"d{i}", survey(f"d{i}", age=30 + 3 * i, gender="other"), tau=120)
    add("few", survey("few", age=25, gender="male"), n_sessions=1, n_obstacles=6)  # no fit, no slopes maybe
    for i, age in enumerate([14, 18, 29, 44, 45, 61]):
        add(f"a{i}", survey(f"a{i}", diagnosed=True, medicated=False, age=age, gender="male"), tau=300)
    for i, age in enumerate([12, 30, 33]):
        add(f"m{i}", survey(f"m{i}", diagnosed=True, medicated=True, age=age, gender="female"), tau=200)
    add("inc", survey("inc", complete=False, age=40))
    add("nosurvey", None)
    path = write_jsonl(tmp_path_factory.mktemp("norms") / "cohort.jsonl", records)
    return sessions, surveys, analyze(dossier_bin, path)


def test_fits_maximise_the_documented_censored_likelihood(cohort):
    sessions, _, analysis = cohort
    checked = 0
    for p in analysis["players"]:
        mine = measures(sessions[p["id"]])
        fit, plain = p["measures"].get("exGaussian"), p["measures"].get("exGaussianUncensored")
        rts = mine["hitRTs"]
        if len(rts) < 10 or sd1(rts) == 0:
            assert fit is None and plain is None, p["id"]
            continue
        checked += 1
        assert fit["n"] == len(rts) and fit["censored"] == len(mine["censor"]), p["id"]
        for f, censor in ((fit, mine["censor"]), (plain, [])):
            par = f["params"]
            ll = censored_loglik((par["mu"], par["sigma"], par["tau"]), rts, censor)
            assert close(f["logLikelihood"], ll, rel=1e-8), (p["id"], f["logLikelihood"], ll)
            assert best_nearby((par["mu"], par["sigma"], par["tau"]), rts, censor) <= ll + 1e-6 * abs(ll), p["id"]
            mom = moments(rts)
            if mom:
                assert best_nearby(mom, rts, censor) <= ll + 1e-6 * abs(ll), p["id"]
                assert [close(a, b) for a, b in zip(mom, (f["moments"][k] for k in ("mu", "sigma", "tau")))] \
                    == [True] * 3
            sd = sd1(rts)
            want = {"small-n"} if len(rts) < 50 else set()
            want |= {"sigma-boundary"} if par["sigma"] < 0.05 * sd else set()
            want |= {"tau-boundary"} if par["tau"] < 0.05 * sd else set()
            want |= {"moments-unusable"} if mom is None else set()
            assert set(f["flags"]) - {"not-converged"} == want, (p["id"], f["flags"])
    assert checked >= 20


def test_fit_exgauss_reads_censored_values(dossier_bin, tmp_path):
    rng = random.Random(5)
    raw = [rng.gauss(400, 40) + rng.expovariate(1 / 200) for _ in range(120)]
    rts = [round(x) for x in raw if x < 800]
    censor = [800] * (len(raw) - len(rts))
    text = "\n".join([", ".join(map(str, rts))] + [f">{c}" for c in censor])
    proc = subprocess.run([dossier_bin, "game", "fit-exgauss", "--json"], input=text, capture_output=True,
                          text=True, timeout=60)
    out = json.loads(proc.stdout)
    ll = censored_loglik((out["mu"], out["sigma"], out["tau"]), rts, censor)
    assert out["censored"] == len(censor) and out["n"] == len(rts)
    assert close(out["logLikelihood"], ll, rel=1e-8)
    assert best_nearby(moments(rts), rts, censor) <= ll + 1e-7 * abs(ll)


# MARK: - norms

def value_of(p, measure):
    m = p["measures"]
    if measure in ("mu", "sigma", "tau"):
        fit = m.get("exGaussian")
        return fit["params"][measure] if fit else None
    return m.get(measure)


def wilson(q, n, z=1.959963984540054):   # Φ⁻¹(0.975), docs/game-measures.md
    centre = q + z * z / (2 * n)
    half = z * math.sqrt(q * (1 - q) / n + z * z / (4 * n * n))
    return [min(100, max(0, 100 * (centre + s * half) / (1 + z * z / n))) for s in (-1, 1)]


def expected_norms(analysis, surveys, pid):
    srv = surveys.get(pid)
    if not srv or not srv["complete"]:
        return []
    players = {p["id"]: p for p in analysis["players"]}
    controls = [q for q, s in surveys.items() if s["complete"] and not s["diagnosed"]]
    lo = band_of(min(surveys[q]["age"] for q in controls))[0]
    hi = band_of(max(surveys[q]["age"] for q in controls))[1]
    if not lo <= srv["age"] <= hi:
        return "outside"
    out = {}
    for measure in NORMED:
        x = value_of(players[pid], measure)
        if x is None:   # listed, with nothing to compare
            out[measure] = {"value": None, "z": None, "percentile": None}
            continue
        have = [q for q in controls if value_of(players[q], measure) is not None]
        same_band = [q for q in have if band_of(surveys[q]["age"]) == band_of(srv["age"])]
        levels = [[q for q in same_band if surveys[q]["gender"] == srv["gender"]], same_band, have]
        ref = next((lvl for lvl in levels if len(lvl) >= 10), levels[2])
        vals = [value_of(players[q], measure) for q in ref]
        n = len(vals)
        e = {"referenceN": n, "fallback": ref is not levels[0], "small": n < 30, "value": x}
        sd = sd1(vals)
        if sd:
            e["z"] = (x - mean(vals)) / sd
            e["t"] = 50 + 10 * e["z"]
        if sd:   # the percentile is given exactly when z is (n ≥ 2 and SD > 0)
            e["percentile"] = 100 * (sum(v < x for v in vals) + 0.5 * sum(v == x for v in vals)) / n
            e["percentileLow"], e["percentileHigh"] = wilson(e["percentile"] / 100, n)
        out[measure] = e
    return out


def test_norms_follow_the_reference_group_rules(cohort):
    _, surveys, analysis = cohort
    checked = 0
    for p in analysis["players"]:
        want = expected_norms(analysis, surveys, p["id"])
        if not isinstance(want, dict):   # outside the normed ages or no complete survey: tested below
            continue
        got = {n["measure"]: n for n in p["norms"]}
        assert set(got) == set(want), (p["id"], sorted(set(got) ^ set(want)))
        for measure, e in want.items():
            for k, v in e.items():
                checked += 1
                rel = 1e-9
                assert close(v, got[measure].get(k), rel=rel), (p["id"], measure, k, v, got[measure].get(k))
    assert checked > 500


def test_wilson_interval_uses_the_documented_z(cohort):
    _, surveys, analysis = cohort
    for p in analysis["players"]:
        want = expected_norms(analysis, surveys, p["id"])
        got = {n["measure"]: n for n in p["norms"]}
        for measure, e in (want.items() if isinstance(want, dict) else ()):
            for k in ("percentileLow", "percentileHigh"):
                if k in e:
                    assert close(e[k], got[measure][k], rel=1e-12), (p["id"], measure, k)


def tie_cohort(tmp_path, dossier_bin, controls):
    """`controls` no-diagnosis players with 0 omissions (identical reference values), one ADHD player with 2/3."""
    recs = []
    for i in range(controls):
        recs += [survey(f"c{i}", age=25, gender="male"), session(f"c{i}", 1, 5000, [1000, 2000, 3000],
                                                                 [1300 + i, 2400, 3500])]
    recs += [survey("a", diagnosed=True, medicated=False, age=25, gender="male"),
             session("a", 1, 5000, [1000, 2000, 3000], [1300])]
    analysis = analyze(dossier_bin, write_jsonl(tmp_path / "ties.jsonl", recs))
    return {p["id"]: next(n for n in p["norms"] if n["measure"] == "omissionRate") for p in analysis["players"]}


def test_no_percentile_without_spread(tmp_path, dossier_bin):
    """docs/game-measures.md 'Norms': reference values that are all equal give no z, so no percentile, T or
    interval either (a percentile there would tell the player another person's value)."""
    norms = tie_cohort(tmp_path, dossier_bin, 3)
    for pid in ("a", "c0"):
        assert norms[pid]["referenceN"] == 3 and norms[pid].get("value") is not None
        for k in ("z", "t", "percentile", "percentileLow", "percentileHigh"):
            assert norms[pid].get(k) is None, (pid, k)


def test_no_percentile_against_a_single_reference_player(tmp_path, dossier_bin):
    norms = tie_cohort(tmp_path, dossier_bin, 1)
    assert norms["c0"]["referenceN"] == 1 and norms["a"]["referenceN"] == 1
    for pid in ("a", "c0"):
        for k in ("z", "t", "percentile", "percentileLow", "percentileHigh"):
            assert norms[pid].get(k) is None, (pid, k)


def test_ages_outside_the_normed_range_are_not_normed(cohort):
    """Controls are 18–44: the ADHD players of 14, 45 and 61 and the medicated 12-year-old are outside."""
    _, surveys, analysis = cohort
    outside = sorted(p["id"] for p in analysis["players"] if expected_norms(analysis, surveys, p["id"]) == "outside")
    assert outside == ["a0", "a4", "a5", "m0"]
    for pid in outside:
        norms = next(p for p in analysis["players"] if p["id"] == pid)["norms"]
        assert norms and all(n["outsideNormedAges"] for n in norms), pid
        assert all(n.get("z") is None and n.get("percentile") is None for n in norms), pid


def test_incomplete_or_missing_survey_gets_no_norms_and_group_unknown(cohort):
    _, _, analysis = cohort
    for pid in ("inc", "nosurvey"):
        p = next(p for p in analysis["players"] if p["id"] == pid)
        assert p["group"] == "unknown" and p["norms"] == [], pid


# MARK: - group comparisons and the sample-size refusal

def group_of(srv):
    if not srv or not srv["complete"]:
        return "unknown"
    if not srv["diagnosed"]:
        return "control"
    return "adhd-medicated" if srv["medicated"] else "adhd"


def hedges(xa, xb, z):
    na, nb = len(xa), len(xb)
    sa, sb = sd1(xa), sd1(xb)
    sp = math.sqrt(((na - 1) * sa ** 2 + (nb - 1) * sb ** 2) / (na + nb - 2))
    g = (1 - 3 / (4 * (na + nb) - 9)) * (mean(xa) - mean(xb)) / sp
    half = z * math.sqrt((na + nb) / (na * nb) + g * g / (2 * (na + nb)))
    return {("a", "n"): na, ("a", "mean"): mean(xa), ("a", "sd"): sa, ("b", "n"): nb, ("b", "mean"): mean(xb),
            ("b", "sd"): sb, ("g",): g, ("gLow",): g - half, ("gHigh",): g + half}


def comparison_problems(surveys, analysis, z, tol):
    got = {(c["groupA"], c["groupB"], c["measure"]): c for c in analysis["comparisons"]}
    bad = []
    for ga, gb in COMPARISONS:
        for measure in NORMED:
            xa, xb = ([value_of(p, measure) for p in analysis["players"] if group_of(surveys.get(p["id"])) == g
                       and value_of(p, measure) is not None] for g in (ga, gb))
            c = got[(ga, gb, measure)]
            for k, want in hedges(xa, xb, z).items():
                have = c[k[0]][k[1]] if len(k) == 2 else c[k[0]]
                if not close(have, want, rel=1e-9, abs_=tol if k[0] in ("gLow", "gHigh") else 1e-9):
                    bad.append((ga, gb, measure, k, want, have))
    return bad


def test_group_comparisons_hedges_g(cohort):
    _, surveys, analysis = cohort
    assert comparison_problems(surveys, analysis, 1.959963984540054, tol=1e-12) == []


def test_sample_size_refusal_numbers(cohort):
    sessions, surveys, analysis = cohort
    n_pos = n_neg = 0
    for pid, recs in sessions.items():
        g = group_of(surveys.get(pid))
        if g in ("control", "adhd") and measures(recs)["encounters"] >= 30:
            n_pos += g == "adhd"
            n_neg += g == "control"
    s = max(1, min(n_pos, n_neg))
    need = max(20, math.ceil(10 * 8))
    total = math.ceil(len(analysis["players"]) * need / s)
    msg = analysis["modelUnavailable"]
    assert f"{n_pos} with and {n_neg} without a diagnosis" in msg
    assert f"it has {min(n_pos, n_neg)} ({min(n_pos, n_neg) / 8:.1f} per predictor)" in msg
    assert f"takes about {total} players in all (it has {len(analysis['players'])})" in msg
    assert all("probability" not in p["likelihood"] for p in analysis["players"])
