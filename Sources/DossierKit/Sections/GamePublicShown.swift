// Compiled only with the game domain.
#if DOMAIN_GAME
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import GameAnalytics
import Privacy

// MARK: - How released numbers are shown (post-processing only; docs/game-privacy.md)

extension GamePublicRelease {
    /// Noise scales below a group's noisy complete-case count that its size bound lies:
    /// a group of 16 passes ``minimumGroup`` with probability q^⌈4 + k/ε⌉/(1 + q) (1.2 % at
    /// the default ε; below e^(−k)/(1 + q) < 2.5 % at any ε).
    static let sizeBoundScales = 3

    /// ε of one query of the comparisons part (a count, a sum or a spread).
    var comparisonQueryEpsilon: Rational { epsilon("comparisons") / Rational(UInt128(Self.comparisonQueries)) }

    /// A conservative bound on a group's size: its noisy complete-case count less
    /// ⌈``sizeBoundScales``/ε_q⌉ (that many noise scales); nil when the group has no stats.
    func sizeBound(_ g: Group) -> Int? {
        guard let n = stats[g]?.first?.n else { return nil }
        let e = comparisonQueryEpsilon
        return n - Int((UInt128(Self.sizeBoundScales) * e.den + e.num - 1) / e.num)
    }

    /// A group's statistics and τ quartiles are shown only when its size bound reaches
    /// ``minimumGroup`` (a decision on released numbers only).
    func shown(_ g: Group) -> Bool { (sizeBound(g) ?? 0) >= Self.minimumGroup }

    /// One table row as shown: noisy cells made non-negative and rescaled to add up to the
    /// row's total max(0, Σ raw) (largest remainder; ties to the first column), so a row
    /// never shows people below 0 and always adds up. Post-processing: costs no ε.
    static func shownRow(_ raw: [Int]) -> (cells: [Int], total: Int) {
        let total = max(0, raw.reduce(0, +))
        let clamped = raw.map { max(0, $0) }, sum = clamped.reduce(0, +)
        guard sum > 0 else { return (clamped, 0) }
        var cells = clamped.map { $0 * total / sum }
        let order = clamped.indices.sorted { (clamped[$0] * total % sum, $1) > (clamped[$1] * total % sum, $0) }
        for i in order.prefix(total - cells.reduce(0, +)) { cells[i] += 1 }
        return (cells, total)
    }

    /// Hedges' g of two shown groups with a 95 % interval that includes the noise: the
    /// sampling variance of ``hedges(_:_:)`` plus, by the delta method, the variance the
    /// noise adds through both means and the pooled variance (docs/game-privacy.md).
    func hedgesWithNoise(_ a: Stat, _ b: Stat, measure i: Int) -> (g: Double, low: Double, high: Double)? {
        guard let h = Self.hedges(a, b), let ma = a.mean, let mb = b.mean, let sa = a.sd, let sb = b.sd else {
            return nil
        }
        let e = comparisonQueryEpsilon.double, m = Self.ranges[i], unit = (m.upper - m.lower) / Double(Self.steps)
        func variance(_ sensitivity: Int) -> Double {
            let sd = Mechanisms.laplaceSD(scale: Double(sensitivity) / e)
            return sd * sd
        }
        let vn = variance(1), vs = variance(Self.steps), vv = variance(Self.deviationClamp * Self.deviationClamp)
        // A mean's noise, in measure units: (Var S + m_k² Var n)/n² · unit², m_k = its grid value.
        func meanNoise(_ n: Int, _ mean: Double) -> Double {
            let k = (mean - m.lower) / unit
            return (vs + k * k * vn) / Double(n * n) * unit * unit
        }
        let n1 = Double(a.n), n2 = Double(b.n)
        let sp2 = ((n1 - 1) * sa * sa + (n2 - 1) * sb * sb) / (n1 + n2 - 2)
        let j = 1 - 3 / (4 * (n1 + n2) - 9)
        let sp2Noise = 2 * vv * pow(unit, 4) / ((n1 + n2 - 2) * (n1 + n2 - 2))
        let noise = j * j * (meanNoise(a.n, ma) + meanNoise(b.n, mb)) / sp2 + h.g * h.g * sp2Noise / (4 * sp2 * sp2)
        let sampling = (n1 + n2) / (n1 * n2) + h.g * h.g / (2 * (n1 + n2))
        let se = (sampling + noise).squareRoot()
        return (h.g, h.g - 1.959963984540054 * se, h.g + 1.959963984540054 * se)
    }

    /// An interval's conclusion: +1 above 0, −1 below 0, 0 when it holds 0 (not significant).
    static func conclusion(low: Double, high: Double) -> Int { low > 0 ? 1 : high < 0 ? -1 : 0 }
}
#endif
