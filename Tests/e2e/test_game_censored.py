"""The censored ex-Gaussian fit (omissions beyond the 1,000 ms window contribute the
survival function) against scipy maximising the same likelihood, and how far τ moves."""
import json

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")
optimize = pytest.importorskip("scipy.optimize")
special = pytest.importorskip("scipy.special")


def ex_gauss_logpdf(x, mu, sigma, tau):
    """log f(x) of the ex-Gaussian in closed form (scipy's `exponnorm.logpdf` costs ~0.2 s a
    call here; the optimiser makes hundreds): checked against it in the test."""
    return -np.log(tau) + exp_tail_exponent(x, mu, sigma, tau) + special.log_ndtr((x - mu) / sigma - sigma / tau)


def exp_tail_exponent(x, mu, sigma, tau):
    """−(x−μ)/τ + σ²/2τ², shared by the density and the survival function."""
    return -(x - mu) / tau + sigma * sigma / (2 * tau * tau)


def ex_gauss_logsf(x, mu, sigma, tau):
    """log(1 − F(x)): log(Φ(−z) + exp(−(x−μ)/τ + σ²/2τ² + log Φ(z − σ/τ))), z = (x−μ)/σ."""
    z = (x - mu) / sigma
    tail = exp_tail_exponent(x, mu, sigma, tau) + special.log_ndtr(z - sigma / tau)
    return np.logaddexp(special.log_ndtr(-z), tail)


def censored_nll(v, x, c):
    mu, sigma, tau = v[0], np.exp(v[1]), np.exp(v[2])
    return -(np.sum(ex_gauss_logpdf(x, mu, sigma, tau)) + np.sum(ex_gauss_logsf(c, mu, sigma, tau)))


def scipy_censored_nll(v, x, c):
    mu, sigma, tau = v[0], np.exp(v[1]), np.exp(v[2])
    K = tau / sigma
    return -(np.sum(stats.exponnorm.logpdf(x, K, mu, sigma)) + np.sum(stats.exponnorm.logsf(c, K, mu, sigma)))


@pytest.mark.parametrize("mu,sigma,tau,seed", [(420.0, 50.0, 223.0, 1)])
def test_censored_fit_matches_scipy_and_recovers_tau(run_dossier, mu, sigma, tau, seed):
    rng = np.random.default_rng(seed)
    rt = rng.normal(mu, sigma, 1500) + rng.exponential(tau, 1500)
    window = 1000.0
    x, c = rt[rt < window], np.full(int(np.sum(rt >= window)), window)
    assert len(c) > 25
    text = "\n".join([repr(float(v)) for v in x] + [f">{window}" for _ in c])
    out = json.loads(run_dossier("game", "fit-exgauss", "--json", input=text).stdout)
    naive = json.loads(run_dossier("game", "fit-exgauss", "--json", input="\n".join(repr(float(v)) for v in x)).stdout)
    assert out["censored"] == len(c) and naive["censored"] == 0
    # scipy maximises the same likelihood from both starts (the complete-data fit and ours).
    start = [naive["mu"], np.log(naive["sigma"]), np.log(naive["tau"])]
    ours = [out["mu"], np.log(out["sigma"]), np.log(out["tau"])]
    refs = [optimize.minimize(censored_nll, v, args=(x, c), method="Nelder-Mead",
                              options={"xatol": 1e-6, "fatol": 1e-8, "maxiter": 3000})
            for v in (start, ours)]
    ref = min(refs, key=lambda r: r.fun)
    # the closed form is scipy's own distribution at the start, at ours and at the optimum
    for v in (start, ours, ref.x):
        assert abs(censored_nll(v, x, c) - scipy_censored_nll(v, x, c)) < 1e-9 * abs(censored_nll(v, x, c))
    # The same likelihood: ours is reported exactly and is at least as high as scipy's optimum.
    assert abs(-censored_nll(ours, x, c) - out["logLikelihood"]) < 1e-6 * abs(out["logLikelihood"])
    assert -censored_nll(ours, x, c) >= -ref.fun - 1e-6 * abs(ref.fun)
    assert abs(out["tau"] - np.exp(ref.x[2])) <= 0.02 * np.exp(ref.x[2])
    # Ignoring the cut-off biases τ low; the censored fit is close to the truth.
    assert naive["tau"] < 0.85 * tau
    assert abs(out["tau"] - tau) < 0.12 * tau
