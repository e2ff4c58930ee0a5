#if canImport(GameAnalytics)
import Foundation
import GameAnalytics
import Privacy
import Testing
@testable import DossierKit

// MARK: - Each published game statistic moves by at most its sensitivity (docs/game-privacy.md)

@Suite struct GamePublicSensitivityTests {
    static let cohort = Simulator(players: 60, seed: 11).run()
    static let analysis = CohortAnalyzer.analyze(cohort)

    func l1(_ a: [Int], _ b: [Int]) -> Int { zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) } }

    /// The counts, the comparisons' sums and spreads and the τ histograms are functions of
    /// each player's own data: re-analysing without one player leaves every other
    /// player's group, band, gender and measures as they were.
    @Test(arguments: [0, 17, 42])
    func theStatisticsInputsOfOthersDoNotDependOnAPlayer(removed: Int) {
        var c = Self.cohort
        let gone = c.players.remove(at: removed).id
        let again = CohortAnalyzer.analyze(c)
        let before = Dictionary(uniqueKeysWithValues: Self.analysis.players.map { ($0.id, $0) })
        for p in again.players {
            let q = before[p.id]!
            #expect(p.group == q.group && p.ageBand == q.ageBand && p.survey?.gender == q.survey?.gender)
            for m in GamePublicRelease.ranges { #expect(p.measures.value(m.measure) == q.measures.value(m.measure)) }
            #expect(p.measures.exGaussian?.params.tau == q.measures.exGaussian?.params.tau)
        }
        #expect(!again.players.contains { $0.id == gone })
    }

    @Test func removingOnePlayerMovesEachStatisticByAtMostItsSensitivity() {
        let all = Self.analysis.players
        let steps = GamePublicRelease.steps, d2 = GamePublicRelease.deviationClamp * GamePublicRelease.deviationClamp
        for i in all.indices {
            var fewer = all
            fewer.remove(at: i)
            #expect(l1(GamePublicRelease.countCells(all), GamePublicRelease.countCells(fewer)) == 1)
            for g in Group.allCases {
                let a = all.filter { $0.group == g }, b = fewer.filter { $0.group == g }
                #expect(l1(GamePublicRelease.tauHistogram(a), GamePublicRelease.tauHistogram(b)) <= 1)
                let ca = GamePublicRelease.completeCases(a), cb = GamePublicRelease.completeCases(b)
                #expect(abs(ca.count - cb.count) <= 1)
                for m in GamePublicRelease.ranges.indices {
                    #expect(
                        abs(GamePublicRelease.gridSum(ca, measure: m) - GamePublicRelease.gridSum(cb, measure: m))
                            <= steps)
                    for meanK in [0.0, 37.5, Double(steps)] {
                        #expect(
                            abs(
                                GamePublicRelease.spread(ca, measure: m, meanK: meanK)
                                    - GamePublicRelease.spread(cb, measure: m, meanK: meanK)) <= d2)
                    }
                }
            }
        }
    }
    // MARK: The public model (docs/game-privacy.md, "The public model")

    static let key = Data((0..<32).map { UInt8($0 * 7 + 3) })
    static let train = GamePublicModel.training(analysis.players, minimumEncounters: analysis.options.minimumEncounters)
    static let bound = (1 + 2 * GamePublicModel.tolerance) / GamePublicModel.lambda

    func l2(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
    }

    /// Removing any one training player leaves the others' rows and labels as they were,
    /// moves the exact minimiser by at most (1 + 2τ)/Λ in L2 and its rounded coefficients
    /// by at most the documented L1 sensitivity, and — with the released model fixed —
    /// changes the score histograms by exactly one cell, one class total by one, and the
    /// AUC's grid value by at most its sensitivity for the floor.
    @Test func removingOnePlayerMovesTheModelByTheBoundAndTheHistogramsByOneCell() throws {
        let train = Self.train
        #expect(train.count > 20)
        let fit = try #require(GamePublicModel.exactFit(train))
        let fixed = GamePublicModel.rounded(fit)
        let bins = GamePublicRelease.scoreBins
        let full = GamePublicModel.histograms(train, model: fixed, bins: bins)
        let floor = GamePublicModel.minimumClass, steps = GamePublicRelease.aucSteps
        func aucGrid(_ t: [GamePublicModel.Player]) -> (Int, Int, Int) {
            let s = GamePublicModel.scores(t, model: fixed)
            return (
                PairwiseAUC.grid(
                    twiceU: PairwiseAUC.twiceMannWhitney(positive: s.positive, negative: s.negative),
                    nPositive: s.positive.count, nNegative: s.negative.count, floor: floor, steps: steps),
                s.positive.count, s.negative.count
            )
        }
        let fullAUC = aucGrid(train)
        var largest = 0.0, largestAUC = 0
        for i in train.indices {
            var fewer = Self.analysis.players
            fewer.removeAll { $0.id == train[i].id }
            let again = GamePublicModel.training(fewer, minimumEncounters: Self.analysis.options.minimumEncounters)
            #expect(again.map(\.id) == train.map(\.id).filter { $0 != train[i].id })
            #expect(again.map(\.x) == train.indices.filter { $0 != i }.map { train[$0].x })
            let w = try #require(GamePublicModel.exactFit(again))
            let moved = l2(w, fit)
            #expect(moved <= Self.bound, "moved \(moved) > \(Self.bound)")
            largest = max(largest, moved)
            #expect(l1(GamePublicModel.rounded(w), fixed) <= GamePublicModel.sensitivity)
            let fewerHist = GamePublicModel.histograms(again, model: fixed, bins: bins)
            #expect(l1(full.positive + full.negative, fewerHist.positive + fewerHist.negative) == 1)
            let auc = aucGrid(again)
            #expect(abs(auc.1 - fullAUC.1) + abs(auc.2 - fullAUC.2) == 1)
            #expect(abs(auc.0 - fullAUC.0) <= PairwiseAUC.sensitivity(floor: floor, steps: steps))
            largestAUC = max(largestAUC, abs(auc.0 - fullAUC.0))
        }
        #expect(largest > 0 && largestAUC > 0)
    }

    /// The bound is nearly reached by a player at the corner of the feature ranges with
    /// the unexpected label added to a small training set: so a fit that was not
    /// Λ-strongly convex in the sum form, or rows longer than 1, would fail the test above.
    @Test func anExtremePlayerAddedToASmallTrainingSetMovesTheModelCloseToTheBound() throws {
        let d = GamePublicModel.dimension
        let few = Array(Self.train.prefix(4))
        let corner = BoundedLogistic.row(
            GamePublicModel.features.map(\.upper), ranges: GamePublicModel.features.map { ($0.lower, $0.upper) })
        #expect(abs(l2(corner, [Double](repeating: 0, count: d)) - 1) < 1e-12)
        let w = try #require(BoundedLogistic.fit(rows: few.map(\.x), labels: few.map(\.positive), dimension: d,
                                                 lambda: GamePublicModel.lambda, tolerance: GamePublicModel.tolerance))
        let w2 = try #require(
            BoundedLogistic.fit(
                rows: few.map(\.x) + [corner], labels: few.map(\.positive) + [false], dimension: d,
                lambda: GamePublicModel.lambda, tolerance: GamePublicModel.tolerance))
        let moved = l2(w, w2)
        #expect(moved <= Self.bound && moved > 0.4 * Self.bound, "moved \(moved), bound \(Self.bound)")
    }

    /// The fit meets its stopping rule: ‖∇J‖₂ ≤ τ at the returned coefficients.
    @Test func theFitStopsWithTheGradientBelowTheTolerance() throws {
        let w = try #require(GamePublicModel.exactFit(Self.train))
        let g = BoundedLogistic.gradient(
            w, rows: Self.train.map(\.x), labels: Self.train.map(\.positive), lambda: GamePublicModel.lambda)
        #expect(g.reduce(0) { $0 + $1 * $1 }.squareRoot() <= GamePublicModel.tolerance)
    }
    /// The coefficients' noise has the documented size: over 400 streams the 2 400 draws of
    /// k̃ − k have the variance of discrete Laplace noise of scale Δ₁/ε (within 15 %).
    @Test func theCoefficientNoiseHasTheDocumentedScale() throws {
        let eps = Rational(1, 1)
        let exact = GamePublicModel.rounded(try #require(GamePublicModel.exactFit(Self.train)))
        var noise: [Double] = []
        for i in 0..<400 {
            var r = KeyedRandom(key: Self.key, context: "scale-\(i)")
            noise += zip(GamePublicModel.noisyModel(Self.train, epsilon: eps, rng: &r), exact).map { Double($0 - $1) }
        }
        let variance = noise.reduce(0) { $0 + $1 * $1 } / Double(noise.count)
        let sd = Mechanisms.laplaceSD(scale: Double(GamePublicModel.sensitivity) / eps.double)
        #expect(abs(variance / (sd * sd) - 1) < 0.15, "variance \(variance), documented \(sd * sd)")
    }
}
#endif
