import Foundation
import Testing
@testable import Privacy
import SplitMix64

// MARK: - The AUC with a public floor (docs/game-privacy.md, "The AUC")

@Suite struct PairwiseAUCTests {
    /// The straightforward twin of ``PairwiseAUC/twiceMannWhitney(positive:negative:)``:
    /// every pair, a win counts 2 and a tie 1.
    func twiceMannWhitneyByPairs(_ pos: [Double], _ neg: [Double]) -> Int {
        pos.reduce(0) { acc, p in acc + neg.reduce(0) { $0 + (p > $1 ? 2 : p == $1 ? 1 : 0) } }
    }

    /// Scores on a coarse grid, so that ties between and within the classes are common.
    func scores(_ n: Int, _ g: inout SplitMix64) -> [Double] {
        (0..<n).map { _ in Double(Int.random(in: 0...12, using: &g)) / 4 }
    }

    @Test(arguments: 0..<40) func theSortedCountEqualsTheCountOverEveryPair(seed: UInt64) {
        var g = SplitMix64(seed: seed)
        let pos = scores(Int.random(in: 0...30, using: &g), &g), neg = scores(Int.random(in: 0...30, using: &g), &g)
        #expect(PairwiseAUC.twiceMannWhitney(positive: pos, negative: neg) == twiceMannWhitneyByPairs(pos, neg))
    }

    /// With both classes at least the floor, the grid value is the AUC rounded to the grid.
    @Test func withBothClassesAboveTheFloorTheGridIsTheRoundedAUC() {
        var g = SplitMix64(seed: 99)
        for _ in 0..<50 {
            let pos = scores(Int.random(in: 20...60, using: &g), &g),
                neg = scores(Int.random(in: 20...60, using: &g), &g)
            let u2 = twiceMannWhitneyByPairs(pos, neg)
            let auc = Double(u2) / Double(2 * pos.count * neg.count)
            let k = PairwiseAUC.grid(twiceU: u2, nPositive: pos.count, nNegative: neg.count, floor: 20, steps: 100_000)
            #expect(abs(Double(k) - (auc * 100_000).rounded()) <= 1)
        }
    }

    /// Adding or removing one person (either class, any score, classes above and below
    /// the floor) moves the grid value by at most the documented sensitivity, and some
    /// neighbour comes close to it, so a smaller sensitivity would fail here.
    @Test(arguments: [5, 20, 50]) func oneMoreOrLessMovesTheGridByAtMostTheSensitivity(floor m: Int) {
        let steps = 100_000, bound = PairwiseAUC.sensitivity(floor: m, steps: steps)
        var g = SplitMix64(seed: UInt64(m))
        var largest = 0
        for _ in 0..<60 {
            let pos = scores(Int.random(in: 0...(2 * m), using: &g), &g),
                neg = scores(Int.random(in: 0...(2 * m), using: &g), &g)
            func k(_ p: [Double], _ n: [Double]) -> Int {
                PairwiseAUC.grid(twiceU: PairwiseAUC.twiceMannWhitney(positive: p, negative: n), nPositive: p.count,
                                 nNegative: n.count, floor: m, steps: steps)
            }
            let here = k(pos, neg)
            var neighbours: [([Double], [Double])] = []
            for extra in [-1.0, 10.0, 1.5] { neighbours += [(pos + [extra], neg), (pos, neg + [extra])] }
            for i in pos.indices { var p = pos; p.remove(at: i); neighbours.append((p, neg)) }
            for i in neg.indices { var n = neg; n.remove(at: i); neighbours.append((pos, n)) }
            for (p, n) in neighbours {
                let moved = abs(k(p, n) - here)
                #expect(moved <= bound, "floor \(m): moved \(moved) > \(bound)")
                largest = max(largest, moved)
            }
        }
        #expect(Double(largest) >= 0.9 * Double(steps) / Double(m), "largest move \(largest), G/M \(steps / m)")
    }

    /// Normalising by the true class sizes instead (no floor) moves a small data set by far
    /// more than 1/M: the floor is what bounds the sensitivity.
    @Test func withoutTheFloorOnePersonMovesTheAUCByFarMore() {
        let pos = [1.0], neg = [0.0, 0.0]
        let k = PairwiseAUC.grid(
            twiceU: PairwiseAUC.twiceMannWhitney(positive: pos, negative: neg), nPositive: 1, nNegative: 2, floor: 1,
            steps: 1000)
        let k2 = PairwiseAUC.grid(
            twiceU: PairwiseAUC.twiceMannWhitney(positive: pos + [-1], negative: neg), nPositive: 2, nNegative: 2,
            floor: 1, steps: 1000)
        #expect(k == 1000 && k2 == 500)
        let floored = PairwiseAUC.grid(twiceU: 4, nPositive: 1, nNegative: 2, floor: 50, steps: 1000)
        let floored2 = PairwiseAUC.grid(twiceU: 4, nPositive: 2, nNegative: 2, floor: 50, steps: 1000)
        #expect(abs(floored - floored2) <= PairwiseAUC.sensitivity(floor: 50, steps: 1000))
    }
}
