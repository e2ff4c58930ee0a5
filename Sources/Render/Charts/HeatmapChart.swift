#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// Heatmap with a colour legend (see ``Charts/heatmap(rows:columns:values:options:cellLabels:scale:)``).
enum HeatmapChart {
    /// Reversed viridis, 10 stops: low values light yellow-green, high values dark purple.
    static let sequentialStops = [
        "#FDE725", "#B4DE2C", "#6DCD59", "#35B779", "#1F9E89", "#26828E", "#31688E", "#3E4A89", "#482878", "#440154"
    ]
    /// Okabe–Ito blue – light grey – vermillion.
    static let divergingStops = ["#0072B2", "#F7F7F7", "#D55E00"]
    /// A cell without a value: the no-data grey, which the page maps to `--chart-nodata`.
    static let missing = "#f6f6f6"

    static func canvas(rows: [String], columns: [String], values: [[Double?]], options: ChartOptions,
                       cellLabels: [[String]]?, scale: HeatmapScale) -> ChartCanvas {
        let kind = "heatmap"
        func value(_ r: Int, _ col: Int) -> Double? {
            guard r < values.count, col < values[r].count, let v = values[r][col], v.isFinite else { return nil }
            return v
        }
        let finite = rows.indices.flatMap { r in columns.indices.compactMap { value(r, $0) } }
        guard !rows.isEmpty, !columns.isEmpty, let dMin = finite.min(), let dMax = finite.max() else {
            return ChartCanvas.noDataCanvas(options: options, kind: kind)
        }
        var cv = ChartCanvas(options: options, kind: kind)

        // Colour domain: [yMin ?? min, yMax ?? max]; diverging: symmetric around the centre.
        var lo = options.yMin ?? dMin, hi = options.yMax ?? dMax
        let stops: [String]
        switch scale {
        case .sequential:
            stops = sequentialStops
        case let .diverging(center):
            stops = divergingStops
            let ext = max(abs(lo - center), abs(hi - center))
            lo = center - ext
            hi = center + ext
        }
        if lo == hi { lo -= 0.5; hi += 0.5 }
        let domain = LinearMap(d0: lo, d1: hi, r0: 0, r1: 1)

        let legendScale = NiceScale(min: lo, max: hi, count: 4)
        let legendTicks = legendScale.ticks.filter { $0 >= lo - 1e-9 * abs(hi - lo) && $0 <= hi + 1e-9 * abs(hi - lo) }
        let legendLabelW =
            legendTicks.map { ChartStyle.textWidth(ChartNumber.tick($0, step: legendScale.step), size: 11) }.max() ?? 20
        let right = 30 + legendLabelW + 14
        var left = ChartCanvas.leftMargin(labels: rows.map { SVGText.truncate($0, max: 28) }, yLabel: options.yLabel)
        let band = (cv.width - left - right) / Double(columns.count)
        let fit = ChartCanvas.categoryLabelFit(columns, band: band)
        left = max(left, fit.overhang - band / 2 + 6)
        cv.layout(left: left, right: right, bottom: fit.height + (options.xLabel.isEmpty ? 0 : 20) + 6)
        let cw = cv.plotW / Double(columns.count), ch = cv.plotH / Double(rows.count)

        // white cell borders, thinner (or none) on small cells so colour dominates
        let border = min(cw, ch) >= 12 ? "1" : (min(cw, ch) >= 5 ? "0.5" : "0")
        var marks = "<g class=\"cells\" stroke=\"#ffffff\" stroke-width=\"\(border)\">"
        var labelsSVG = "<g class=\"cell-labels\" text-anchor=\"middle\" font-size=\"\(c(11))\">"
        var anyMissing = false
        let valueLabel = sharedDecimals(finite)
        for r in rows.indices {
            for col in columns.indices {
                let x = cv.plotX + Double(col) * cw, y = cv.plotY + Double(r) * ch
                let v = value(r, col)
                let fill = v.map { color(domain(min(hi, max(lo, $0))), stops) } ?? missing
                if v == nil { anyMissing = true }
                let given = cellLabels.flatMap { r < $0.count && col < $0[r].count ? $0[r][col] : nil }
                let label = given ?? (options.showValues ? v.map(valueLabel) : nil)
                var tip = "\(rows[r]) × \(columns[col]): " + (v.map(ChartNumber.shown) ?? "no value")
                if let g = given, !g.isEmpty, g != v.map(ChartNumber.shown) { tip += " (\(g))" }
                marks +=
                    "<rect x=\"\(c(x))\" y=\"\(c(y))\" width=\"\(c(cw))\" height=\"\(c(ch))\" "
                        + "fill=\"\(fill)\"><title>\(SVGText.escape(tip))</title></rect>"
                if let l = label, !l.isEmpty, ChartStyle.textWidth(l, size: 11) <= cw - 2, ch >= 13 {
                    labelsSVG +=
                        "<text x=\"\(c(x + cw / 2))\" y=\"\(c(y + ch / 2))\" "
                            + "dy=\"0.35em\"\(LabelInk.attributes(on: fill))>\(SVGText.escape(l))</text>"
                }
            }
        }
        marks += "</g>"
        labelsSVG += "</g>"
        cv.body += marks + labelsSVG
        cv.categoryAxisY(rows, centers: rows.indices.map { cv.plotY + (Double($0) + 0.5) * ch })
        cv.categoryAxisX(
            columns, centers: columns.indices.map { cv.plotX + (Double($0) + 0.5) * cw }, rotate: fit.rotate)
        cv.axisFrame(xTitleOffset: fit.height + 14, left: false, bottom: false)

        // Legend: a vertical gradient bar, high values on top.
        // The bar is at most 200 units tall; with a missing cell it leaves 30 units below
        // it for the "n/a" swatch (the bar is shortened, down to 24 units, when the plot is short).
        let gx = cv.plotX + cv.plotW + 16, gy = cv.plotY, gw = 12.0
        let gh = anyMissing ? max(min(cv.plotH - 30, 200.0), 24) : min(cv.plotH, 200.0)
        let grad = "\(cv.id)-scale"
        var g =
            "<g class=\"color-scale\" font-size=\"11\" fill=\"\(ChartStyle.muted)\"><linearGradient id=\"\(grad)\" "
                + "x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">"
        for (i, s) in stops.enumerated() {
            g += "<stop offset=\"\(c(Double(i) / Double(stops.count - 1)))\" stop-color=\"\(s)\"/>"
        }
        g +=
            "</linearGradient><rect x=\"\(c(gx))\" y=\"\(c(gy))\" width=\"\(c(gw))\" height=\"\(c(gh))\" "
                + "fill=\"url(#\(grad))\" stroke=\"#cccccc\"/>"
        // On a short bar only every k-th tick is written, k the smallest that keeps labels 12 units apart.
        let spacing = legendTicks.count > 1 ? gh * legendScale.step / (hi - lo) : gh
        let every = spacing >= 12 ? 1 : Int((12 / spacing).rounded(.up))
        for (i, t) in legendTicks.enumerated() where i % every == 0 {
            let ty = gy + gh - domain(t) * gh
            g +=
                "<line x1=\"\(c(gx + gw))\" x2=\"\(c(gx + gw + 3))\" y1=\"\(c(ty))\" y2=\"\(c(ty))\" "
                    + "stroke=\"\(ChartStyle.axis)\"/>"
            g +=
                "<text x=\"\(c(gx + gw + 5))\" y=\"\(c(ty))\" "
                    + "dy=\"0.32em\">\(ChartNumber.drawn(ChartNumber.tick(t, step: legendScale.step)))</text>"
        }
        if anyMissing {
            g +=
                "<rect x=\"\(c(gx))\" y=\"\(c(gy + gh + 12))\" width=\"\(c(gw))\" height=\"10\" fill=\"\(missing)\" "
                    + "stroke=\"#cccccc\"/><text x=\"\(c(gx + gw + 5))\" y=\"\(c(gy + gh + 17))\" "
                    + "dy=\"0.32em\">n/a</text>"
        }
        g += "</g>"
        cv.body += g

        if cv.wantsSummary {
            cv.summary.append(
                "Heatmap of \(rows.count) row\(rows.count == 1 ? "" : "s") by \(columns.count) "
                    + "column\(columns.count == 1 ? "" : "s"); values from \(ChartNumber.shown(dMin)) to "
                    + "\(ChartNumber.shown(dMax))."
            )
            if rows.count * columns.count <= 200 {
                for r in rows.indices {
                    cv.summary.append(
                        ChartSummary.list(
                            head: rows[r],
                            items: columns.indices.map {
                                "\(columns[$0]) \(value(r, $0).map(ChartNumber.shown) ?? "n/a")"
                            }))
                }
            }
        }
        return cv
    }

    /// Colour at position t ∈ [0, 1] along `stops`, interpolated in sRGB, as `#rrggbb`.
    /// The cell labels of `showValues`: every value with the same number of decimals, the
    /// most ``ChartNumber/value(_:)`` gives any of them (at most 2 for |x| ≥ 0.01), so one
    /// heatmap never mixes `8` and `8.03` (it reads `8.00`, `8.03`); a negative value with
    /// U+2212. Values ``ChartNumber/value(_:)`` writes in exponent form keep that form.
    static func sharedDecimals(_ values: [Double]) -> (Double) -> String {
        var decimals = 0
        for v in values {
            let t = ChartNumber.value(v)
            if t.contains("e") { return ChartNumber.shown }
            if let dot = t.firstIndex(of: ".") { decimals = max(decimals, t.distance(from: dot, to: t.endIndex) - 1) }
        }
        return { v in
            let t = cFormat("%.\(decimals)f", v)
            return ChartNumber.drawn(Double(t) == 0 && t.hasPrefix("-") ? String(t.dropFirst()) : t)
        }
    }

    static func color(_ t: Double, _ stops: [String]) -> String {
        let t = min(1, max(0, t.isFinite ? t : 0))
        let pos = t * Double(stops.count - 1)
        let i = min(stops.count - 2, Int(pos))
        let f = pos - Double(i)
        let a = rgb(stops[i]), b = rgb(stops[i + 1])
        var mix: [Int] = []
        for k in 0..<3 {
            let from = Double(a[k]), to = Double(b[k])
            let v: Double = from + (to - from) * f
            mix.append(Int(v.rounded()))
        }
        return "#" + mix.map { v in
            let h = String(v, radix: 16)
            return h.count == 1 ? "0" + h : h
        }.joined()
    }

    /// The red, green and blue of `#rrggbb`. Seven ASCII bytes ending in six hex digits
    /// (every colour a chart draws) are read from their bytes; anything else as Characters
    /// (``rgbByCharacters(_:)``). The heatmap asks this twice per cell and again for each
    /// label's ink: through Characters it was 1.5 % of a 50-participant study build.
    static func rgb(_ hex: String) -> [Int] {
        if let fast = rgbOfHexBytes(hex) { return fast }
        return rgbByCharacters(hex)
    }

    static func rgbOfHexBytes(_ hex: String) -> [Int]? {
        var hex = hex
        return hex.withUTF8 { b -> [Int]? in
            guard b.count == 7, b[0] < 0x80 else { return nil }
            func digit(_ c: UInt8) -> Int? {
                switch c {
                case 0x30...0x39: return Int(c - 0x30)
                case 0x41...0x46: return Int(c - 0x41 + 10)
                case 0x61...0x66: return Int(c - 0x61 + 10)
                default: return nil
                }
            }
            var out: [Int] = []
            out.reserveCapacity(3)
            for k in stride(from: 1, to: 7, by: 2) {
                guard let hi = digit(b[k]), let lo = digit(b[k + 1]) else { return nil }
                out.append(hi * 16 + lo)
            }
            return out
        }
    }

    /// ``rgb(_:)`` for any text: each pair of Characters after the first read as hex.
    static func rgbByCharacters(_ hex: String) -> [Int] {
        let s = Array(hex.dropFirst())
        return stride(from: 0, to: 6, by: 2).map { Int(String(s[$0...$0 + 1]), radix: 16) ?? 0 }
    }
}
