#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - The censored log-likelihood, fast (the fit's inner loop)

extension ExGaussian {
    /// Exactly ``logLikelihood(_:censoredAt:_:)`` — every term the same operations on the
    /// same values, added in the same order, so the same bits — but faster, as the
    /// Nelder–Mead search calls it hundreds of times per player:
    /// - the terms that depend only on the parameters (log τ, σ²/(2τ²), σ/τ) are computed
    ///   once instead of once per value;
    /// - the 120-step continued fraction of erfcx (``Special/erfcx(_:)``, for the values far
    ///   in the left tail) runs for eight values side by side (`SIMD8`: each lane is the
    ///   same IEEE division and addition as the scalar loop), instead of one chain of 120
    ///   dependent divisions at a time;
    /// - log S(c) is computed once per distinct censoring point (most are the same few
    ///   window lengths).
    /// Its straightforward twin is ``logLikelihood(_:censoredAt:_:)``, checked bit for bit in
    /// GameAnalyticsTests/ExGaussianFastPathTests.
    static func logLikelihoodFast(_ xs: [Double], censoredAt cs: [Double], _ p: ExGaussianParams) -> Double {
        let minusLogTau = -log(p.tau)
        let half = p.sigma * p.sigma / (2 * p.tau * p.tau)
        let sigmaOverTau = p.sigma / p.tau
        // u = −z/√2 of each value's log Φ(z); the ones at or above 3 (and at most 1e8) need
        // the continued fraction.
        var us = [Double](repeating: 0, count: xs.count)
        var tail: [Int] = []
        for (i, x) in xs.enumerated() {
            let z = (x - p.mu) / p.sigma - sigmaOverTau
            let u = -z / 2.0.squareRoot()
            us[i] = u
            if u >= 3 && !(u > 1e8) { tail.append(i) }
        }
        var scaled = [Double](repeating: 0, count: xs.count)     // erfcx(u) of the tail values
        erfcxContinuedFractions(of: tail.map { us[$0] }) { k, value in scaled[tail[k]] = value }
        var observed = 0.0
        for (i, x) in xs.enumerated() {
            let u = us[i]
            let logErfc: Double
            if u.isNaN {
                logErfc = .nan
            } else if u < 3 {
                logErfc = log(erfc(u))
            } else {
                logErfc = log(u > 1e8 ? 1 / (u * Double.pi.squareRoot()) : scaled[i]) - u * u
            }
            observed = observed + (minusLogTau + (p.mu - x) / p.tau + half + (log(0.5) + logErfc))
        }
        // The censoring points are mostly a few window lengths: each distinct value's log S
        // is computed once and added as often as it occurs, in the same order.
        var survival: [UInt64: Double] = [:]
        var censored = 0.0
        for c in cs {
            let s: Double
            if let known = survival[c.bitPattern] {
                s = known
            } else {
                s = logSurvival(c, p)
                survival[c.bitPattern] = s
            }
            censored = censored + s
        }
        return observed + censored
    }

    /// erfcx(u) = 1/(√π·t) with t from Laplace's continued fraction evaluated bottom-up
    /// over 120 terms (as ``Special/erfcx(_:)`` does for 3 ≤ u ≤ 1e8), eight values at a time.
    static func erfcxContinuedFractions(of us: [Double], _ give: (Int, Double) -> Void) {
        var start = 0
        while start < us.count {
            let n = min(8, us.count - start)
            var x = SIMD8<Double>(repeating: 3)                   // spare lanes: any value ≥ 3
            for j in 0..<n { x[j] = us[start + j] }
            var t = x
            for k in stride(from: 120, through: 1, by: -1) {
                t = x + SIMD8(repeating: Double(k) / 2) / t
            }
            let value = 1 / (Double.pi.squareRoot() * t)
            for j in 0..<n { give(start + j, value[j]) }
            start += n
        }
    }
}
