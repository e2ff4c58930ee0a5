// The fit's fast censored log-likelihood (`ExGaussian.logLikelihoodFast`: constants per
// parameter set, the erfcx continued fractions eight at a time) against its
// straightforward twin `ExGaussian.logLikelihood(_:censoredAt:_:)`, bit for bit.
import Foundation
import Testing
import SplitMix64
@testable import GameAnalytics

struct ExGaussianFastPathTests {
    static func uniform(_ rng: inout SplitMix64, _ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * Double(rng.next() >> 11) / Double(1 << 53)
    }

    /// Random samples and parameters, chosen so that every branch of log Φ is taken: values
    /// near μ (erfc), far below it (the continued fraction, u ≥ 3), beyond u = 1e8 (the
    /// asymptote), exactly at u = 3 and NaN; sample sizes around the eight-lane batches.
    @Test func theFastLikelihoodIsTheStraightforwardOneBitForBit() {
        var rng = SplitMix64(seed: 45)
        var tailValues = 0, asymptote = 0
        for round in 0..<3000 {
            let p = ExGaussianParams(mu: Self.uniform(&rng, 100, 900), sigma: exp(Self.uniform(&rng, -3, 6)),
                                     tau: exp(Self.uniform(&rng, -3, 7)))
            let n = Int(rng.next() % 40)
            var xs = (0..<n).map { _ in Self.uniform(&rng, -2000, 3000) }
            if round % 7 == 0, n > 0 {
                // u = −z/√2 exactly 3, and one far enough out that u > 1e8.
                xs[0] = p.mu + p.sigma * (-3 * 2.0.squareRoot() - (-p.sigma / p.tau))
                xs[n - 1] = p.mu - 1e9 * p.sigma
            }
            if round % 50 == 0, n > 1 { xs[1] = .nan }
            // Censoring points: a few window lengths repeated, now and then one of its own.
            let windows = [1500, 2000, Self.uniform(&rng, 0, 3000)]
            let cs = (0..<Int(rng.next() % 12)).map { _ in
                rng.next() % 5 == 0 ? Self.uniform(&rng, 0, 3000) : windows[Int(rng.next() % 3)]
            }
            let fast = ExGaussian.logLikelihoodFast(xs, censoredAt: cs, p)
            let plain = ExGaussian.logLikelihood(xs, censoredAt: cs, p)
            let same = fast.bitPattern == plain.bitPattern || (fast.isNaN && plain.isNaN)
            #expect(same, "round \(round): \(fast) \(plain)")
            for x in xs {
                let u = -((x - p.mu) / p.sigma - p.sigma / p.tau) / 2.0.squareRoot()
                if u >= 3 && u <= 1e8 { tailValues += 1 } else if u > 1e8 { asymptote += 1 }
            }
        }
        #expect(tailValues > 5000 && asymptote > 100)
    }

    /// The eight-lane continued fraction gives each value what the scalar one gives.
    @Test func theContinuedFractionsEightAtATimeAreTheScalarOnes() {
        var rng = SplitMix64(seed: 8)
        for n in 0..<20 {
            let us = (0..<n).map { _ in exp(Self.uniform(&rng, log(3), log(1e8))) } + (n == 5 ? [3] : [])
            var got = [Double](repeating: .nan, count: us.count)
            ExGaussian.erfcxContinuedFractions(of: us) { k, v in got[k] = v }
            #expect(got.map(\.bitPattern) == us.map { Special.erfcx($0).bitPattern })
        }
    }

    /// A whole fit of simulated reaction times with omissions (the search through the fast
    /// path) ends where a search through the straightforward likelihood ends.
    @Test func aFitEndsWhereTheStraightforwardSearchEnds() throws {
        var rng = SplitMix64(seed: 3)
        let xs = (0..<120).map { _ in
            400 + 40 * Self.uniform(&rng, -1.7, 1.7) - 120 * log(Self.uniform(&rng, 1e-9, 1))
        }
        let cs = [Double](repeating: 1500, count: 6)
        let fit = try #require(ExGaussian.fit(xs, censoredAt: cs))
        let sd = try #require(Describe.sd(xs))
        let mean = try #require(Describe.mean(xs))
        // The fit's start: the method of moments, or its fallback when they are unusable.
        let mom = ExGaussian.moments(xs) ?? ExGaussianParams(mu: mean - 0.8 * sd, sigma: 0.6 * sd, tau: 0.8 * sd)
        func nll(_ v: [Double]) -> Double {
            -ExGaussian.logLikelihood(xs, censoredAt: cs, ExGaussianParams(mu: v[0], sigma: exp(v[1]), tau: exp(v[2])))
        }
        let steps = [0.1 * sd, 0.3, 0.3]
        let start = [mom.mu, log(max(mom.sigma, 0.05 * sd)), log(max(mom.tau, 0.05 * sd))]
        var r = NelderMead().minimize(nll, start: start, steps: steps)
        let r2 = NelderMead().minimize(nll, start: r.x, steps: steps)
        if r2.value <= r.value { r = r2 }
        #expect(fit.logLikelihood.bitPattern == (-r.value).bitPattern)
        #expect(fit.params.mu.bitPattern == r.x[0].bitPattern && fit.params.tau.bitPattern == exp(r.x[2]).bitPattern)
    }
}
