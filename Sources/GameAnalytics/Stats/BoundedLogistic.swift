#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Logistic regression on bounded features (docs/game-privacy.md, "The public model")

/// The fit behind the public site's differentially private model: features mapped to
/// [−1, 1] by fixed ranges (never fitted to the data), rows scaled to ‖x‖₂ ≤ 1, and the
/// sum-form objective J(w) = Σᵢ log(1 + exp(−yᵢ w·xᵢ)) + (Λ/2)‖w‖², y ∈ {−1, +1}, with
/// the intercept penalised like every other coefficient. J is Λ-strongly convex and each
/// loss term is 1-Lipschitz in w, so adding or removing one row moves the minimiser by at
/// most 1/Λ in L2 (Chaudhuri, Monteleoni & Sarwate 2011).
public enum BoundedLogistic {
    /// x = (1, z₁…z_d)/√(d+1), zⱼ = 2·(clamp(vⱼ, Lⱼ, Uⱼ) − Lⱼ)/(Uⱼ − Lⱼ) − 1 (a non-finite
    /// value counts as Lⱼ): every coordinate in [−1, 1]/√(d+1), so ‖x‖₂ ≤ 1.
    public static func row(_ values: [Double], ranges: [(lower: Double, upper: Double)]) -> [Double] {
        precondition(values.count == ranges.count)
        let s = Double(values.count + 1).squareRoot()
        return [1 / s] + zip(values, ranges).map { v, r in
            let c = min(max(v.isFinite ? v : r.lower, r.lower), r.upper)
            return (2 * (c - r.lower) / (r.upper - r.lower) - 1) / s
        }
    }

    static func dot(_ a: [Double], _ b: [Double]) -> Double { zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } }

    /// log(1 + exp(−m)), stably.
    static func loss(_ m: Double) -> Double { m > 0 ? log1p(exp(-m)) : -m + log1p(exp(m)) }

    /// J(w) as above.
    public static func objective(_ w: [Double], rows: [[Double]], labels: [Bool], lambda: Double) -> Double {
        zip(rows, labels).reduce(0) { $0 + loss(($1.1 ? 1 : -1) * dot(w, $1.0)) } + lambda / 2 * dot(w, w)
    }

    /// ∇J(w) = Σᵢ −yᵢ·σ(−yᵢ w·xᵢ)·xᵢ + Λw.
    public static func gradient(_ w: [Double], rows: [[Double]], labels: [Bool], lambda: Double) -> [Double] {
        var g = w.map { lambda * $0 }
        for (x, label) in zip(rows, labels) {
            let y = label ? 1.0 : -1.0
            let c = -y * Special.expit(-y * dot(w, x))
            for j in g.indices { g[j] += c * x[j] }
        }
        return g
    }

    /// The minimiser of J to ‖∇J‖₂ ≤ `tolerance`: Newton's method from w = 0 with the
    /// Hessian Σ σ(1−σ)xxᵀ + ΛI (solved by Gaussian elimination with partial pivoting),
    /// halving the step while J would rise by more than 1e-12·|J|. Nil when the tolerance is not reached in
    /// `maxIterations` steps (J is strongly convex and smooth, so this does not happen in
    /// practice). With no rows the minimiser is 0.
    public static func fit(rows: [[Double]], labels: [Bool], dimension: Int, lambda: Double, tolerance: Double,
                           maxIterations: Int = 100) -> [Double]? {
        precondition(lambda > 0 && rows.count == labels.count)
        var w = [Double](repeating: 0, count: dimension)
        var f = objective(w, rows: rows, labels: labels, lambda: lambda)
        for _ in 0..<maxIterations {
            let g = gradient(w, rows: rows, labels: labels, lambda: lambda)
            if dot(g, g).squareRoot() <= tolerance { return w }
            var H = (0..<dimension).map { a in (0..<dimension).map { b in a == b ? lambda : 0.0 } }
            for x in rows {
                let p = Special.expit(dot(w, x)), s = p * (1 - p)
                for a in 0..<dimension { for b in 0..<dimension { H[a][b] += s * x[a] * x[b] } }
            }
            guard let step = LinearAlgebra.solve(H, g) else { return nil }
            var t = 1.0
            var next = zip(w, step).map { $0 - t * $1 }
            var fn = objective(next, rows: rows, labels: labels, lambda: lambda)
            // Near the optimum J's decrease is below its rounding error: a rise of at most
            // 1e-12·|J| is accepted there (Newton's step is then exact to first order).
            while fn > f + 1e-12 * abs(f) && t > 1e-10 {
                t /= 2
                next = zip(w, step).map { $0 - t * $1 }
                fn = objective(next, rows: rows, labels: labels, lambda: lambda)
            }
            w = next
            f = fn
        }
        let g = gradient(w, rows: rows, labels: labels, lambda: lambda)
        return dot(g, g).squareRoot() <= tolerance ? w : nil
    }

    /// The model's linear score for row x: w·x, summed in coordinate order (intercept first).
    public static func score(_ w: [Double], _ x: [Double]) -> Double { dot(w, x) }

    /// The model's probability for row x: σ(w·x).
    public static func probability(_ w: [Double], _ x: [Double]) -> Double { Special.expit(dot(w, x)) }
}
