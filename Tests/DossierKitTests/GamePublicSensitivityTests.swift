#if canImport(GameAnalytics)
import Foundation
import GameAnalytics
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
                    #expect(abs(GamePublicRelease.gridSum(ca, measure: m) - GamePublicRelease.gridSum(cb, measure: m)) <= steps)
                    for meanK in [0.0, 37.5, Double(steps)] {
                        #expect(abs(GamePublicRelease.spread(ca, measure: m, meanK: meanK) - GamePublicRelease.spread(cb, measure: m, meanK: meanK)) <= d2)
                    }
                }
            }
        }
    }
}
#endif
