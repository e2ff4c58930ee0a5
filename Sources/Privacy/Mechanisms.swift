#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Clamped statistics and their noisy releases (docs/game-privacy.md, "Mechanisms")

/// Statistics whose sensitivity to adding or removing one person is bounded by
/// construction, and their releases with discrete Laplace noise of scale
/// sensitivity / ε (ε-differentially private, add/remove-one neighbours).
public enum Mechanisms {
    // MARK: Exact statistics (what the noise is added to)

    /// A value clamped to [lower, upper] and mapped to the integer grid 0…steps.
    public static func grid(_ x: Double, lower: Double, upper: Double, steps: Int) -> Int {
        precondition(upper > lower && steps > 0)
        let c = min(max(x.isFinite ? x : lower, lower), upper)
        return min(steps, max(0, Int(((c - lower) / (upper - lower) * Double(steps)).rounded())))
    }

    /// Σ grid(x): one person changes it by at most `steps`.
    public static func gridSum(_ xs: [Double], lower: Double, upper: Double, steps: Int) -> Int {
        xs.reduce(0) { $0 + grid($1, lower: lower, upper: upper, steps: steps) }
    }

    /// Σ grid(x)²: one person changes it by at most `steps`².
    public static func gridSquareSum(_ xs: [Double], lower: Double, upper: Double, steps: Int) -> Int {
        xs.reduce(0) { let k = grid($1, lower: lower, upper: upper, steps: steps); return $0 + k * k }
    }

    /// Counts of `xs` in `bins` equal bins over [lower, upper] (values outside are
    /// clamped into the end bins): one person changes one count by one.
    public static func histogram(_ xs: [Double], lower: Double, upper: Double, bins: Int) -> [Int] {
        var h = [Int](repeating: 0, count: bins)
        for x in xs {
            let c = min(max(x.isFinite ? x : lower, lower), upper)
            h[min(bins - 1, max(0, Int(((c - lower) / (upper - lower) * Double(bins)).rounded(.down))))] += 1
        }
        return h
    }

    // MARK: Noisy releases

    /// `value` + discrete Laplace noise of scale `sensitivity` / ε.
    public static func laplace(_ value: Int, sensitivity: Int, epsilon: Rational, _ rng: inout KeyedRandom) -> Int {
        value + Samplers.discreteLaplace(scale: Rational(UInt128(sensitivity)) / epsilon, &rng)
    }

    /// Each count + discrete Laplace(1/ε): ε-DP when each person is in at most one cell.
    public static func noisyHistogram(_ counts: [Int], epsilon: Rational, _ rng: inout KeyedRandom) -> [Int] {
        counts.map { laplace($0, sensitivity: 1, epsilon: epsilon, &rng) }
    }

    /// The standard deviation of discrete Laplace noise of scale b:
    /// √(2·e^{−1/b}) / (1 − e^{−1/b}).
    public static func laplaceSD(scale b: Double) -> Double {
        let q = exp(-1 / b)
        return (2 * q).squareRoot() / (1 - q)
    }

    // MARK: Post-processing (no further privacy cost)

    /// Quantiles read from a noisy histogram: negative counts are taken as 0, and
    /// quantile p is found by linear interpolation inside the bin where the cumulative
    /// count first reaches p × total. Nil when the total is not positive.
    public static func quantiles(_ noisy: [Int], lower: Double, upper: Double, _ ps: [Double]) -> [Double]? {
        let h = noisy.map { Double(max(0, $0)) }
        let total = h.reduce(0, +)
        guard total > 0 else { return nil }
        let width = (upper - lower) / Double(h.count)
        return ps.map { p in
            let target = p * total
            var cum = 0.0
            for (i, c) in h.enumerated() where c > 0 {
                if cum + c >= target { return lower + width * (Double(i) + (target - cum) / c) }
                cum += c
            }
            return upper
        }
    }
}
