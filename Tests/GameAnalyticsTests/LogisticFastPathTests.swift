// The logistic fit with flat arrays (`LogisticModel.fit`, run by every cohort analysis
// and each of its bootstrap replicates) against its straightforward twin below — the
// nested-array Newton iterations it replaced (its step halving is the shared
// `LogisticModel.halvedStep`) — bit for bit.
import Foundation
import SplitMix64
import Testing
@testable import GameAnalytics

enum NestedArrayLogistic {
    static func straightforwardFit(rows: [[Double]], labels: [Bool], C: Double, maxIterations: Int = 100)
        -> LogisticModel? {
        let n = rows.count
        guard n > 0, labels.count == n, C > 0 else { return nil }
        let p = rows[0].count
        let X = rows.map { [1.0] + $0 }
        let y = labels.map { $0 ? 1.0 : 0.0 }
        let lambda = 1 / C
        var beta = [Double](repeating: 0, count: p + 1)
        func objective(_ b: [Double]) -> Double {
            var s = 0.0
            for i in 0..<n {
                let e = zip(b, X[i]).reduce(0) { $0 + $1.0 * $1.1 }
                // log(1 + e^e) − y·e, stably
                s += (e > 0 ? e + log1p(exp(-e)) : log1p(exp(e))) - y[i] * e
            }
            return s + 0.5 * lambda * b.dropFirst().reduce(0) { $0 + $1 * $1 }
        }
        var H = [[Double]]()
        var it = 0
        var f = objective(beta)
        while it < maxIterations {
            it += 1
            var g = [Double](repeating: 0, count: p + 1)
            H = [[Double]](repeating: [Double](repeating: 0, count: p + 1), count: p + 1)
            for i in 0..<n {
                let pi = Special.expit(zip(beta, X[i]).reduce(0) { $0 + $1.0 * $1.1 })
                let w = pi * (1 - pi)
                for a in 0...p {
                    g[a] += (pi - y[i]) * X[i][a]
                    for b in 0...a { H[a][b] += w * X[i][a] * X[i][b] }
                }
            }
            for a in 0...p { for b in 0..<a { H[b][a] = H[a][b] } }
            for a in 1...max(1, p) where a <= p { g[a] += lambda * beta[a]; H[a][a] += lambda }
            guard let step = LinearAlgebra.solve(H, g) else { return nil }
            let (next, fn, t) = LogisticModel.halvedStep(from: beta, step: step, f: f, objective)
            beta = next
            f = fn
            if (step.map { abs($0 * t) }.max() ?? 0) < 1e-10 { break }
        }
        // Hessian at the optimum for the covariance.
        H = [[Double]](repeating: [Double](repeating: 0, count: p + 1), count: p + 1)
        for i in 0..<n {
            let pi = Special.expit(zip(beta, X[i]).reduce(0) { $0 + $1.0 * $1.1 })
            let w = pi * (1 - pi)
            for a in 0...p { for b in 0...p { H[a][b] += w * X[i][a] * X[i][b] } }
        }
        if p >= 1 { for a in 1...p { H[a][a] += lambda } }
        guard let cov = LinearAlgebra.inverse(H) else { return nil }
        return LogisticModel(
            intercept: beta[0], coefficients: Array(beta.dropFirst()), covariance: cov, iterations: it, C: C)
    }
}

struct LogisticFastPathTests {
    static func same(_ a: LogisticModel?, _ b: LogisticModel?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        func bits(_ xs: [Double]) -> [UInt64] { xs.map(\.bitPattern) }
        return a.intercept.bitPattern == b.intercept.bitPattern && bits(a.coefficients) == bits(b.coefficients)
            && a.covariance.map(bits) == b.covariance.map(bits) && a.iterations == b.iterations
    }

    /// Random data sets: 1–80 rows, 0–6 features (constant, duplicated, separable, huge),
    /// labels all one way or mixed, penalties from 1e-3 to 1e12 (the calibration fit's).
    @Test func theFlatFitIsTheNestedOneBitForBit() {
        var rng = SplitMix64(seed: 318)
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        var fitted = 0
        for round in 0..<200 {
            let n = 1 + Int(rng.next() % 80), p = Int(rng.next() % 7)
            let kind = rng.next() % 5
            var rows = (0..<n).map { _ in (0..<p).map { _ in 4 * unit() - 2 } }
            if kind == 1, p > 1 { for i in rows.indices { rows[i][1] = rows[i][0] } }          // collinear
            if kind == 2, p > 0 { for i in rows.indices { rows[i][0] = 3 } }                  // constant
            if kind == 3, p > 0 { for i in rows.indices { rows[i][p - 1] *= 1e6 } }           // huge scale
            let labels: [Bool] = rows.map { r in
                switch kind {
                case 4: return (r.first ?? 0) > 0                                            // separable
                default: return unit() < 0.5 * (1 + tanh(r.reduce(0, +)))
                }
            }
            let C = [1e-3, 0.1, 1, 10, 1e12][Int(rng.next() % 5)]
            let fast = LogisticModel.fit(rows: rows, labels: labels, C: C)
            let plain = NestedArrayLogistic.straightforwardFit(rows: rows, labels: labels, C: C)
            #expect(Self.same(fast, plain), "round \(round): n \(n) p \(p) kind \(kind) C \(C)")
            if fast != nil { fitted += 1 }
        }
        #expect(fitted > 130)
    }

    /// Rows longer than the first are read up to its length, as the nested fit's `zip` did;
    /// empty input, mismatched labels and a zero penalty give nil both ways.
    @Test func rowLengthsAndRefusalsAsTheNestedFit() {
        let rows: [[Double]] = [[0.5, 1], [1.5, -1, 9], [-0.3, 2, 7, 7], [2, 0.1], [-1, -2]]
        let labels = [true, false, true, false, true]
        #expect(Self.same(LogisticModel.fit(rows: rows, labels: labels, C: 1),
                          NestedArrayLogistic.straightforwardFit(rows: rows, labels: labels, C: 1)))
        #expect(LogisticModel.fit(rows: [], labels: [], C: 1) == nil)
        #expect(LogisticModel.fit(rows: rows, labels: [true], C: 1) == nil)
        #expect(LogisticModel.fit(rows: rows, labels: labels, C: 0) == nil)
    }
}
