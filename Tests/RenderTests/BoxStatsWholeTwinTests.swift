import Testing
@testable import Render
import SplitMix64

// `BoxStats(whole:)` and `Charts.boxPlot(wholeGroups:options:)` (docs/perf-study.md, "Issue
// #45, the participant page as bytes") against their plain twins: the same integers made
// `Double`s first (`BoxStats(values:)`, `Charts.boxPlot(groups:options:)`), compared bit
// for bit and byte for byte.

private func sameBits(_ a: BoxStats?, _ b: BoxStats?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    let x = [a.min, a.q1, a.median, a.q3, a.max, a.mean, a.lowerWhisker, a.upperWhisker] + a.outliers
    let y = [b.min, b.q1, b.median, b.q3, b.max, b.mean, b.lowerWhisker, b.upperWhisker] + b.outliers
    return a.count == b.count && a.outliers.count == b.outliers.count && x.map(\.bitPattern) == y.map(\.bitPattern)
}

private func plainly(_ values: [Int]) -> BoxStats? { BoxStats(values: values.map(Double.init)) }

struct BoxStatsWholeTwinTests {
    /// Empty, one value, two, ties, all equal, outliers on one or both sides, negatives,
    /// the counting bounds (a span of 4 × the count and of 65,536), magnitudes at 2^52
    /// (the `Double` path's bound) and past 2^53 (where a `Double` rounds), the sum's bound,
    /// `Int.min` and `Int.max`, and a huge list.
    @Test func edgeListsAsTheDoublePath() {
        let b = 1 << 52
        let lists: [[Int]] = [
            [], [7], [0], [-3], [b], [-b], [b - 1], [1 - b], [1, 2], [2, 1], [5, 5], [5, 5, 5, 5, 5], [1, 1, 1, 100],
            [-100, 1, 1, 1, 2, 3, 400],
            [-1, 1], [-2, -1, 0, 1, 2], [0, 7], [0, 8], [0, 11, 3], [0, 65_535] + Array(repeating: 1, count: 20_000),
            [0, 65_536] + Array(repeating: 1, count: 20_000), [b - 1, b - 2, b - 3], [b, b - 1], [-b + 1, -b + 3],
            [-b, -b + 1], [(1 << 53) + 1, 1 << 53], [Int.max, Int.max - 1], [Int.min, Int.min + 1], [Int.min, Int.max],
            Array(repeating: 1 << 43, count: 1_023), Array(repeating: 1 << 43, count: 1_024),
            Array(repeating: 1 << 43, count: 1_023) + [(1 << 43) + 1], (0..<1_000).map { $0 % 37 },
            (0..<999).map { ($0 * 7_919) % 2_000 - 1_000 }, (0..<400_000).map { ($0 * 7_919) % 1_000 + 30 },
        ]
        for v in lists {
            #expect(sameBits(BoxStats(whole: v), plainly(v)), "\(v.prefix(8)) (\(v.count))")
            let counted = BoxStats.fromCounts(whole: v)
            // Counted exactly where the `Double` path counts.
            #expect((counted == nil) == (BoxStats.fromCounts(v.map(Double.init)) == nil), "\(v.prefix(8))")
            if let counted { #expect(sameBits(counted, plainly(v)), "\(v.prefix(8))") }
        }
        #expect(BoxStats.fromCounts(whole: [7]) != nil)
        #expect(BoxStats.fromCounts(whole: [0, 8]) == nil)
        #expect(BoxStats.fromCounts(whole: [b, b - 1]) == nil)
    }

    /// 5,000 random lists like a participant's keystroke intervals (one to thousands of
    /// whole milliseconds, far outliers, negative intervals), short lists, and lists
    /// around the counting bounds.
    @Test func randomListsAsTheDoublePath() {
        var g = SplitMix64(seed: 4_545)
        var counted = 0
        for run in 0..<5_000 {
            let n = g.next() % 4 == 0 ? Int(1 + g.next() % 8) : Int.random(in: 1...3_000, using: &g)
            var v = (0..<n).map { _ in Int.random(in: 40...400, using: &g) }
            if run % 3 == 0 {
                for _ in 0..<Int(g.next() % 5) { v[Int(g.next() % UInt64(n))] = Int(g.next() % 20_000) - 500 }
            }
            if run % 7 == 0 { v[0] = v[0] + 4 * n }
            if run % 11 == 0 { v.append(Int(truncatingIfNeeded: g.next())) }
            if BoxStats.fromCounts(whole: v) != nil { counted += 1 }
            #expect(sameBits(BoxStats(whole: v), plainly(v)), "run \(run): \(v.prefix(8)) (\(v.count))")
        }
        #expect(counted > 2_000)   // (the rest: spans too wide to count, as the `Double` path)
    }

    /// The box plot of whole groups equals the box plot of the same groups as `Double`s:
    /// names with `é` as one scalar and as e + U+0301, CR LF, markup, a long name, empty
    /// groups (left out by the page, drawn here), one value, ties, huge values.
    @Test func boxPlotAsTheDoubleGroups() {
        var g = SplitMix64(seed: 4_546)
        let names = ["hold", "caf\u{E9}", "cafe\u{301}", "a\r\nb", "a <b> & 'c'",
                     String(repeating: "up-up ", count: 40)]
        for run in 0..<300 {
            let groups = names.enumerated().map { i, name in
                (name: name, values: (0..<[0, 1, 2, 40, 900][(run + i) % 5]).map { _ -> Int in
                    run % 50 == 0 ? Int(truncatingIfNeeded: g.next())
                        : g.next() % 30 == 0 ? Int(g.next() % 3_000) : Int(60 + g.next() % 200)
                })
            }.prefix(1 + run % names.count)
            let options = ChartOptions(title: "Keystroke dynamics", description: "d", yLabel: "ms")
            let asDoubles = groups.map { BoxGroup(name: $0.name, values: $0.values.map(Double.init)) }
            #expect(Charts.boxPlot(wholeGroups: Array(groups), options: options)
                        == Charts.boxPlot(groups: asDoubles, options: options), "run \(run)")
        }
    }
}
