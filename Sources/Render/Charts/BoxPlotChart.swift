import Foundation

/// Box plot (see ``Charts/boxPlot(groups:options:)``); numbers from ``BoxStats``.
enum BoxPlotChart {
    /// `stats`: the groups' ``BoxStats`` when the caller has them already (both
    /// drawings of ``Charts/responsive(_:_:)`` share one computation: sorting every
    /// value was most of a box plot).
    static func render(groups: [BoxGroup], options: ChartOptions, stats given: [BoxStats?]? = nil) -> String {
        let kind = "boxplot"
        let stats = given ?? groups.map { BoxStats(values: $0.values) }
        let present = stats.compactMap { $0 }
        guard !present.isEmpty else { return ChartCanvas.noData(options: options, kind: kind) }
        var cv = ChartCanvas(options: options, kind: kind)
        let lo = options.yMin ?? present.map(\.min).min()!
        let hi = options.yMax ?? present.map(\.max).max()!
        let scale = NiceScale(min: lo, max: hi, count: max(2, Int((cv.height - 110) / 45)))
        var left = ChartCanvas.leftMargin(labels: scale.ticks.map { ChartNumber.tick($0, step: scale.step) }, yLabel: options.yLabel)
        let names = groups.map(\.name)
        let band0 = (cv.width - left - 16) / Double(groups.count)
        let fit = ChartCanvas.categoryLabelFit(names, band: band0)
        left = max(left, fit.overhang - band0 / 2 + 6)
        cv.layout(left: left, right: 16, bottom: fit.height + (options.xLabel.isEmpty ? 0 : 20) + 6)
        let y = LinearMap(d0: scale.lower, d1: scale.upper, r0: cv.plotY + cv.plotH, r1: cv.plotY)
        cv.valueAxisY(scale, y: y.callAsFunction)
        let band = cv.plotW / Double(groups.count)
        let boxW = min(80, band * 0.5)
        let color = ChartStyle.color(0)

        let clip = "\(cv.id)-clip"
        cv.body += "<clipPath id=\"\(clip)\"><rect x=\"\(c(cv.plotX))\" y=\"\(c(cv.plotY - 6))\" width=\"\(c(cv.plotW))\" height=\"\(c(cv.plotH + 12))\"/></clipPath>"
        var marks = "<g class=\"boxes\" clip-path=\"url(#\(clip))\">"
        for (i, st) in stats.enumerated() {
            let cx = cv.plotX + (Double(i) + 0.5) * band
            guard let s = st else {
                marks += "<text x=\"\(c(cx))\" y=\"\(c(cv.plotY + cv.plotH / 2))\" text-anchor=\"middle\" font-size=\"11\" fill=\"\(ChartStyle.muted)\">no data</text>"
                continue
            }
            let x0 = cx - boxW / 2
            marks += "<g class=\"box\"><title>\(SVGText.escape(groups[i].name + ": " + describe(s)))</title>"
            // whiskers
            marks += "<path d=\"M\(c(cx)) \(c(y(s.upperWhisker)))V\(c(y(s.q3)))M\(c(cx)) \(c(y(s.q1)))V\(c(y(s.lowerWhisker)))M\(c(cx - boxW / 4)) \(c(y(s.upperWhisker)))H\(c(cx + boxW / 4))M\(c(cx - boxW / 4)) \(c(y(s.lowerWhisker)))H\(c(cx + boxW / 4))\" stroke=\"\(ChartStyle.ink)\" stroke-width=\"1.2\" fill=\"none\"/>"
            // box Q1–Q3
            marks += "<rect x=\"\(c(x0))\" y=\"\(c(y(s.q3)))\" width=\"\(c(boxW))\" height=\"\(c(max(0.5, y(s.q1) - y(s.q3))))\" fill=\"\(color)\" fill-opacity=\"0.25\" stroke=\"\(color)\" stroke-width=\"1.5\"/>"
            // median
            marks += "<line x1=\"\(c(x0))\" x2=\"\(c(x0 + boxW))\" y1=\"\(c(y(s.median)))\" y2=\"\(c(y(s.median)))\" stroke=\"\(ChartStyle.ink)\" stroke-width=\"2.5\"/>"
            // mean
            marks += Marker.diamond.svg(x: cx, y: y(s.mean), r: 3.2, fill: "#ffffff", extra: " stroke=\"\(ChartStyle.ink)\" stroke-width=\"1.2\"")
            // outliers
            for o in s.outliers {
                marks += "<circle cx=\"\(c(cx))\" cy=\"\(c(y(o)))\" r=\"3\" fill=\"none\" stroke=\"\(ChartStyle.color(3))\" stroke-width=\"1.5\"><title>\(SVGText.escape(groups[i].name)) outlier: \(ChartNumber.value(o))</title></circle>"
            }
            marks += "</g>"
        }
        marks += "</g>"
        cv.body += marks
        cv.categoryAxisX(names, centers: groups.indices.map { cv.plotX + (Double($0) + 0.5) * band }, rotate: fit.rotate)
        cv.axisFrame(xTitleOffset: fit.height + 14)

        if cv.wantsSummary {
            cv.summary.append("Box plot of \(groups.count) group\(groups.count == 1 ? "" : "s"): boxes from the first to the third quartile (linear interpolation), median line, mean diamond, whiskers to the furthest value within 1.5 IQR, outliers as circles.")
            for (i, st) in stats.enumerated() {
                cv.summary.append("\(groups[i].name): " + (st.map(describe) ?? "no data") + ".")
            }
        }
        return cv.finish()
    }

    static func describe(_ s: BoxStats) -> String {
        let v = ChartNumber.value
        var t = "n \(s.count), median \(v(s.median)), Q1 \(v(s.q1)), Q3 \(v(s.q3)), mean \(v(s.mean)), whiskers \(v(s.lowerWhisker)) to \(v(s.upperWhisker))"
        if !s.outliers.isEmpty {
            let shown = s.outliers.prefix(10).map(v).joined(separator: ", ")
            t += ", \(s.outliers.count) outlier\(s.outliers.count == 1 ? "" : "s") (\(shown)\(s.outliers.count > 10 ? ", …" : ""))"
        }
        return t
    }
}
