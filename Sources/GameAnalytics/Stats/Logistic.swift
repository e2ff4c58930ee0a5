#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - L2-penalised logistic regression (docs/game-measures.md, "Model")

/// Feature standardisation: z = (x − mean)/SD with the population SD (÷n), as
/// scikit-learn's `StandardScaler`; a feature with SD 0 is only centred.
public struct Standardizer: Sendable, Hashable, Codable {
    public var means: [Double]
    public var sds: [Double]

    public init(fitting rows: [[Double]]) {
        let p = rows.first?.count ?? 0
        let n = Double(rows.count)
        means = (0..<p).map { j in rows.reduce(0) { $0 + $1[j] } / n }
        sds = (0..<p).map { j in
            let m = rows.reduce(0) { $0 + $1[j] } / n
            let v = rows.reduce(0) { $0 + ($1[j] - m) * ($1[j] - m) } / n
            return v > 0 ? v.squareRoot() : 1
        }
    }

    public func apply(_ row: [Double]) -> [Double] { row.indices.map { (row[$0] - means[$0]) / sds[$0] } }
}

/// A fitted model: intercept, coefficients (on standardised features when fitted through
/// ``LogisticModel/fit(rows:labels:C:)``) and the inverse penalised Hessian for intervals.
public struct LogisticModel: Sendable, Hashable, Codable {
    public var intercept: Double
    public var coefficients: [Double]
    /// (p+1)×(p+1) inverse of the penalised Hessian at the optimum, intercept first.
    public var covariance: [[Double]]
    public var iterations: Int
    public var C: Double

    /// Linear predictor η = b₀ + Σ bⱼxⱼ.
    public func eta(_ x: [Double]) -> Double { intercept + zip(coefficients, x).reduce(0) { $0 + $1.0 * $1.1 } }

    public func probability(_ x: [Double]) -> Double { Special.expit(eta(x)) }

    /// Wald interval on the logit scale, mapped through expit: expit(η ± z·√(x̃ᵀ H⁻¹ x̃)), x̃ = (1, x).
    public func interval(_ x: [Double], z: Double = 1.959963984540054) -> (low: Double, high: Double) {
        let xt = [1.0] + x
        var v = 0.0
        for i in xt.indices { for j in xt.indices { v += xt[i] * covariance[i][j] * xt[j] } }
        let se = max(v, 0).squareRoot()
        let e = eta(x)
        return (Special.expit(e - z * se), Special.expit(e + z * se))
    }

    /// Minimises C·Σᵢ logloss(yᵢ, pᵢ) + ½‖w‖² (scikit-learn's `LogisticRegression(C=C)`
    /// objective; the intercept is not penalised) by Newton's method (IRLS) with step
    /// halving, until the largest step is below 1e-10. Rows are used as given.
    ///
    /// The design matrix and the Hessian are flat row-major arrays (one allocation each, no
    /// per-row arrays): the same operations in the same order as the nested-array loops
    /// kept as its twin in GameAnalyticsTests/LogisticFastPathTests, so the same bits.
    /// Rows longer than the first are read up to its length (as `zip` did); a shorter row
    /// gives nil.
    public static func fit(rows: [[Double]], labels: [Bool], C: Double, maxIterations: Int = 100) -> LogisticModel? {
        let n = rows.count
        guard n > 0, labels.count == n, C > 0 else { return nil }
        let p = rows[0].count
        guard rows.allSatisfy({ $0.count >= p }) else { return nil }
        let k = p + 1
        var X = [Double]()          // row i is X[i*k ..< i*k + k]: 1, then the row's features
        X.reserveCapacity(n * k)
        for r in rows { X.append(1.0); X.append(contentsOf: r.prefix(p)) }
        let y = labels.map { $0 ? 1.0 : 0.0 }
        let lambda = 1 / C
        var beta = [Double](repeating: 0, count: k)
        func dot(_ b: [Double], _ i: Int) -> Double {
            var s = 0.0
            for a in 0..<k { s = s + b[a] * X[i * k + a] }
            return s
        }
        func objective(_ b: [Double]) -> Double {
            var s = 0.0
            for i in 0..<n {
                let e = dot(b, i)
                // log(1 + e^e) − y·e, stably
                s += (e > 0 ? e + log1p(exp(-e)) : log1p(exp(e))) - y[i] * e
            }
            return s + 0.5 * lambda * b.dropFirst().reduce(0) { $0 + $1 * $1 }
        }
        func nested(_ H: [Double]) -> [[Double]] { (0..<k).map { Array(H[$0 * k ..< $0 * k + k]) } }
        var it = 0
        var f = objective(beta)
        while it < maxIterations {
            it += 1
            var g = [Double](repeating: 0, count: k)
            var H = [Double](repeating: 0, count: k * k)
            for i in 0..<n {
                let pi = Special.expit(dot(beta, i))
                let w = pi * (1 - pi)
                for a in 0..<k {
                    let xa = X[i * k + a]
                    g[a] += (pi - y[i]) * xa
                    for b in 0...a { H[a * k + b] += w * xa * X[i * k + b] }
                }
            }
            for a in 0..<k { for b in 0..<a { H[b * k + a] = H[a * k + b] } }
            for a in 1...max(1, p) where a <= p { g[a] += lambda * beta[a]; H[a * k + a] += lambda }
            guard let step = LinearAlgebra.solve(nested(H), g) else { return nil }
            let (next, fn, t) = halvedStep(from: beta, step: step, f: f, objective)
            beta = next
            f = fn
            if (step.map { abs($0 * t) }.max() ?? 0) < 1e-10 { break }
        }
        // Hessian at the optimum for the covariance.
        var H = [Double](repeating: 0, count: k * k)
        for i in 0..<n {
            let pi = Special.expit(dot(beta, i))
            let w = pi * (1 - pi)
            for a in 0..<k {
                let xa = X[i * k + a]
                for b in 0..<k { H[a * k + b] += w * xa * X[i * k + b] }
            }
        }
        if p >= 1 { for a in 1...p { H[a * k + a] += lambda } }
        guard let cov = LinearAlgebra.inverse(nested(H)) else { return nil }
        return LogisticModel(
            intercept: beta[0], coefficients: Array(beta.dropFirst()), covariance: cov, iterations: it, C: C)
    }

    /// Newton's step with halving: β − t·step for t = 1, ½, ¼, … until the objective is not
    /// above f + 1e-12·|f| or t ≤ 1e-8; the new point, its objective and t.
    static func halvedStep(from beta: [Double], step: [Double], f: Double,
                           _ objective: ([Double]) -> Double) -> (next: [Double], value: Double, t: Double) {
        var t = 1.0
        var next = zip(beta, step).map { $0 - t * $1 }
        var fn = objective(next)
        while fn > f + 1e-12 * abs(f) && t > 1e-8 {
            t /= 2
            next = zip(beta, step).map { $0 - t * $1 }
            fn = objective(next)
        }
        return (next, fn, t)
    }
}

// MARK: - Linear algebra (small dense systems)

enum LinearAlgebra {
    /// Solves A x = b by Gaussian elimination with partial pivoting; nil if singular.
    static func solve(_ A: [[Double]], _ b: [Double]) -> [Double]? {
        let n = b.count
        var M = A
        var v = b
        for c in 0..<n {
            guard let piv = (c..<n).max(by: { abs(M[$0][c]) < abs(M[$1][c]) }), abs(M[piv][c]) > 1e-300 else {
                return nil
            }
            M.swapAt(c, piv); v.swapAt(c, piv)
            for r in (c + 1)..<max(c + 1, n) where r < n {
                let f = M[r][c] / M[c][c]
                if f == 0 { continue }
                for k in c..<n { M[r][k] -= f * M[c][k] }
                v[r] -= f * v[c]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for r in stride(from: n - 1, through: 0, by: -1) {
            var s = v[r]
            for k in (r + 1)..<max(r + 1, n) where k < n { s -= M[r][k] * x[k] }
            x[r] = s / M[r][r]
        }
        return x
    }

    static func inverse(_ A: [[Double]]) -> [[Double]]? {
        let n = A.count
        var cols: [[Double]] = []
        for j in 0..<n {
            var e = [Double](repeating: 0, count: n); e[j] = 1
            guard let c = solve(A, e) else { return nil }
            cols.append(c)
        }
        return (0..<n).map { i in (0..<n).map { j in cols[j][i] } }
    }
}

// MARK: - ROC, AUC and DeLong's interval

public enum ROC {
    /// AUC = P(score of a positive > score of a negative) + ½·P(tie) (Mann–Whitney);
    /// nil without both classes.
    public static func auc(scores: [Double], labels: [Bool]) -> Double? {
        let pos = zip(scores, labels).filter { $0.1 }.map(\.0), neg = zip(scores, labels).filter { !$0.1 }.map(\.0)
        guard !pos.isEmpty, !neg.isEmpty else { return nil }
        // Rank-based O(n log n): mid-ranks of the pooled sample.
        let all = (pos.map { ($0, true) } + neg.map { ($0, false) }).sorted { $0.0 < $1.0 }
        var rankSumPos = 0.0
        var i = 0
        while i < all.count {
            var j = i
            while j + 1 < all.count && all[j + 1].0 == all[i].0 { j += 1 }
            let mid = Double(i + j) / 2 + 1
            for k in i...j where all[k].1 { rankSumPos += mid }
            i = j + 1
        }
        let n1 = Double(pos.count), n0 = Double(neg.count)
        return (rankSumPos - n1 * (n1 + 1) / 2) / (n1 * n0)
    }

    /// DeLong, DeLong & Clarke-Pearson (1988) standard error of the AUC:
    /// V₁₀(i) = mean over negatives of ψ(posᵢ, neg), V₀₁(j) = mean over positives of ψ(pos, negⱼ),
    /// ψ = 1 if pos > neg, ½ if equal, 0 otherwise; Var = s²(V₁₀)/n₁ + s²(V₀₁)/n₀ (n − 1 variances).
    public static func delongSE(scores: [Double], labels: [Bool]) -> Double? {
        let pos = zip(scores, labels).filter { $0.1 }.map(\.0), neg = zip(scores, labels).filter { !$0.1 }.map(\.0)
        guard pos.count >= 2, neg.count >= 2 else { return nil }
        func psi(_ a: Double, _ b: Double) -> Double { a > b ? 1 : (a == b ? 0.5 : 0) }
        let v10 = pos.map { p in neg.reduce(0) { $0 + psi(p, $1) } / Double(neg.count) }
        let v01 = neg.map { q in pos.reduce(0) { $0 + psi($1, q) } / Double(pos.count) }
        let s10 = Describe.sd(v10) ?? 0, s01 = Describe.sd(v01) ?? 0
        return (s10 * s10 / Double(pos.count) + s01 * s01 / Double(neg.count)).squareRoot()
    }

    public struct Point: Sendable, Hashable, Codable {
        public var threshold: Double
        public var fpr: Double
        public var tpr: Double
    }

    /// The ROC curve: one point per distinct score (descending), from (0,0) to (1,1).
    public static func curve(scores: [Double], labels: [Bool]) -> [Point] {
        let n1 = Double(labels.filter { $0 }.count), n0 = Double(labels.filter { !$0 }.count)
        guard n1 > 0, n0 > 0 else { return [] }
        let sorted = zip(scores, labels).sorted { $0.0 > $1.0 }
        var pts = [Point(threshold: .infinity, fpr: 0, tpr: 0)]
        var tp = 0.0, fp = 0.0, i = 0
        while i < sorted.count {
            let s = sorted[i].0
            while i < sorted.count && sorted[i].0 == s { if sorted[i].1 { tp += 1 } else { fp += 1 }; i += 1 }
            pts.append(Point(threshold: s, fpr: fp / n0, tpr: tp / n1))
        }
        pts[0].threshold = 1
        return pts
    }
}
