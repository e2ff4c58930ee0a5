#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Box plot (see ``Charts/boxPlot(groups:options:)``); numbers from ``BoxStats``.
enum BoxPlotChart {
    /// `stats`: the groups' ``BoxStats`` when the caller has them already (both
    /// drawings of ``Charts/responsiveWritten(_:_:)`` share one computation: sorting every
    /// value was most of a box plot). `described`: ``describe(_:)`` of each, shared
    /// the same way.
    static func canvas(groups: [BoxGroup], options: ChartOptions, stats given: [BoxStats?]? = nil,
                       described givenText: [String?]? = nil) -> ChartCanvas {
        let kind = "boxplot"
        let stats = given ?? groups.map { BoxStats(values: $0.values) }
        let described = givenText ?? stats.map { $0.map(describe) }
        let present = stats.compactMap { $0 }
        guard !present.isEmpty else { return ChartCanvas.noDataCanvas(options: options, kind: kind) }
        var cv = ChartCanvas(options: options, kind: kind)
        let lo = options.yMin ?? present.map(\.min).min()!
        let hi = options.yMax ?? present.map(\.max).max()!
        let scale = NiceScale(min: lo, max: hi, count: max(2, Int((cv.height - 110) / 45)))
        var left = ChartCanvas.leftMargin(labels: scale.ticks.map { ChartNumber.tick($0, step: scale.step) },
                                          yLabel: options.yLabel)
        let names = groups.map(\.name)
        let band0 = (cv.width - left - 16) / Double(groups.count)
        let fit = ChartCanvas.categoryLabelFit(names, band: band0)
        left = max(left, fit.overhang - band0 / 2 + 6)
        cv.layout(left: left, right: 16, bottom: fit.height + (options.xLabel.isEmpty ? 0 : 20) + 6)
        let y = LinearMap(d0: scale.lower, d1: scale.upper, r0: cv.plotY + cv.plotH, r1: cv.plotY)
        cv.valueAxisY(scale, y: y.callAsFunction)
        let band = cv.plotW / Double(groups.count)
        let boxW = min(80, band * 0.5)
        let color = ChartStyle.color(0), outlierColor = ChartStyle.color(3)
        let meanStroke = " stroke=\"\(ChartStyle.ink)\" stroke-width=\"1.2\""

        let clip = "\(cv.id)-clip"
        cv.body += "<clipPath id=\"\(clip)\"><rect x=\"\(c(cv.plotX))\" y=\"\(c(cv.plotY - 6))\""
        cv.body += " width=\"\(c(cv.plotW))\" height=\"\(c(cv.plotH + 12))\"/></clipPath>"
        var marks = SVGWriter(capacity: 8_192)
        marks.write("<g class=\"boxes\" clip-path=\"url(#\(clip))\">")
        for (i, st) in stats.enumerated() {
            let cx = cv.plotX + (Double(i) + 0.5) * band
            guard let s = st, let text = described[i] else {
                marks.write("<text x=\"\(cx)\" y=\"\(cv.plotY + cv.plotH / 2)\" text-anchor=\"middle\"")
                marks.write(" font-size=\"11\" fill=\"\(ChartStyle.muted)\">no data</text>")
                continue
            }
            let x0 = cx - boxW / 2
            let name = SVGText.escape(groups[i].name)
            marks.write("<g class=\"box\"><title>\(SVGText.escape(groups[i].name + ": " + text))</title>")
            // whiskers
            marks.write("<path d=\"M\(cx) \(y(s.upperWhisker))V\(y(s.q3))M\(cx) \(y(s.q1))V\(y(s.lowerWhisker))")
            marks.write("M\(cx - boxW / 4) \(y(s.upperWhisker))H\(cx + boxW / 4)")
            marks.write("M\(cx - boxW / 4) \(y(s.lowerWhisker))H\(cx + boxW / 4)\"")
            marks.write(" stroke=\"\(ChartStyle.ink)\" stroke-width=\"1.2\" fill=\"none\"/>")
            // box Q1–Q3
            marks.write("<rect x=\"\(x0)\" y=\"\(y(s.q3))\" width=\"\(boxW)\"")
            marks.write(" height=\"\(max(0.5, y(s.q1) - y(s.q3)))\"")
            marks.write(" fill=\"\(color)\" fill-opacity=\"0.25\" stroke=\"\(color)\" stroke-width=\"1.5\"/>")
            // median
            marks.write("<line x1=\"\(x0)\" x2=\"\(x0 + boxW)\" y1=\"\(y(s.median))\" y2=\"\(y(s.median))\"")
            marks.write(" stroke=\"\(ChartStyle.ink)\" stroke-width=\"2.5\"/>")
            // mean
            Marker.diamond.draw(into: &marks, x: cx, y: y(s.mean), r: 3.2, fill: "#ffffff", extra: meanStroke)
            // outliers
            for o in s.outliers {
                marks.write("<circle cx=\"\(cx)\" cy=\"\(y(o))\" r=\"3\" fill=\"none\" stroke=\"\(outlierColor)\"")
                marks.write(literal: " stroke-width=\"1.5\"><title>")
                marks.write(raw: name)
                marks.write(literal: " outlier: ")
                marks.write(shown: o)
                marks.write(literal: "</title></circle>")
            }
            marks.write("</g>")
        }
        marks.write("</g>")
        cv.body += marks
        cv.categoryAxisX(names, centers: groups.indices.map { cv.plotX + (Double($0) + 0.5) * band },
                         rotate: fit.rotate)
        cv.axisFrame(xTitleOffset: fit.height + 14)

        if cv.wantsSummary {
            cv.summary.append("Box plot of \(groups.count) group\(groups.count == 1 ? "" : "s"): "
                              + "boxes from the first to the third quartile (linear interpolation), median line, "
                              + "mean diamond, whiskers to the furthest value within 1.5 IQR, outliers as circles.")
            for i in groups.indices {
                cv.summary.append("\(groups[i].name): " + (described[i] ?? "no data") + ".")
            }
        }
        return cv
    }

    /// ``describePlainly(_:)`` written into a byte writer with its numbers as digits
    /// (``SVGWriter/write(shown:)``): as interpolated strings it was ≈ 23,000 instructions
    /// a group (docs/perf-study.md, "the participant page's charts and tables").
    /// `BoxStatsCountingTests.descriptionsAsWrittenPlainly` compares the two.
    static func describe(_ s: BoxStats) -> String {
        var t = SVGWriter(capacity: 256)
        t.write(literal: "n "); t.write(whole: s.count)
        t.write(literal: ", median "); t.write(shown: s.median)
        t.write(literal: ", Q1 "); t.write(shown: s.q1)
        t.write(literal: ", Q3 "); t.write(shown: s.q3)
        t.write(literal: ", mean "); t.write(shown: s.mean)
        t.write(literal: ", whiskers "); t.write(shown: s.lowerWhisker)
        t.write(literal: " to "); t.write(shown: s.upperWhisker)
        if !s.outliers.isEmpty {
            t.write(literal: ", "); t.write(whole: s.outliers.count)
            t.write(literal: s.outliers.count == 1 ? " outlier (" : " outliers (")
            for (i, o) in s.outliers.prefix(10).enumerated() {
                if i > 0 { t.write(literal: ", ") }
                t.write(shown: o)
            }
            if s.outliers.count > 10 { t.write(literal: ", …") }
            t.write(literal: ")")
        }
        return t.string
    }

    /// The group's description as interpolated strings: the plain twin of ``describe(_:)``.
    static func describePlainly(_ s: BoxStats) -> String {
        let v = ChartNumber.shown
        var t = "n \(s.count), median \(v(s.median)), Q1 \(v(s.q1)), Q3 \(v(s.q3)), mean \(v(s.mean)), "
            + "whiskers \(v(s.lowerWhisker)) to \(v(s.upperWhisker))"
        if !s.outliers.isEmpty {
            let shown = s.outliers.prefix(10).map(v).joined(separator: ", ")
            let more = s.outliers.count > 10 ? ", …" : ""
            t += ", \(s.outliers.count) outlier\(s.outliers.count == 1 ? "" : "s") (\(shown)\(more))"
        }
        return t
    }
}
