#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Line and scatter charts on two numeric axes
/// (see ``Charts/line(series:options:)`` and ``Charts/scatter(series:options:trend:)``).
enum XYChart {
    enum Kind { case line, scatter }

    /// Markers are drawn on lines only when a series has at most this many points.
    static let lineMarkerLimit = 60
    /// Scatter points get a hover tooltip only up to this many points in total (or when
    /// they carry a label).
    static let tooltipLimit = 500

    /// `tips`: ``tooltips(series:kind:)`` when the caller has them already (both
    /// drawings of ``Charts/responsiveWritten(_:_:)`` share them).
    static func canvas(series: [XYSeries], options: ChartOptions, kind: Kind, trend: XYSeries?,
                       tips given: [[String?]]? = nil) -> ChartCanvas {
        let kindName = kind == .line ? "line" : "scatter"
        let extent = XYExtent(series: series, trend: trend)
        guard extent.hasData else { return ChartCanvas.noDataCanvas(options: options, kind: kindName) }

        var cv = ChartCanvas(options: options, kind: kindName)
        var legend: [LegendItem] = series.enumerated().map { i, s in
            LegendItem(name: s.name, key: kind == .line
                ? .line(color: ChartStyle.color(i), dash: ChartStyle.dash(i),
                        marker: s.points.count <= lineMarkerLimit ? ChartStyle.marker(i) : nil)
                : .marker(color: ChartStyle.color(i), marker: ChartStyle.marker(i)))
        }
        if let t = trend {
            legend.append(LegendItem(name: t.name, key: .line(color: ChartStyle.ink, dash: "6 3", marker: nil)))
        }
        if legend.count > 1 { cv.legend = legend }

        let xScale = NiceScale(min: options.xMin ?? extent.xMin, max: options.xMax ?? extent.xMax,
                               count: max(2, Int((cv.width - 100) / 90)), integer: extent.xWhole)
        let yScale = NiceScale(min: options.yMin ?? extent.yMin, max: options.yMax ?? extent.yMax,
                               count: max(2, Int((cv.height - 110) / 45)), integer: extent.yWhole)
        let left = ChartCanvas.leftMargin(labels: yScale.ticks.map { ChartNumber.tick($0, step: yScale.step) },
                                          yLabel: options.yLabel)
        let lastTick = ChartNumber.tick(xScale.upper, step: xScale.step)
        cv.layout(left: left, right: max(16, ChartStyle.textWidth(lastTick, size: 11) / 2 + 4),
                  bottom: 26 + (options.xLabel.isEmpty ? 0 : 20))
        let x = LinearMap(d0: xScale.lower, d1: xScale.upper, r0: cv.plotX, r1: cv.plotX + cv.plotW)
        let y = LinearMap(d0: yScale.lower, d1: yScale.upper, r0: cv.plotY + cv.plotH, r1: cv.plotY)
        cv.valueAxisY(yScale, y: y.callAsFunction)
        cv.valueAxisX(xScale, x: x.callAsFunction)
        cv.axisFrame()

        // Marks are clipped to the plot (a forced axis range may cut data).
        let clip = "\(cv.id)-clip"
        cv.body += "<clipPath id=\"\(clip)\"><rect x=\"\(c(cv.plotX - 6))\" y=\"\(c(cv.plotY - 6))\""
        cv.body += " width=\"\(c(cv.plotW + 12))\" height=\"\(c(cv.plotH + 12))\"/></clipPath>"
        var marks = SVGWriter(capacity: 16_384)
        marks.write("<g class=\"marks\" clip-path=\"url(#\(clip))\">")
        let tips = given ?? tooltips(series: series, kind: kind)
        for (i, s) in series.enumerated() {
            let color = ChartStyle.color(i), marker = ChartStyle.marker(i)
            marks.write("<g class=\"series\">")
            if kind == .line {
                let d = path(s.points, x: x, y: y)
                if !d.isEmpty {
                    let dash = ChartStyle.dash(i)
                    marks.write("<path d=\"\(d)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"")
                    marks.write(" stroke-linejoin=\"round\" stroke-linecap=\"round\"")
                    marks.write("\(dash.isEmpty ? "" : " stroke-dasharray=\"\(dash)\"")/>")
                }
                if s.points.count <= lineMarkerLimit {
                    for (k, p) in s.points.enumerated() where p.x.isFinite && p.y.isFinite {
                        marker.draw(into: &marks, x: x(p.x), y: y(p.y), r: 3.5, fill: color,
                                    extra: " stroke=\"#ffffff\" stroke-width=\"1\"", title: tips[i][k])
                    }
                }
            } else {
                // Colour and outline on the group; a point without tooltip that lands on the
                // same rounded pixel position as an earlier one of its series is drawn once.
                marks.write("<g color=\"\(color)\" fill=\"\(color)\"")
                marks.write(" fill-opacity=\"0.8\" stroke=\"#ffffff\" stroke-width=\"0.5\">")
                var seen = Set<String>()
                for (k, p) in s.points.enumerated() where p.x.isFinite && p.y.isFinite {
                    let tip = tips[i][k]
                    let px = x(p.x), py = y(p.y)
                    if tip == nil, !seen.insert(c(px) + "," + c(py)).inserted { continue }
                    marker.draw(into: &marks, x: px, y: py, r: 3.5, fill: "", title: tip)
                }
                marks.write("</g>")
            }
            marks.write("</g>")
        }
        if let t = trend {
            let d = path(t.points, x: x, y: y)
            if !d.isEmpty {
                marks.write("<path class=\"trend\" d=\"\(d)\" fill=\"none\" stroke=\"\(ChartStyle.ink)\"")
                marks.write(" stroke-width=\"1.5\" stroke-dasharray=\"6 3\">")
                marks.write("<title>\(SVGText.escape(t.name))</title></path>")
            }
        }
        marks.write("</g>")
        cv.body += marks

        if cv.wantsSummary {
            cv.summary.append("\(kind == .line ? "Line chart" : "Scatter plot") of \(series.count) series.")
            for s in series {
                let pts = s.points.filter { $0.x.isFinite && $0.y.isFinite }
                let values = pts.map { $0.xValue ?? $0.x }
                guard let x0 = values.min(), let x1 = values.max() else {
                    cv.summary.append("\(s.name): no points.")
                    continue
                }
                cv.summary.append("\(s.name): \(pts.count) point\(pts.count == 1 ? "" : "s"), "
                                  + "x from \(ChartNumber.shown(x0)) to \(ChartNumber.shown(x1)), "
                                  + "y \(ChartSummary.stats(pts.map(\.y))).")
            }
            if let t = trend { cv.summary.append("Trend line: \(t.name).") }
        }
        return cv
    }

    /// An SVG path through the points in order; a non-finite point starts a new piece.
    static func path(_ points: [XYPoint], x: LinearMap, y: LinearMap) -> String {
        var d = SVGWriter()
        var pen = false
        for p in points {
            guard p.x.isFinite, p.y.isFinite else { pen = false; continue }
            if pen { d.write("L\(x(p.x)) \(y(p.y))") } else { d.write("M\(x(p.x)) \(y(p.y))") }
            pen = true
        }
        return d.string
    }

    /// Each point's tooltip, escaped, by series and point index; nil where the point has
    /// none: a line's points when it draws markers (at most ``lineMarkerLimit`` points),
    /// a scatter's when it has a label or the chart at most ``tooltipLimit`` points.
    static func tooltips(series: [XYSeries], kind: Kind) -> [[String?]] {
        let totalPoints = series.reduce(0) { n, s in n + s.points.count(where: { $0.x.isFinite && $0.y.isFinite }) }
        var t = SVGWriter(capacity: 256)   // one writer for every tooltip
        return series.map { s in
            s.points.map { p -> String? in
                guard p.x.isFinite, p.y.isFinite else { return nil }
                let shown = kind == .line
                    ? s.points.count <= lineMarkerLimit : p.label != nil || totalPoints <= tooltipLimit
                guard shown else { return nil }
                t.removeAll()
                writeTooltip(p, series: s.name, many: series.count > 1, into: &t)
                return SVGText.escape(t.string)
            }
        }
    }

    /// `series: ` when there are several, the label and a space, then `(x, y)`, written
    /// as bytes and made a string once: as `String` appends (``tooltipByStrings``, its
    /// plain twin) each piece cost about 340 instructions (`ChartTooltipTwinTests`).
    static func tooltip(_ p: XYPoint, series: String, many: Bool) -> String {
        var t = SVGWriter(capacity: 96)
        writeTooltip(p, series: series, many: many, into: &t)
        return t.string
    }

    /// ``tooltip(_:series:many:)`` written after what `t` holds, its numbers as digits
    /// (``SVGWriter/write(shown:)``).
    static func writeTooltip(_ p: XYPoint, series: String, many: Bool, into t: inout SVGWriter) {
        if many { t.write(raw: series); t.write(literal: ": ") }
        if let l = p.label, !l.isEmpty { t.write(raw: l); t.write(literal: " ") }
        t.write(literal: "(")
        t.write(shown: p.xValue ?? p.x)
        t.write(literal: ", ")
        t.write(shown: p.y)
        t.write(literal: ")")
    }

    /// ``tooltip(_:series:many:)`` joined from strings: its plain twin, kept for the tests.
    static func tooltipByStrings(_ p: XYPoint, series: String, many: Bool) -> String {
        let xy = "(\(ChartNumber.shown(p.xValue ?? p.x)), \(ChartNumber.shown(p.y)))"
        let head = many ? series + ": " : ""
        if let l = p.label, !l.isEmpty { return head + l + " " + xy }
        return head + xy
    }
}

/// What an XY chart's axes read from its points, in one pass over them: the least and
/// greatest x and y of the finite points of the series and the trend (as `min()` and
/// `max()` of their arrays find them), whether every x shown (`xValue` or `x`) and every y
/// is whole (``allWhole(_:)``), and whether a series has a finite point. The arrays of
/// finite points, of their x and y, and of their shown x were made and filtered for each
/// drawing, every point's label retained with them (docs/perf-study.md, "the participant
/// page's charts and tables"). `ChartPiecesTwinTests.xyExtentsAsTheArraysGiveThem`
/// compares it with ``plainly(series:trend:)``.
struct XYExtent: Equatable {
    var xMin = 0.0, xMax = 0.0, yMin = 0.0, yMax = 0.0
    var xWhole = true, yWhole = true
    var hasData = false

    init(series: [XYSeries], trend: XYSeries?) {
        var any = false
        func add(_ points: [XYPoint], data: Bool) {
            for p in points where p.x.isFinite && p.y.isFinite {
                if !any {
                    xMin = p.x; xMax = p.x; yMin = p.y; yMax = p.y
                    any = true
                } else {
                    if p.x < xMin { xMin = p.x }
                    if xMax < p.x { xMax = p.x }
                    if p.y < yMin { yMin = p.y }
                    if yMax < p.y { yMax = p.y }
                }
                let shown = p.xValue ?? p.x
                if xWhole, shown.isFinite, shown != shown.rounded() { xWhole = false }
                if yWhole, p.y != p.y.rounded() { yWhole = false }
                if data { hasData = true }
            }
        }
        for s in series { add(s.points, data: true) }
        if let trend { add(trend.points, data: false) }
        if !any { xWhole = false; yWhole = false }
    }

    init() {}

    /// The plain twin, kept for the tests: the arrays of points and numbers the chart made.
    static func plainly(series: [XYSeries], trend: XYSeries?) -> XYExtent {
        let all = (series + (trend.map { [$0] } ?? [])).flatMap(\.points).filter { $0.x.isFinite && $0.y.isFinite }
        let dataPoints = series.flatMap(\.points).filter { $0.x.isFinite && $0.y.isFinite }
        var e = XYExtent()
        let xs = all.map(\.x), ys = all.map(\.y)
        e.hasData = !dataPoints.isEmpty
        e.xMin = xs.min() ?? 0; e.xMax = xs.max() ?? 0; e.yMin = ys.min() ?? 0; e.yMax = ys.max() ?? 0
        e.xWhole = allWhole(all.map { $0.xValue ?? $0.x })
        e.yWhole = allWhole(ys)
        return e
    }
}
