import Foundation
import Testing
@testable import Render
import SplitMix64

// The chart frame written as bytes (``Charts/responsiveWritten(_:_:)`` with
// ``ChartCanvas/finish(into:)``) against its plain twin: each drawing finished as a
// `String` (``ChartCanvas/finishByStrings()``) and the frame put together from strings
// (``Charts/responsive(_:_:)``), on seeded random charts of every kind.

private func pick<T>(_ items: [T], _ g: inout SplitMix64) -> T { items[Int.random(in: 0..<items.count, using: &g)] }

/// Text as chart callers give it: plain, escaped characters, non-ASCII, a control
/// character, long enough to be truncated, empty.
private func randomText(_ g: inout SplitMix64) -> String {
    pick(["", "a", "String 3", "a & b <c> \"d\" 'e'", "Zeichenkette é ✓ 日本", "tab\there\u{1}",
          String(repeating: "long label ", count: 6), "\u{FFFE}x", "  padded  "], &g)
}

private func randomNumber(_ g: inout SplitMix64) -> Double {
    switch Int.random(in: 0..<8, using: &g) {
    case 0: return Double(Int.random(in: 0...50, using: &g))
    case 1: return Double(Int.random(in: -3_000...30_000, using: &g)) / 1000
    case 2: return pick([Double.nan, .infinity, -.infinity], &g)
    case 3: return Double.random(in: -1e9...1e9, using: &g)
    default: return Double(Int.random(in: 0...900, using: &g))
    }
}

private func randomOptions(_ g: inout SplitMix64) -> ChartOptions {
    var o = ChartOptions(
        title: randomText(&g), description: randomText(&g),
        width: pick([640, 340, 200, 500, 900, 341, .nan], &g), height: pick([320, 160, 200, 60, 500], &g),
        xLabel: randomText(&g), yLabel: randomText(&g),
        id: Bool.random(using: &g) ? nil : pick(["chart-a", "x1", "Ünicode id", ""], &g),
        dataSummary: Int.random(in: 0..<4, using: &g) != 0, showTitle: Int.random(in: 0..<4, using: &g) != 0,
        showValues: Bool.random(using: &g))
    if Int.random(in: 0..<3, using: &g) == 0 { o.yMin = 0 }
    return o
}

/// One random chart, both ways: the frame written as bytes, and its plain twin.
private func bothWays(_ g: inout SplitMix64) -> (written: String, plain: String) {
    let o = randomOptions(&g)
    let names = (0..<Int.random(in: 0...7, using: &g)).map { _ in randomText(&g) }
    let n = Int.random(in: 0...12, using: &g)
    func twice(_ canvas: (ChartOptions) -> ChartCanvas) -> (String, String) {
        (Charts.responsiveWritten(o, canvas), Charts.responsive(o) { canvas($0).finishByStrings() })
    }
    switch Int.random(in: 0..<7, using: &g) {
    case 0:
        let cats = (0..<n).map { "\($0 + 1)" } + names
        let series = names.prefix(5).map { name in
            BarSeries(name: name, values: (0..<Int.random(in: 0...cats.count + 1, using: &g)).map { _ in
                Int.random(in: 0..<6, using: &g) == 0 ? nil : randomNumber(&g) })
        }
        let horizontal = Bool.random(using: &g)
        return twice { BarChart.canvas(categories: cats, series: series, options: $0, horizontal: horizontal) }
    case 1, 2:
        let series = names.prefix(6).map { name in
            XYSeries(name: name, points: (0..<Int.random(in: 0...60, using: &g)).map { _ in
                XYPoint(x: randomNumber(&g), y: randomNumber(&g),
                        label: Bool.random(using: &g) ? nil : randomText(&g))
            })
        }
        let kind: XYChart.Kind = Bool.random(using: &g) ? .line : .scatter
        return twice { XYChart.canvas(series: series, options: $0, kind: kind, trend: series.first) }
    case 3:
        let groups = names.map { BoxGroup(name: $0, values: (0..<Int.random(in: 0...80, using: &g)).map { _ in
            randomNumber(&g) }) }
        return twice { BoxPlotChart.canvas(groups: groups, options: $0) }
    case 4:
        let lanes = names.map { name in
            TimelineLane(name: name, spans: (0..<Int.random(in: 0...6, using: &g)).map { _ in
                let a = randomNumber(&g)
                return TimelineSpan(start: a, end: Bool.random(using: &g) ? a : a + abs(randomNumber(&g)),
                                    label: randomText(&g), category: pick(["Memorize", "Verify", "", "a&b"], &g))
            })
        }
        return twice { TimelineChart.canvas(lanes: lanes, options: $0) }
    case 5:
        let values = (0..<Int.random(in: 0...200, using: &g)).map { _ in randomNumber(&g) }
        return twice { HistogramChart.canvas(values: values, options: $0, bins: nil, overlay: nil) }
    default:
        let columns = (0..<Int.random(in: 0...5, using: &g)).map { "c\($0)" }
        let values = names.map { _ in columns.map { _ in Bool.random(using: &g) ? nil : Optional(randomNumber(&g)) } }
        return twice {
            HeatmapChart.canvas(rows: names, columns: columns, values: values, options: $0, cellLabels: nil,
                                scale: .sequential)
        }
    }
}

@Test func chartFramesWrittenAsBytesAsTheirStringTwin() {
    var g = SplitMix64(seed: 45)
    for _ in 0..<1_500 {
        let (written, plain) = bothWays(&g)
        #expect(written == plain)
        if written != plain { break }
    }
}

@Test func noDataFrameWrittenAsBytesAsItsStringTwin() {
    for width in [640.0, 340, 200] {
        let o = ChartOptions(title: "Empty & <none>", description: "", width: width)
        #expect(Charts.responsiveWritten(o) { ChartCanvas.noDataCanvas(options: $0, kind: "bar") }
                == Charts.responsive(o) { ChartCanvas.noDataCanvas(options: $0, kind: "bar").finishByStrings() })
        #expect(Charts.bar(categories: [], series: [], options: o)
                == Charts.responsive(o) { ChartCanvas.noData(options: $0, kind: "bar") })
    }
}
