import Foundation
import Testing
@testable import Render
import SplitMix64

// The scatter's and the timeline's tooltips written as bytes against their plain twins,
// the same text joined from strings (docs/perf-study.md, "Issue #45, the study build:
// charts written as bytes").

struct ChartTooltipTwinTests {
    private static let texts = ["", "field 3", "correct", "a <b> & \"c\"", "é — ü", "日本語のラベル", "🙂 x",
                                "String 10", "Memorize 2", "a label longer than any buffer the writer starts with "
                                    + "so that it has to grow once or twice on the way"]

    private static func number(_ g: inout SplitMix64) -> Double {
        switch g.next() % 6 {
        case 0: return [0, -0.0, 0.004, -0.005, 0.015, 1e15, -1e300, .nan, .infinity, -.infinity][Int(g.next() % 10)]
        case 1: return Double(Int.random(in: -1_000...100_000, using: &g))
        case 2: return Double(Int.random(in: 0...3_600_000, using: &g)) / 1000
        case 3: return Double.random(in: -1e-3...1e-3, using: &g)
        default: return Double(bitPattern: g.next())
        }
    }

    /// 30,000 points: labels missing, empty, escaped, non-ASCII and long; x given or taken
    /// from `xValue`; numbers whole, thousandths, tiny, huge, negative and non-finite.
    @Test func scatterTooltipAsItsStringTwin() {
        var g = SplitMix64(seed: 4_501)
        for _ in 0..<30_000 {
            let label: String? = g.next() % 4 == 0 ? nil : Self.texts[Int(g.next() % UInt64(Self.texts.count))]
            let p = XYPoint(x: Self.number(&g), y: Self.number(&g), label: label,
                            xValue: g.next() % 2 == 0 ? nil : Self.number(&g))
            let series = Self.texts[Int(g.next() % UInt64(Self.texts.count))], many = g.next() % 2 == 0
            let bytes = XYChart.tooltip(p, series: series, many: many)
            #expect(bytes == XYChart.tooltipByStrings(p, series: series, many: many), "\(p) \(series) \(many)")
        }
    }

    /// 30,000 spans: lanes, labels and categories empty, escaped, non-ASCII and long;
    /// instants (a = b) and spans.
    @Test func timelineTooltipAsItsStringTwin() {
        var g = SplitMix64(seed: 4_502)
        func text() -> String { Self.texts[Int(g.next() % UInt64(Self.texts.count))] }
        for _ in 0..<30_000 {
            let a = Self.number(&g), b = g.next() % 4 == 0 ? a : Self.number(&g)
            let span = TimelineSpan(start: a, end: b, label: text(), category: text())
            let lane = text()
            #expect(TimelineChart.tooltip(lane, span, a, b) == TimelineChart.tooltipByStrings(lane, span, a, b),
                    "\(lane) \(span)")
        }
    }
}
