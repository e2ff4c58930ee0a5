#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Ex-Gaussian distribution (docs/game-measures.md, "Ex-Gaussian")

/// μ and σ of the normal component and τ (mean) of the exponential component, in ms.
public struct ExGaussianParams: Sendable, Hashable, Codable {
    public var mu: Double
    public var sigma: Double
    public var tau: Double
    public init(mu: Double, sigma: Double, tau: Double) { self.mu = mu; self.sigma = sigma; self.tau = tau }
}

/// A fitted ex-Gaussian and how trustworthy it is.
public struct ExGaussianFit: Sendable, Hashable, Codable {
    /// The maximum-likelihood estimate.
    public var params: ExGaussianParams
    /// The method-of-moments estimate the search started from (nil when the moments were
    /// unusable: skewness ≤ 0 or τ² ≥ variance).
    public var moments: ExGaussianParams?
    public var logLikelihood: Double
    public var n: Int
    public var iterations: Int
    public var converged: Bool
    /// `small-n` (n < 50), `sigma-boundary` (σ < 5 % of the SD: the normal part collapsed),
    /// `tau-boundary` (τ < 5 % of the SD: no exponential tail is visible), `moments-unusable`,
    /// `not-converged`.
    public var flags: [String]
    /// How many values were right-censored (omissions: no response within their window);
    /// 0 for a fit of complete data.
    public var censored: Int = 0
}

public enum ExGaussian {
    /// Fewer values than this: no fit at all.
    public static let minimumN = 10
    /// Fewer values than this: fit flagged `small-n`.
    public static let smallN = 50

    /// log f(x; μ, σ, τ) = −log τ + (μ − x)/τ + σ²/(2τ²) + log Φ((x − μ)/σ − σ/τ),
    /// with log Φ computed through log erfc so it never underflows.
    public static func logPDF(_ x: Double, _ p: ExGaussianParams) -> Double {
        let z = (x - p.mu) / p.sigma - p.sigma / p.tau
        return -log(p.tau) + (p.mu - x) / p.tau + p.sigma * p.sigma / (2 * p.tau * p.tau) + Special.logNormalCDF(z)
    }

    public static func pdf(_ x: Double, _ p: ExGaussianParams) -> Double { exp(logPDF(x, p)) }

    public static func logLikelihood(_ xs: [Double], _ p: ExGaussianParams) -> Double {
        xs.reduce(0) { $0 + logPDF($1, p) }
    }

    /// log S(c) = log P(X > c) = log[Φ(−z) + exp(−(c − μ)/τ + σ²/(2τ²)) · Φ(z − σ/τ)],
    /// z = (c − μ)/σ, summed in log space (scipy: `exponnorm.logsf(c, τ/σ, loc=μ, scale=σ)`).
    public static func logSurvival(_ c: Double, _ p: ExGaussianParams) -> Double {
        let z = (c - p.mu) / p.sigma
        let a = Special.logNormalCDF(-z)
        let b =
            -(c - p.mu) / p.tau + p.sigma * p.sigma / (2 * p.tau * p.tau) + Special.logNormalCDF(z - p.sigma / p.tau)
        let m = max(a, b)
        return m == -.infinity ? m : m + log(exp(a - m) + exp(b - m))
    }

    /// The right-censored log-likelihood: Σ log f(xᵢ) over observed values plus
    /// Σ log S(cⱼ) over censoring points (an omission at window length cⱼ means "slower than cⱼ").
    public static func logLikelihood(_ xs: [Double], censoredAt cs: [Double], _ p: ExGaussianParams) -> Double {
        logLikelihood(xs, p) + cs.reduce(0) { $0 + logSurvival($1, p) }
    }

    /// Method of moments (Heathcote 1996; R `retimes::mexgauss`) with n − 1 denominators:
    /// m = mean, v = Σ(x−m)²/(n−1), k₃ = Σ(x−m)³/(n−1), τ = (k₃/2)^(1/3), μ = m − τ,
    /// σ = √(v − τ²). Nil when n < 3, k₃ ≤ 0 or v ≤ τ².
    public static func moments(_ xs: [Double]) -> ExGaussianParams? {
        guard xs.count >= 3 else { return nil }
        let n = Double(xs.count)
        let m = xs.reduce(0, +) / n
        var v = 0.0, k3 = 0.0
        for x in xs { let d = x - m; v += d * d; k3 += d * d * d }
        v /= n - 1
        k3 /= n - 1
        guard k3 > 0 else { return nil }
        let tau = cbrt(k3 / 2)
        guard v > tau * tau else { return nil }
        return ExGaussianParams(mu: m - tau, sigma: (v - tau * tau).squareRoot(), tau: tau)
    }

    /// Maximum likelihood: Nelder–Mead on the negative log-likelihood over (μ, log σ, log τ),
    /// started from the method of moments (or, when unusable, τ = 0.8·SD, σ = 0.6·SD,
    /// μ = mean − τ), then restarted once from the best point. Nil for n < 10 or no spread.
    public static func fit(_ xs: [Double]) -> ExGaussianFit? { fit(xs, censoredAt: []) }

    /// Maximum likelihood with right-censored values `cs` (each contributes log S(c));
    /// same search and flags as the complete-data fit, started from the complete-data
    /// moments. With `cs` empty this is exactly ``fit(_:)``.
    public static func fit(_ xs: [Double], censoredAt cs: [Double]) -> ExGaussianFit? {
        guard xs.count >= minimumN, let m = Describe.mean(xs), let sd = Describe.sd(xs), sd > 0 else { return nil }
        var flags: [String] = []
        let mom = moments(xs)
        let start = mom ?? ExGaussianParams(mu: m - 0.8 * sd, sigma: 0.6 * sd, tau: 0.8 * sd)
        if mom == nil { flags.append("moments-unusable") }
        // Keep the start off the boundary so the simplex can move.
        let s0 = max(start.sigma, 0.05 * sd), t0 = max(start.tau, 0.05 * sd)
        func nll(_ v: [Double]) -> Double {
            -logLikelihoodFast(xs, censoredAt: cs, ExGaussianParams(mu: v[0], sigma: exp(v[1]), tau: exp(v[2])))
        }
        let nm = NelderMead()
        let steps = [0.1 * sd, 0.3, 0.3]
        var r = nm.minimize(nll, start: [start.mu, log(s0), log(t0)], steps: steps)
        let r2 = nm.minimize(nll, start: r.x, steps: steps)
        let iterations = r.iterations + r2.iterations
        if r2.value <= r.value { r = r2 }
        let p = ExGaussianParams(mu: r.x[0], sigma: exp(r.x[1]), tau: exp(r.x[2]))
        if !r.converged { flags.append("not-converged") }
        if xs.count < smallN { flags.append("small-n") }
        if p.sigma < 0.05 * sd { flags.append("sigma-boundary") }
        if p.tau < 0.05 * sd { flags.append("tau-boundary") }
        return ExGaussianFit(params: p, moments: mom, logLikelihood: -r.value, n: xs.count,
                             iterations: iterations, converged: r.converged, flags: flags.sorted(), censored: cs.count)
    }
}
