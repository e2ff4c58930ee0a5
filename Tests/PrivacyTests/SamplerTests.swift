import Foundation
import Testing
@testable import Privacy

// MARK: - The samplers against their exact distributions

let testKey = Data((0..<32).map { UInt8($0) })

/// Pearson's χ² of observed counts against expected probabilities over the integers
/// in -k...k, the tails |x| > k pooled into one cell.
func chiSquare(samples: [Int], pmf: (Int) -> Double, k: Int) -> (stat: Double, df: Int) {
    let n = Double(samples.count)
    var observed = [Int: Int]()
    for x in samples { observed[abs(x) > k ? Int.max : x, default: 0] += 1 }
    var stat = 0.0, tail = 1.0, cells = 0
    for x in -k...k {
        let p = pmf(x); tail -= p
        let e = n * p
        stat += pow(Double(observed[x] ?? 0) - e, 2) / e
        cells += 1
    }
    let e = n * max(tail, 1e-300)
    if e >= 5 { stat += pow(Double(observed[Int.max] ?? 0) - e, 2) / e; cells += 1 }
    return (stat, cells - 1)
}

/// The χ² quantile at 1 − 0.001 by the Wilson–Hilferty approximation.
func chiSquareCritical(df: Int) -> Double {
    let d = Double(df), z = 3.090232306167813
    return d * pow(1 - 2 / (9 * d) + z * (2 / (9 * d)).squareRoot(), 3)
}

func laplacePMF(scale b: Double) -> (Int) -> Double {
    { x in tanh(1 / (2 * b)) * exp(-Double(abs(x)) / b) }
}

func gaussianPMF(sigma2: Double) -> (Int) -> Double {
    let norm = (-400...400).reduce(0.0) { $0 + exp(-Double($1 * $1) / (2 * sigma2)) }
    return { x in exp(-Double(x * x) / (2 * sigma2)) / norm }
}

@Suite struct SamplerTests {
    @Test(arguments: [(Rational(2), "dlap-2"), (Rational(3, 2), "dlap-1.5"), (Rational(1, 3), "dlap-1/3")])
    func discreteLaplaceMatchesItsPMF(scale: Rational, label: String) {
        var rng = KeyedRandom(key: testKey, context: label)
        let xs = (0..<20_000).map { _ in Samplers.discreteLaplace(scale: scale, &rng) }
        let r = chiSquare(samples: xs, pmf: laplacePMF(scale: scale.double), k: max(2, Int(4 * scale.double)))
        #expect(r.stat < chiSquareCritical(df: r.df), "χ² \(r.stat) on \(r.df) df")
        // the mean is 0 and the variance 2q/(1−q)²
        let sd = Mechanisms.laplaceSD(scale: scale.double)
        let mean = Double(xs.reduce(0, +)) / Double(xs.count)
        #expect(abs(mean) < 5 * sd / Double(xs.count).squareRoot())
    }

    @Test(arguments: [(Rational(4), "dg-4"), (Rational(9, 4), "dg-9/4"), (Rational(30), "dg-30")])
    func discreteGaussianMatchesItsPMF(sigma2: Rational, label: String) {
        var rng = KeyedRandom(key: testKey, context: label)
        let xs = (0..<20_000).map { _ in Samplers.discreteGaussian(sigma2: sigma2, &rng) }
        let r = chiSquare(samples: xs, pmf: gaussianPMF(sigma2: sigma2.double), k: Int(3 * sigma2.double.squareRoot()))
        #expect(r.stat < chiSquareCritical(df: r.df), "χ² \(r.stat) on \(r.df) df")
    }

    @Test(arguments: [Rational(1, 2), Rational(3, 2), Rational(0), Rational(7, 3)])
    func bernoulliExpHasProbabilityExpMinusGamma(gamma: Rational) {
        var rng = KeyedRandom(key: testKey, context: "bexp-\(gamma)")
        let n = 20_000
        let hits = (0..<n).filter { _ in Samplers.bernoulliExp(gamma, &rng) }.count
        let p = exp(-gamma.double)
        let z = (Double(hits) - Double(n) * p) / max(1e-9, (Double(n) * p * (1 - p)).squareRoot())
        #expect(gamma.num == 0 ? hits == n : abs(z) < 4, "\(hits) of \(n), expected p = \(p)")
    }

    @Test func theSameKeyAndContextGiveTheSameStream() {
        var a = KeyedRandom(key: testKey, context: "x"), b = KeyedRandom(key: testKey, context: "x")
        var c = KeyedRandom(key: testKey, context: "y")
        var other = KeyedRandom(key: Data(repeating: 7, count: 32), context: "x")
        let sa = (0..<50).map { _ in a.next() }
        #expect(sa == (0..<50).map { _ in b.next() })
        #expect(sa != (0..<50).map { _ in c.next() })
        #expect(sa != (0..<50).map { _ in other.next() })
    }

    @Test func uniformBelowIsUniform() {
        var rng = KeyedRandom(key: testKey, context: "uniform")
        var counts = [Int](repeating: 0, count: 7)
        for _ in 0..<14_000 { counts[Int(rng.uniform(below: 7))] += 1 }
        let stat = counts.reduce(0.0) { $0 + pow(Double($1) - 2000, 2) / 2000 }
        #expect(stat < chiSquareCritical(df: 6))
        let big = UInt128(1) << 100 + 12345
        #expect((0..<200).allSatisfy { _ in rng.uniform(below: big) < big })
    }
}
