#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Nelder–Mead simplex minimiser

/// Minimises `f` from `start` with the standard Nelder–Mead coefficients (reflection 1,
/// expansion 2, contraction ½, shrink ½). The initial simplex adds `steps[i]` to
/// coordinate i. Stops when the spread of function values across the simplex is below
/// `fTolerance` and every vertex is within `xTolerance` of the best one (per coordinate),
/// or after `maxIterations`. Non-finite values count as +∞.
public struct NelderMead: Sendable {
    public var fTolerance = 1e-10
    public var xTolerance = 1e-8
    public var maxIterations = 5000

    public init() {}

    public struct Result: Sendable {
        public var x: [Double]
        public var value: Double
        public var iterations: Int
        public var converged: Bool
    }

    public func minimize(_ f: ([Double]) -> Double, start: [Double], steps: [Double]) -> Result {
        let n = start.count
        func g(_ x: [Double]) -> Double { let v = f(x); return v.isFinite ? v : .infinity }
        var simplex: [[Double]] = [start]
        for i in 0..<n { var p = start; p[i] += steps[i]; simplex.append(p) }
        var values = simplex.map(g)
        var it = 0
        var converged = false
        while it < maxIterations {
            it += 1
            let order = values.indices.sorted { values[$0] < values[$1] }
            simplex = order.map { simplex[$0] }
            values = order.map { values[$0] }
            let spread = abs(values[n] - values[0])
            let size = simplex.dropFirst().map { p in zip(p, simplex[0]).map { abs($0 - $1) }.max() ?? 0 }.max() ?? 0
            if spread <= fTolerance * (abs(values[0]) + fTolerance)
                && size <= xTolerance * (1 + (simplex[0].map(abs).max() ?? 0))
            {
                converged = true
                break
            }
            var centroid = [Double](repeating: 0, count: n)
            for p in simplex.dropLast() { for i in 0..<n { centroid[i] += p[i] / Double(n) } }
            func along(_ t: Double) -> [Double] { (0..<n).map { centroid[$0] + t * (simplex[n][$0] - centroid[$0]) } }
            let xr = along(-1), fr = g(xr)
            if fr < values[0] {
                let xe = along(-2), fe = g(xe)
                if fe < fr { simplex[n] = xe; values[n] = fe } else { simplex[n] = xr; values[n] = fr }
            } else if fr < values[n - 1] {
                simplex[n] = xr; values[n] = fr
            } else {
                let outside = fr < values[n]
                let xc = along(outside ? -0.5 : 0.5), fc = g(xc)
                if fc < (outside ? fr : values[n]) {
                    simplex[n] = xc; values[n] = fc
                } else {
                    for j in 1...n {
                        simplex[j] = (0..<n).map { simplex[0][$0] + 0.5 * (simplex[j][$0] - simplex[0][$0]) }
                        values[j] = g(simplex[j])
                    }
                }
            }
        }
        let best = values.indices.min { values[$0] < values[$1] }!
        return Result(x: simplex[best], value: values[best], iterations: it, converged: converged)
    }
}
