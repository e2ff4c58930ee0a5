import Foundation
import Testing
@testable import GameAnalytics

@Suite struct ExGaussianTests {
    @Test func methodOfMomentsMatchesTheAcceptanceNumbers() throws {
        let x = [474.688, 506.445, 524.081, 530.672, 530.869, 566.984, 582.311, 582.940, 603.574, 792.358]
        let p = try #require(ExGaussian.moments(x))
        #expect(abs(p.mu - 487.83351) < 5e-5)
        #expect(abs(p.sigma - 31.95942) < 5e-5)
        #expect(abs(p.tau - 81.65869) < 5e-5)
    }

    @Test func methodOfMomentsRefusesNegativeSkew() {
        #expect(ExGaussian.moments([1, 9, 10, 10, 10]) == nil)
    }

    @Test func logErfcMatchesScipyFarInTheTail() {
        // Reference values from scipy: log(erfcx(x)) − x², and log(erfc(4)).
        #expect(abs(Special.logErfc(10) - (-102.87988902484489)) < 1e-10)
        #expect(abs(Special.logErfc(30) - (-903.9741171106439)) < 1e-9)
        #expect(abs(Special.logErfc(4) - (-17.987778312103007)) < 1e-11)
        // log Φ(−40) = log(½·erfc(40/√2)); scipy.special.log_ndtr(−40).
        #expect(abs(Special.logNormalCDF(-40) - (-804.6084420137539)) < 1e-8)
        // The two branches agree where they meet.
        let below = Special.logErfc(3 - 1e-12), above = Special.logErfc(3)
        #expect(abs(below - above) < 1e-9)
    }

    @Test func normalQuantileInvertsTheCDF() {
        for p in [1e-10, 0.001, 0.02, 0.3, 0.5, 0.9, 0.999] {
            #expect(abs(Special.normalCDF(Special.normalQuantile(p)) - p) < 1e-12 * max(1, p / 1e-10))
        }
        #expect(abs(Special.normalQuantile(0.975) - 1.959963984540054) < 1e-12)
    }

    static func sample(n: Int, _ p: ExGaussianParams, seed: UInt64) -> [Double] {
        var rng = SeededRandom(seed: seed)
        return (0..<n).map { _ in p.mu + p.sigma * rng.normal() + rng.exponential(mean: p.tau) }
    }

    @Test func maximumLikelihoodRecoversKnownParameters() throws {
        let truth = ExGaussianParams(mu: 400, sigma: 40, tau: 100)
        let x = Self.sample(n: 2000, truth, seed: 7)
        let fit = try #require(ExGaussian.fit(x))
        #expect(abs(fit.params.mu - 400) < 10)
        #expect(abs(fit.params.sigma - 40) < 6)
        #expect(abs(fit.params.tau - 100) < 10)
        #expect(fit.flags.isEmpty)
        // It is a maximum: better than the start and than the truth, and than nearby points.
        #expect(fit.logLikelihood >= ExGaussian.logLikelihood(x, try #require(fit.moments)) - 1e-9)
        #expect(fit.logLikelihood >= ExGaussian.logLikelihood(x, truth))
        for (dm, ds, dt) in [(1.0, 0.0, 0.0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)] {
            let q = ExGaussianParams(mu: fit.params.mu + dm, sigma: fit.params.sigma + ds, tau: fit.params.tau + dt)
            #expect(ExGaussian.logLikelihood(x, q) < fit.logLikelihood)
        }
    }

    @Test func smallSamplesAreFlagged() throws {
        let x = Self.sample(n: 20, ExGaussianParams(mu: 400, sigma: 40, tau: 100), seed: 3)
        let fit = try #require(ExGaussian.fit(x))
        #expect(fit.flags.contains("small-n"))
        #expect(ExGaussian.fit(Array(x.prefix(9))) == nil)
    }

    @Test func pureExponentialLikeDataFlagsTheSigmaBoundary() throws {
        // Shifted exponential: the normal part has no width, so σ runs to the boundary.
        var rng = SeededRandom(seed: 11)
        let x = (0..<400).map { _ in 300 + rng.exponential(mean: 100) }
        let fit = try #require(ExGaussian.fit(x))
        #expect(fit.flags.contains("sigma-boundary"))
    }

    @Test func densityIntegratesToOne() {
        let p = ExGaussianParams(mu: 400, sigma: 40, tau: 100)
        var s = 0.0
        var x = 0.0
        while x < 3000 { s += ExGaussian.pdf(x + 0.5, p); x += 1 }
        #expect(abs(s - 1) < 1e-6)
    }
}

@Suite struct LogisticTests {
    static func data(seed: UInt64, n: Int) -> ([[Double]], [Bool]) {
        var rng = SeededRandom(seed: seed)
        var rows: [[Double]] = [], y: [Bool] = []
        for _ in 0..<n {
            let a = rng.normal(), b = rng.normal(), c = rng.normal()
            rows.append([a, b, c])
            y.append(rng.uniform() < Special.expit(-0.3 + 1.2 * a - 0.7 * b))
        }
        return (rows, y)
    }

    @Test func optimumSatisfiesThePenalisedScoreEquations() throws {
        let (rows, y) = Self.data(seed: 5, n: 300)
        let C = 0.5
        let m = try #require(LogisticModel.fit(rows: rows, labels: y, C: C))
        // Gradient of C·Σ logloss + ½‖w‖²: C·Σ(p−y)·x + w = 0 and Σ(p−y) = 0 (intercept unpenalised).
        var g0 = 0.0
        var g = [Double](repeating: 0, count: 3)
        for (r, yi) in zip(rows, y) {
            let d = m.probability(r) - (yi ? 1 : 0)
            g0 += d
            for j in 0..<3 { g[j] += d * r[j] }
        }
        #expect(abs(g0) < 1e-8)
        for j in 0..<3 { #expect(abs(C * g[j] + m.coefficients[j]) < 1e-8) }
        // Shrinkage: a smaller C gives smaller coefficients.
        let strong = try #require(LogisticModel.fit(rows: rows, labels: y, C: 0.01))
        #expect(strong.coefficients.map(abs).reduce(0, +) < m.coefficients.map(abs).reduce(0, +))
    }

    @Test func separableDataStaysFinite() throws {
        let rows = (0..<20).map { [Double($0)] }
        let y = (0..<20).map { $0 >= 10 }
        let m = try #require(LogisticModel.fit(rows: rows, labels: y, C: 1))
        #expect(m.coefficients[0].isFinite && m.coefficients[0] > 0)
    }

    @Test func aucAndDeLongOnAHandExample() throws {
        let s = [0.1, 0.4, 0.35, 0.8], y = [false, false, true, true]
        #expect(ROC.auc(scores: s, labels: y) == 0.75)
        // V10 = (0.5, 1), V01 = (1, 0.5): Var = 0.125/2 + 0.125/2.
        #expect(abs(try #require(ROC.delongSE(scores: s, labels: y)) - 0.125.squareRoot()) < 1e-12)
        #expect(ROC.auc(scores: [1, 1, 1], labels: [true, false, true]) == 0.5)
        let curve = ROC.curve(scores: s, labels: y)
        #expect(curve.first?.fpr == 0 && curve.last?.tpr == 1 && curve.last?.fpr == 1)
    }

    @Test func stratifiedFoldsBalanceBothClasses() {
        let labels = (0..<53).map { $0 % 3 == 0 }
        let folds = CohortAnalyzer.stratifiedFolds(labels: labels, k: 5, seed: 2014)
        for cls in [true, false] {
            let per = (0..<5).map { f in labels.indices.filter { folds[$0] == f && labels[$0] == cls }.count }
            #expect(per.max()! - per.min()! <= 1)
        }
        #expect(folds == CohortAnalyzer.stratifiedFolds(labels: labels, k: 5, seed: 2014))
    }

    @Test func hedgesGOnAHandExample() throws {
        // Means 2 and 3, SDs 1: d = −1; J = 1 − 3/(4·6 − 9) = 0.8.
        let h = try #require(CohortAnalyzer.hedges([1, 2, 3], [2, 3, 4]))
        #expect(abs(h.g - (-0.8)) < 1e-12)
        #expect(h.low < h.g && h.high > h.g)
    }

    @Test func standardizerUsesThePopulationSD() {
        let s = Standardizer(fitting: [[1], [3]])
        #expect(s.means == [2] && s.sds == [1])
    }
}
