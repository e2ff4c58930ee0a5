#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Grouped bar chart (see ``Charts/bar(categories:series:options:horizontal:)``).
enum BarChart {
    /// `tips`: ``tooltips(categories:series:)`` when the caller has them already (both
    /// drawings of ``Charts/responsiveWritten(_:_:)`` share them).
    static func canvas(categories: [String], series: [BarSeries], options: ChartOptions, horizontal: Bool,
                       tips given: [[String?]]? = nil) -> ChartCanvas {
        let kind = "bar"
        let finite = series.flatMap { $0.values.prefix(categories.count).compactMap { $0 }.filter(\.isFinite) }
        guard !categories.isEmpty, !series.isEmpty, !finite.isEmpty else {
            return ChartCanvas.noDataCanvas(options: options, kind: kind)
        }
        var cv = ChartCanvas(options: options, kind: kind)
        if series.count > 1 {
            cv.legend = series.enumerated().map {
                LegendItem(name: $0.element.name, key: .swatch(color: ChartStyle.color($0.offset)))
            }
        }
        // Value range always includes 0 (bars grow from 0).
        let lo = options.yMin ?? min(0, finite.min()!)
        let hi = options.yMax ?? max(0, finite.max()!)
        let valueLength = horizontal ? cv.width - 120 : cv.height - 100
        let scale = NiceScale(min: lo, max: hi, count: max(2, Int(valueLength / (horizontal ? 80 : 45))),
                              integer: allWhole(finite))
        let tickLabels = scale.ticks.map { ChartNumber.tick($0, step: scale.step) }
        let n = categories.count, s = series.count
        let tips = given ?? tooltips(categories: categories, series: series)
        let xTitle = options.xLabel.isEmpty ? 0.0 : 20.0

        // The two orientations are two blocks, each read as the picture it draws: x along the
        // bands and y along the values, or the other way round. What they share (the bands'
        // arithmetic, the rect's attributes, ticks, tooltips, marks, summary) is one code.
        if !horizontal {
            var left = ChartCanvas.leftMargin(labels: tickLabels, yLabel: options.yLabel)
            let band = (cv.width - left - 16) / Double(n)
            let fit = ChartCanvas.categoryLabelFit(categories, band: band)
            left = max(left, fit.overhang - band / 2 + 6)
            cv.layout(left: left, right: 16, bottom: fit.height + xTitle + 6)
            let y = LinearMap(d0: scale.lower, d1: scale.upper, r0: cv.plotY + cv.plotH, r1: cv.plotY)
            cv.valueAxisY(scale, y: y.callAsFunction)
            let bands = BarBands(start: cv.plotX, length: cv.plotW, count: n, series: s)
            cv.body += barMarksWritten(series, count: n, scale: scale, tips: tips) { si, ci, v, vv, base in
                let x = bands.barStart(category: ci, series: si), y0 = y(base), y1 = y(vv)
                let rect = BarRect(x: x, y: min(y0, y1), width: max(0.5, bands.bar - 1), height: abs(y1 - y0))
                guard options.showValues else { return (rect, nil) }
                let ty = v >= 0 ? y1 - 4 : y1 + 12
                return (rect, "<text x=\"\(c(x + bands.bar / 2))\" y=\"\(c(ty))\" text-anchor=\"middle\" "
                            + "font-size=\"11\" fill=\"\(ChartStyle.ink)\">\(ChartNumber.shown(v))</text>")
            }
            cv.categoryAxisX(categories, centers: bands.centers, rotate: fit.rotate)
            cv.axisFrame(xTitleOffset: fit.height + 14)
        } else {
            let left = ChartCanvas.leftMargin(
                labels: categories.map { SVGText.truncate($0, max: 28) }, yLabel: options.yLabel)
            cv.layout(left: left, right: 24, bottom: 26 + xTitle)
            let x = LinearMap(d0: scale.lower, d1: scale.upper, r0: cv.plotX, r1: cv.plotX + cv.plotW)
            cv.valueAxisX(scale, x: x.callAsFunction)
            let bands = BarBands(start: cv.plotY, length: cv.plotH, count: n, series: s)
            cv.body += barMarksWritten(series, count: n, scale: scale, tips: tips) { si, ci, v, vv, base in
                let yy = bands.barStart(category: ci, series: si), x0 = x(base), x1 = x(vv)
                let rect = BarRect(x: min(x0, x1), y: yy, width: abs(x1 - x0), height: max(0.5, bands.bar - 1))
                guard options.showValues else { return (rect, nil) }
                let tx = v >= 0 ? x1 + 4 : x1 - 4
                return (
                    rect,
                    "<text x=\"\(c(tx))\" y=\"\(c(yy + bands.bar / 2))\" dy=\"0.32em\" "
                        + "text-anchor=\"\(v >= 0 ? "start" : "end")\" "
                        + "font-size=\"11\" fill=\"\(ChartStyle.ink)\">\(ChartNumber.shown(v))</text>"
                )
            }
            cv.categoryAxisY(categories, centers: bands.centers)
            cv.axisFrame(xTitleOffset: 38)
        }
        if cv.wantsSummary {
            cv.summary.append("Bar chart of \(n) categor\(n == 1 ? "y" : "ies")\(s > 1 ? " and \(s) series" : "").")
            for ser in series {
                let pairs = (0..<n).map { ci -> String in
                    let v = ci < ser.values.count ? ser.values[ci] : nil
                    return categories[ci] + " " + (v.flatMap { $0.isFinite ? ChartNumber.shown($0) : nil } ?? "n/a")
                }
                cv.summary.append(ChartSummary.list(head: s > 1 ? ser.name : "Values", items: pairs))
            }
        }
        return cv
    }

    /// Each bar's tooltip, escaped, by series and category index; nil where the bar is
    /// not drawn (no finite value).
    static func tooltips(categories: [String], series: [BarSeries]) -> [[String?]] {
        series.map { ser in
            categories.indices.map { ci -> String? in
                guard ci < ser.values.count, let v = ser.values[ci], v.isFinite else { return nil }
                return SVGText.escape(tip(categories[ci], ser.name, v, series.count))
            }
        }
    }

    static func tip(_ category: String, _ series: String, _ v: Double, _ count: Int) -> String {
        (count > 1 ? "\(category) — \(series): " : "\(category): ") + ChartNumber.shown(v)
    }
}

/// Plain-text data summaries for `<desc>`.
enum ChartSummary {
    /// "Head: a, b, c." — at most `limit` items, then "and N more".
    static func list(head: String, items: [String], limit: Int = 40) -> String {
        var parts = Array(items.prefix(limit))
        if items.count > limit { parts.append("and \(items.count - limit) more") }
        return head + ": " + parts.joined(separator: ", ") + "."
    }

    /// "n 12, min 1, mean 3.5, max 9".
    static func stats(_ values: [Double]) -> String {
        let v = values.filter(\.isFinite)
        guard let lo = v.min(), let hi = v.max() else { return "no values" }
        return
            "n \(v.count), min \(ChartNumber.shown(lo)), mean \(ChartNumber.shown(v.reduce(0, +) / Double(v.count))), "
                + "max \(ChartNumber.shown(hi))"
    }
}

/// The category axis of a bar chart: `count` equal bands from `start` over `length`, each
/// holding one bar per series side by side in its middle 80 %.
struct BarBands {
    let start: Double, band: Double, bar: Double, count: Int

    init(start: Double, length: Double, count: Int, series: Int) {
        self.start = start
        self.count = count
        band = length / Double(count)
        bar = band * 0.8 / Double(series)
    }

    /// Where series `si`'s bar in category `ci` begins along the category axis.
    func barStart(category ci: Int, series si: Int) -> Double {
        start + Double(ci) * band + band * 0.1 + Double(si) * bar
    }

    /// The middle of each band: where its category label stands.
    var centers: [Double] { (0..<count).map { start + (Double($0) + 0.5) * band } }
}

/// A bar's `<rect>` position and size, in user units (written by ``c(_:)``).
struct BarRect {
    var x: Double, y: Double, width: Double, height: Double

    /// The `<rect>`'s position and size attributes as text (``BarChart/barMarks``).
    var attributes: String { "x=\"\(c(x))\" y=\"\(c(y))\" width=\"\(c(width))\" height=\"\(c(height))\"" }
}

extension BarChart {
    /// The bar's value and its tooltip's drawing, by series `si` and category `ci`: the
    /// value, the value clamped to the scale and the clamped base (0) in, the `<rect>`'s
    /// position and the value label (if shown) out.
    typealias DrawBar = (Int, Int, Double, Double, Double) -> (rect: BarRect, label: String?)

    /// The bars of every series, one `<g>` per series, written as bytes (``SVGWriter``):
    /// the same text as ``barMarks(_:count:scale:tips:_:)``, its plain twin, without a
    /// `String` append per piece (about 500 a drawing, 0.8 % of a study build's
    /// instructions; `BarMarksTwinTests`). Handed over as the writer, copied into the
    /// drawing as bytes: made a `String`, its bytes were checked as UTF-8 (≈ 10
    /// instructions a byte, the tooltips' non-ASCII characters among them) only to be
    /// copied back.
    static func barMarksWritten(_ series: [BarSeries], count n: Int, scale: NiceScale, tips: [[String?]],
                                _ bar: DrawBar) -> SVGWriter {
        let base = min(scale.upper, max(scale.lower, 0))
        var marks = SVGWriter(capacity: 256 + 160 * n * series.count)
        marks.write(literal: "<g class=\"bars\">")
        for (si, ser) in series.enumerated() {
            marks.write(literal: "<g class=\"series\" fill=\"")
            marks.write(raw: ChartStyle.color(si))
            marks.write(literal: "\">")
            for ci in 0..<n {
                guard ci < ser.values.count, let v = ser.values[ci], v.isFinite else { continue }
                let drawn = bar(si, ci, v, min(scale.upper, max(scale.lower, v)), base)
                let r = drawn.rect
                marks.write(literal: "<rect x=\"")
                marks.write(coordinate: r.x)
                marks.write(literal: "\" y=\"")
                marks.write(coordinate: r.y)
                marks.write(literal: "\" width=\"")
                marks.write(coordinate: r.width)
                marks.write(literal: "\" height=\"")
                marks.write(coordinate: r.height)
                marks.write(literal: "\"><title>")
                if let tip = tips[si][ci] { marks.write(raw: tip) }
                marks.write(literal: "</title></rect>")
                if let label = drawn.label { marks.write(raw: label) }
            }
            marks.write(literal: "</g>")
        }
        marks.write(literal: "</g>")
        return marks
    }

    /// The bars of every series, one `<g>` per series, as `String` appends: the plain twin
    /// of ``barMarksWritten(_:count:scale:tips:_:)``, kept for the tests.
    static func barMarks(_ series: [BarSeries], count n: Int, scale: NiceScale, tips: [[String?]],
                         _ bar: DrawBar) -> String {
        let base = min(scale.upper, max(scale.lower, 0))
        var marks = "<g class=\"bars\">"
        for (si, ser) in series.enumerated() {
            marks += "<g class=\"series\" fill=\"\(ChartStyle.color(si))\">"
            for ci in 0..<n {
                guard ci < ser.values.count, let v = ser.values[ci], v.isFinite else { continue }
                let drawn = bar(si, ci, v, min(scale.upper, max(scale.lower, v)), base)
                marks += "<rect \(drawn.rect.attributes)><title>\(tips[si][ci] ?? "")</title></rect>"
                if let label = drawn.label { marks += label }
            }
            marks += "</g>"
        }
        return marks + "</g>"
    }
}
