import Testing
@testable import Render
import SplitMix64

// `BoxStats.fromCounts` (docs/perf-study.md, "Issue #45, the participant page's charts and
// tables") against its plain twin: the statistics of the finite values sorted by the
// standard library's sort, compared bit for bit.

private func plainStats(_ values: [Double]) -> BoxStats? {
    BoxStats(sortedFinite: values.filter(\.isFinite).sorted())
}

private func sameBits(_ a: BoxStats?, _ b: BoxStats?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    let x = [a.min, a.q1, a.median, a.q3, a.max, a.mean, a.lowerWhisker, a.upperWhisker] + a.outliers
    let y = [b.min, b.q1, b.median, b.q3, b.max, b.mean, b.lowerWhisker, b.upperWhisker] + b.outliers
    return a.count == b.count && a.outliers.count == b.outliers.count && x.map(\.bitPattern) == y.map(\.bitPattern)
}

struct BoxStatsCountingTests {
    /// Edge lists: empty, one value, two, ties, all equal, outliers on one side and on
    /// both, a zero mean from negatives, the span's bounds (4 × the count, 65,536), huge
    /// magnitudes (the sum's bound, 2^52), −0, non-finite values and fractions (the
    /// counted path declines those; ``BoxStats/init(values:)`` then sorts).
    @Test func edgeListsAsTheSortedPath() {
        let big = 0x1p52 - 1
        let lists: [[Double]] = [
            [], [7], [0], [-3], [1, 2], [2, 1], [5, 5], [5, 5, 5, 5, 5], [1, 1, 1, 100], [-100, 1, 1, 1, 2, 3, 400],
            [-1, 1], [-2, -1, 0, 1, 2], [0, 7], [0, 8], [0, 11, 3], [0, 65_535] + Array(repeating: 1, count: 20_000),
            [0, 65_536] + Array(repeating: 1, count: 20_000), [big, big - 1, big - 2], [-big, -big + 3],
            Array(repeating: 0x1p43, count: 2_000), Array(repeating: 0x1p43, count: 1_023) + [0x1p43 + 1],
            [0, -0.0, 1], [-0.0], [1, .nan, 2], [.infinity, 1], [-.infinity], [.nan], [1.5, 2], [1, 2, 2.25],
            [1e300, 1], (0..<1_000).map { Double($0 % 37) }, (0..<999).map { Double(($0 * 7_919) % 2_000 - 1_000) },
        ]
        for v in lists {
            #expect(sameBits(BoxStats(values: v), plainStats(v)), "\(v.prefix(8)) (\(v.count))")
            if let counted = BoxStats.fromCounts(v) { #expect(sameBits(counted, plainStats(v)), "\(v.prefix(8))") }
        }
        #expect(BoxStats.fromCounts([]) == nil)
        #expect(BoxStats.fromCounts([7]) != nil)
        #expect(BoxStats.fromCounts([0, 7]) != nil)
        #expect(BoxStats.fromCounts([0, 8]) == nil)
        #expect(BoxStats.fromCounts([0, -0.0, 1]) == nil)
        #expect(BoxStats.fromCounts([1, .nan]) == nil)
        #expect(BoxStats.fromCounts(Array(repeating: 0x1p43, count: 1_024)) == nil)
    }

    /// 5,000 random lists like a participant's keystroke intervals (whole milliseconds, one
    /// to thousands of them, with far outliers), and lists around the counting bounds with
    /// a few −0, non-finite values and fractions.
    @Test func randomListsAsTheSortedPath() {
        var g = SplitMix64(seed: 4_514)
        var counted = 0
        for run in 0..<5_000 {
            // (One in four short: below five values the quartiles share order statistics.)
            let n = g.next() % 4 == 0 ? Int(1 + g.next() % 8) : Int.random(in: 1...3_000, using: &g)
            var v: [Double]
            if run % 2 == 0 {
                v = (0..<n).map { _ in Double(Int.random(in: 40...400, using: &g)) }
                for _ in 0..<Int(g.next() % 5) where !v.isEmpty {
                    v[Int.random(in: 0..<v.count, using: &g)] = Double(Int.random(in: -50...1_500, using: &g))
                }
            } else {
                let span = [0, 1, n / 2, 4 * n - 1, 4 * n, 65_535, 65_536][Int(g.next() % 7)]
                let lo = [0, -40, 30, -70_000, 1 << 40][Int(g.next() % 5)]
                v = (0..<n).map { _ in Double(lo + Int.random(in: 0...span, using: &g)) }
                v[0] = Double(lo)
                v[n - 1] = Double(lo + span)
                switch g.next() % 6 {
                case 0: v[Int.random(in: 0..<n, using: &g)] = -0.0
                case 1: v[Int.random(in: 0..<n, using: &g)] = [.nan, .infinity, -.infinity][Int(g.next() % 3)]
                case 2: v[Int.random(in: 0..<n, using: &g)] = Double(lo) + 0.5
                default: break
                }
            }
            if let fast = BoxStats.fromCounts(v) {
                counted += 1
                #expect(sameBits(fast, plainStats(v)), "run \(run)")
            }
            #expect(sameBits(BoxStats(values: v), plainStats(v)), "run \(run)")
        }
        #expect(counted > 2_000)
    }

    /// The box plot drawn with the counted statistics equals the one drawn with the sorted
    /// path's: groups named with `é` as one scalar and as e + U+0301, escaped names, an
    /// empty group, one value, ties.
    @Test func boxPlotAsDrawnFromTheSortedPath() {
        var g = SplitMix64(seed: 4_515)
        let names = ["hold", "caf\u{E9}", "cafe\u{301}", "a <b> & 'c'", "up-up"]
        for run in 0..<300 {
            let groups = names.enumerated().map { i, name in
                BoxGroup(name: name, values: (0..<[0, 1, 2, 40, 900][(run + i) % 5]).map { _ in
                    g.next() % 30 == 0 ? Double(g.next() % 3_000) : Double(60 + g.next() % 200)
                })
            }
            let options = ChartOptions(title: "Keystroke dynamics", description: "d", yLabel: "ms")
            let plain = groups.map { plainStats($0.values) }
            let described = plain.map { $0.map(BoxPlotChart.describe) }
            let reference = Charts.responsive(options) {
                BoxPlotChart.render(groups: groups, options: $0, stats: plain, described: described)
            }
            #expect(Charts.boxPlot(groups: groups, options: options) == reference, "run \(run)")
        }
    }

    /// A group's description written as bytes (``BoxPlotChart/describe(_:)``) as its plain
    /// twin: no outliers, one, ten, eleven, many; whole, fractional, negative, huge and tiny
    /// statistics.
    @Test func descriptionsAsWrittenPlainly() {
        var g = SplitMix64(seed: 4_523)
        let lists: [[Double]] = [[7], [1, 2], [-5, -5, -4.5, 1e14, -1e300, 0.001], (0..<30).map { Double($0) } + [900],
                                 (0..<40).map { Double($0 % 5) } + (0..<10).map { 1_000 + Double($0) },
                                 (0..<40).map { Double($0 % 5) } + (0..<11).map { -1_000 - Double($0) / 3 }]
        var all = lists
        for _ in 0..<2_000 {
            all.append((0..<Int(1 + g.next() % 200)).map { _ in
                g.next() % 12 == 0 ? Double(Int(g.next() % 9_000)) - 4_000 : Double(g.next() % 400) / 4
            })
        }
        for v in all {
            guard let s = BoxStats(values: v) else { continue }
            #expect(BoxPlotChart.describe(s) == BoxPlotChart.describePlainly(s), "\(v.prefix(6))")
        }
    }
}
