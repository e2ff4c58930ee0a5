import Foundation
import Testing
@testable import GameAnalytics

/// The Swift twin of the kit's model (docs/game-kit.md, "The game model"), which `game
/// ingest` recomputes sessions with.
@Suite struct KitModelTests {
    /// The straightforward rule, as the docs state it: every jump in time order.
    static func plainHitTime(_ a: Int, jumps: [Int]) -> Int? {
        var c = a + 640
        for j in jumps where j + 80 <= c && c < j + 520 { c = j + 520 }
        return c <= a + 760 ? c : nil
    }

    @Test func theFastHitTimeIsTheDocumentedRule() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var taps: [Int] = [], t = 0
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                t += Int.random(in: 0...900, using: &rng); taps.append(t)
            }
            let jumps = KitModel.jumps(taps)
            let a = Int.random(in: 0...6000, using: &rng)
            #expect(KitModel.hitTime(a, jumps: jumps) == Self.plainHitTime(a, jumps: jumps), "a \(a), jumps \(jumps)")
        }
    }

    @Test func aTapAt550ClearsTheObstacleAndTheRecordSaysSo() {
        let a0 = KitModel.obstacles(seed: 977, through: 10_000)[0].t
        let cleared = KitModel.replay(seed: 977, taps: [a0 + 550], end: a0 + 900)
        #expect(cleared.collisions.isEmpty && cleared.jumps == [a0 + 550])
        #expect(cleared.score == 10 + (a0 + 900) / 1000)
        // The record a frame loop made without the late tap: its collision contradicts the jump.
        let s = Session(index: 1, start: 0, end: a0 + 900, score: (a0 + 900) / 1000, obstacles: cleared.obstacles,
                        taps: [a0 + 550], jumps: [a0 + 550], collisions: [a0 + 640])
        let problem = KitModel.problem(s, seed: 977) ?? ""
        #expect(problem.contains("collisions differ at collision 1: recorded \(a0 + 640), the model gives none"))
    }

    @Test func aWholeDayOfJumpsIsRecomputed() {
        // A whole day of taps every 600 ms (the longest session a reader accepts): the fast rule
        // visits a handful of jumps per obstacle, where the plain one would take ~6·10⁹ steps.
        let taps = Array(stride(from: 0, to: 86_400_000, by: 600))
        let out = KitModel.replay(seed: 5, taps: taps, end: 86_400_000)
        #expect(out.jumps.count == taps.count && out.obstacles.count > 30_000)
    }
}
