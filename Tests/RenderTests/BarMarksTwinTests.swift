import Foundation
import Testing
@testable import Render
import SplitMix64

// The bar chart's marks written as bytes (`BarChart.barMarksWritten`) against its plain
// twin (`BarChart.barMarks`, the `String` appends it replaced): docs/perf-study.md,
// "Issue #45, the study build: charts written as bytes".

struct BarMarksTwinTests {
    /// 3,000 random bar sets: one to six series of one to twelve categories, values
    /// missing, non-finite, negative, huge and tiny, series shorter than the categories;
    /// rectangles at coordinates that round to zero, ties of the third decimal, huge and
    /// non-finite; tooltips missing, empty, escaped and non-ASCII; value labels or none.
    @Test func barMarksWrittenAsTheirStringTwin() {
        var g = SplitMix64(seed: 45)
        let coords: [Double] = [0, -0.0, 0.004, -0.005, 0.015, 12.345, 639.999, 1e15, -1e300, .nan, .infinity]
        func coordinate() -> Double {
            switch g.next() % 4 {
            case 0: return coords[Int(g.next() % UInt64(coords.count))]
            case 1: return Double.random(in: -50...700, using: &g)
            case 2: return (Double(Int.random(in: -100_000...100_000, using: &g)) + 0.5) / 100
            default: return Double(bitPattern: g.next())
            }
        }
        let tipTexts = ["", "3: 12", "string 4 — re-keys: 2", "a &amp; b", "é — ü: −1.5", "😀 field 10: 0.25"]
        for round in 0..<3_000 {
            let n = Int.random(in: 1...12, using: &g), s = Int.random(in: 1...6, using: &g)
            let series = (0..<s).map { k in
                BarSeries(name: "s\(k)", values: (0..<Int.random(in: 0...(n + 2), using: &g)).map { _ -> Double? in
                    switch g.next() % 8 {
                    case 0: return nil
                    case 1: return [Double.nan, .infinity, -.infinity][Int(g.next() % 3)]
                    case 2: return -Double.random(in: 0...1e6, using: &g)
                    default: return Double(Int.random(in: 0...40, using: &g))
                    }
                })
            }
            let tips: [[String?]] = series.map { ser in
                (0..<max(n, ser.values.count)).map { _ in
                    g.next() % 5 == 0 ? nil : tipTexts[Int(g.next() % UInt64(tipTexts.count))]
                }
            }
            let scale = NiceScale(min: -Double(round % 7), max: 40, count: 5)
            let labels = round % 3 == 0
            // The same drawing for both: rectangles and labels fixed per bar.
            var drawn: [String: (BarRect, String?)] = [:]
            let bar: BarChart.DrawBar = { si, ci, v, _, _ in
                let key = "\(si),\(ci)"
                if let d = drawn[key] { return (rect: d.0, label: d.1) }
                let r = BarRect(x: coordinate(), y: coordinate(), width: coordinate(), height: coordinate())
                let x = ChartNumber.coord(coordinate())
                let label = labels ? "<text x=\"\(x)\">\(ChartNumber.shown(v))</text>" : nil
                drawn[key] = (r, label)
                return (rect: r, label: label)
            }
            let written = BarChart.barMarksWritten(series, count: n, scale: scale, tips: tips, bar).string
            let plain = BarChart.barMarks(series, count: n, scale: scale, tips: tips, bar)
            #expect(written == plain, "round \(round)")
        }
    }

    /// A whole bar chart (both drawings, value labels or not, both orientations) draws a
    /// bar with its tooltip for each finite value and none for a missing one.
    @Test func barChartsKeepTheirMarks() {
        let categories = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
        let series = [BarSeries(name: "incorrect entries", values: [0, 1, 2, nil, 4, 0, 0, 3, .nan, 1]),
                      BarSeries(name: "re-keys", values: [1, 0, 0, 2, 0, 0, 5, 0, 0, 1])]
        for horizontal in [false, true] {
            for showValues in [false, true] {
                var options = ChartOptions(title: "Errors", description: "Counts.", xLabel: "string", yLabel: "count")
                options.showValues = showValues
                let chart = Charts.bar(categories: categories, series: series, options: options,
                                       horizontal: horizontal)
                #expect(chart.contains("<rect x=\""))
                #expect(chart.contains("<title>7 — re-keys: 5</title></rect>"))
                #expect(!chart.contains("<title>4 — incorrect entries"))   // a missing value draws no bar
            }
        }
    }
}
