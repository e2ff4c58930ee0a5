#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Histogram (see ``Charts/histogram(values:options:bins:overlay:)``); bins from
/// ``HistogramBins``.
enum HistogramChart {
    static func canvas(values: [Double], options: ChartOptions, bins: Int?, overlay: XYSeries?) -> ChartCanvas {
        let kind = "histogram"
        guard let h = HistogramBins(values: values, bins: bins) else {
            return ChartCanvas.noDataCanvas(options: options, kind: kind)
        }
        var cv = ChartCanvas(options: options, kind: kind)
        let n = h.counts.reduce(0, +)
        if let o = overlay {
            cv.legend = [LegendItem(name: "Count", key: .swatch(color: ChartStyle.color(0))),
                         LegendItem(name: o.name, key: .line(color: ChartStyle.color(3), dash: "", marker: nil))]
        }
        let overlayPoints = overlay?.points.filter { $0.x.isFinite && $0.y.isFinite } ?? []
        let top = max(Double(h.counts.max() ?? 0), overlayPoints.map(\.y).max() ?? 0)
        let yScale = NiceScale(min: options.yMin ?? 0, max: options.yMax ?? max(1, top),
                               count: max(2, Int((cv.height - 110) / 45)), integer: true)
        let xScale = NiceScale(min: options.xMin ?? h.edges.first!, max: options.xMax ?? h.edges.last!,
                               count: max(2, Int((cv.width - 100) / 90)), integer: allWhole(h.edges))
        let left = ChartCanvas.leftMargin(
            labels: yScale.ticks.map { ChartNumber.tick($0, step: yScale.step) }, yLabel: options.yLabel)
        cv.layout(left: left, right: 20, bottom: 26 + (options.xLabel.isEmpty ? 0 : 20))
        let x = LinearMap(d0: xScale.lower, d1: xScale.upper, r0: cv.plotX, r1: cv.plotX + cv.plotW)
        let y = LinearMap(d0: yScale.lower, d1: yScale.upper, r0: cv.plotY + cv.plotH, r1: cv.plotY)
        cv.valueAxisY(yScale, y: y.callAsFunction)
        cv.valueAxisX(xScale, x: x.callAsFunction, grid: false)

        let clip = "\(cv.id)-clip"
        cv.body +=
            "<clipPath id=\"\(clip)\"><rect x=\"\(c(cv.plotX))\" y=\"\(c(cv.plotY - 4))\" width=\"\(c(cv.plotW))\" "
                + "height=\"\(c(cv.plotH + 4))\"/></clipPath>"
        var marks =
            "<g class=\"bins\" clip-path=\"url(#\(clip))\" fill=\"\(ChartStyle.color(0))\" stroke=\"#ffffff\" "
                + "stroke-width=\"1\">"
        let binStep = h.edges.count > 1 ? h.edges[1] - h.edges[0] : 1
        for (i, count) in h.counts.enumerated() where count > 0 {
            let x0 = x(h.edges[i]), x1 = x(h.edges[i + 1])
            let y0 = y(yScale.lower), y1 = y(min(yScale.upper, Double(count)))
            marks +=
                "<rect x=\"\(c(x0))\" y=\"\(c(min(y0, y1)))\" width=\"\(c(max(0.5, x1 - x0)))\" "
                    + "height=\"\(c(abs(y0 - y1)))\">"
            marks += "<title>\(binLabel(h, i, step: binStep)): \(count)</title></rect>"
        }
        marks += "</g>"
        if !overlayPoints.isEmpty {
            let d = XYChart.path(overlay!.points, x: x, y: y)
            marks +=
                "<path class=\"overlay\" d=\"\(d)\" fill=\"none\" stroke=\"\(ChartStyle.color(3))\" stroke-width=\"2\" "
                    + "stroke-linejoin=\"round\" "
                    + "clip-path=\"url(#\(clip))\"><title>\(SVGText.escape(overlay!.name))</title></path>"
        }
        cv.body += marks
        cv.axisFrame()

        if cv.wantsSummary {
            let ruleText =
                h.rule == "given"
                ? "as requested" : "by the \(h.rule == "sturges" ? "Sturges" : "Freedman–Diaconis") rule"
            cv.summary.append(
                "Histogram of \(n) value\(n == 1 ? "" : "s") in \(h.counts.count) bin\(h.counts.count == 1 ? "" : "s") "
                    + "of width \(ChartNumber.shown(binStep)) (\(ruleText)); \(ChartSummary.stats(values))."
            )
            cv.summary.append(
                ChartSummary.list(
                    head: "Counts", items: h.counts.indices.map { "\(binLabel(h, $0, step: binStep)) \(h.counts[$0])" },
                    limit: 50))
            if let o = overlay { cv.summary.append("Overlay: \(o.name).") }
        }
        return cv
    }

    /// "[a, b)" (the last bin "[a, b]"), numbers with enough decimals for the bin width.
    static func binLabel(_ h: HistogramBins, _ i: Int, step: Double) -> String {
        let a = fmt(h.edges[i], step), b = fmt(h.edges[i + 1], step)
        return i == h.counts.count - 1 ? "[\(a), \(b)]" : "[\(a), \(b))"
    }

    private static func fmt(_ v: Double, _ step: Double) -> String {
        let d = min(4, max(0, Int(ceil(-log10(max(step, 1e-12)))) + 1))
        var s = ChartNumber.fixed(v, decimals: d)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s
    }
}
