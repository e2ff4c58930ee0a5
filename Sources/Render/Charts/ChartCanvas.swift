#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Style

/// Colours, dashes and marker shapes shared by every chart.
enum ChartStyle {
    /// Okabe–Ito (2008) colour-blind-safe palette, ordered for contrast on white:
    /// blue, orange, bluish green, vermillion, reddish purple, sky blue, yellow, black.
    static let palette = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
    /// Dash patterns by series index (solid first).
    static let dashes = ["", "6 3", "2 3", "8 3 2 3", "4 4", "1 3"]
    static let ink = "#222222"
    static let muted = "#555555"
    static let grid = "#e3e3e3"
    static let axis = "#888888"
    static let background = "#ffffff"
    static let fontFamily = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
    static let fontSize = 12.0

    static func color(_ i: Int) -> String { palette[i % palette.count] }
    static func dash(_ i: Int) -> String { dashes[i % dashes.count] }
    static func marker(_ i: Int) -> Marker { Marker.allCases[i % Marker.allCases.count] }

    /// Estimated width of `s` in a sans-serif font of `size` (0.6 em per character).
    static func textWidth(_ s: String, size: Double = fontSize) -> Double {
        Double(s.count) * size * 0.6
    }
}

/// Marker shapes; series i uses shape i so series differ without colour.
enum Marker: CaseIterable {
    case circle, square, triangle, diamond, triangleDown, plus, cross

    /// An SVG element for the marker centred at (x, y) with radius r. An empty `fill`
    /// leaves the colour to the enclosing group.
    func svg(x: Double, y: Double, r: Double, fill: String, extra: String = "", tooltip: String? = nil) -> String {
        var s = SVGWriter()
        draw(into: &s, x: x, y: y, r: r, fill: fill, extra: extra, title: tooltip.map(SVGText.escape))
        return s.string
    }

    /// Appends ``svg(x:y:r:fill:extra:tooltip:)`` to `o`, with `title` the tooltip
    /// already escaped: a chart makes its tooltips once for both drawings, and writes the
    /// element straight into its marks (docs/perf-study.md, "Round five, charts" and
    /// "Round seven, charts").
    func draw(into o: inout SVGWriter, x: Double, y: Double, r: Double, fill: String, extra: String = "",
              title: String? = nil) {
        switch self {
        case .circle:  // (the scatter's first series: its pieces written one by one)
            o.write(literal: "<circle cx=\""); o.write(coordinate: x)
            o.write(literal: "\" cy=\""); o.write(coordinate: y)
            o.write(literal: "\" r=\""); o.write(coordinate: r); o.write(literal: "\"")
        case .square:
            let s = r * 0.9
            o.write(literal: "<rect x=\""); o.write(coordinate: x - s)
            o.write(literal: "\" y=\""); o.write(coordinate: y - s)
            o.write(literal: "\" width=\""); o.write(coordinate: 2 * s)
            o.write(literal: "\" height=\""); o.write(coordinate: 2 * s); o.write(literal: "\"")
        case .triangle:
            o.write("<path d=\"M\(x) \(y - r * 1.15)L\(x + r * 1.1) \(y + r * 0.8)L\(x - r * 1.1) \(y + r * 0.8)Z\"")
        case .diamond:
            o.write("<path d=\"M\(x) \(y - r * 1.2)L\(x + r * 1.2) \(y)L\(x) \(y + r * 1.2)L\(x - r * 1.2) \(y)Z\"")
        case .triangleDown:
            o.write("<path d=\"M\(x) \(y + r * 1.15)L\(x + r * 1.1) \(y - r * 0.8)L\(x - r * 1.1) \(y - r * 0.8)Z\"")
        case .plus:
            let a = r * 1.2, w = r * 0.45
            o.write("<path d=\"M\(x - w) \(y - a)H\(x + w)V\(y - w)H\(x + a)V\(y + w)H\(x + w)V\(y + a)")
            o.write("H\(x - w)V\(y + w)H\(x - a)V\(y - w)H\(x - w)Z\"")
        case .cross:  // stroked, so it ignores `extra` (which may carry its own stroke)
            let a = r * 1.1
            o.write("<path d=\"M\(x - a) \(y - a)L\(x + a) \(y + a)M\(x - a) \(y + a)L\(x + a) \(y - a)\"")
            o.write(" fill=\"none\" stroke=\"\(fill.isEmpty ? "currentColor" : fill)\" stroke-width=\"2\"")
        }
        // The fill and the title are written piece by piece: as one interpolated piece
        // each made a buffer of its own that grew for a long tooltip, then was copied.
        if self != .cross {
            if !fill.isEmpty { o.write(literal: " fill=\""); o.write(raw: fill); o.write(literal: "\"") }
            o.write(raw: extra)
        }
        guard let title else { o.write(literal: "/>"); return }
        o.write(literal: "><title>")
        o.write(raw: title)
        o.write(literal: "</title></")
        o.write(literal: tag)
        o.write(literal: ">")
    }

    private var tag: StaticString {
        switch self {
        case .circle: return "circle"
        case .square: return "rect"
        default: return "path"
        }
    }
}

// MARK: - Legend

enum LegendKey {
    case swatch(color: String)
    case line(color: String, dash: String, marker: Marker?)
    case marker(color: String, marker: Marker)
}

struct LegendItem {
    var name: String
    var key: LegendKey
}

// MARK: - Canvas

/// Builds one chart: the frame (svg, title, desc, background, visible title, legend),
/// the plot rectangle, axes, and the data marks appended to `body`.
struct ChartCanvas {
    let options: ChartOptions
    let kind: String
    let id: String
    /// The marks, axes and labels, in the order they are drawn (bytes: the pieces are
    /// copied from the writers that made them, with no `String` and no UTF-8 check).
    var body = SVGWriter(capacity: 4_096)
    /// Sentences appended to `<desc>` when `options.dataSummary` is on.
    var summary: [String] = []
    var legend: [LegendItem] = []
    /// Plot rectangle (set by ``layout(left:right:bottom:)``).
    var plotX = 0.0, plotY = 0.0, plotW = 0.0, plotH = 0.0
    /// Height used by the title and legend above the plot.
    private(set) var headerHeight = 0.0
    private(set) var legendRows: [[(LegendItem, Double)]] = []

    var width: Double { max(80, options.width.isFinite ? options.width : 640) }
    /// Whether the chart must write its data summary: it is on, and not already known
    /// from the wide drawing (``ChartOptions/sharedDescription``).
    var wantsSummary: Bool { options.dataSummary && options.sharedDescription == nil }
    var height: Double { max(60, options.height.isFinite ? options.height : 320) }

    init(options: ChartOptions, kind: String) {
        self.options = options
        self.kind = kind
        self.id = ChartID.make(options, kind: kind)
    }

    // MARK: Layout

    /// Fixes the plot rectangle: the header (title + legend rows) on top, then the
    /// given margins.
    mutating func layout(left: Double, right: Double, bottom: Double, top extra: Double = 8) {
        var top = options.showTitle && !options.title.isEmpty ? 30.0 : 8.0
        legendRows = []
        if legend.count > 1 {
            var row: [(LegendItem, Double)] = []
            var x = 0.0
            let avail = width - 24
            for item in legend {
                let w = 26 + ChartStyle.textWidth(SVGText.truncate(item.name, max: 40), size: 11) + 14
                if x + w > avail, !row.isEmpty {
                    legendRows.append(row)
                    row = []
                    x = 0
                }
                row.append((item, w))
                x += w
            }
            if !row.isEmpty { legendRows.append(row) }
            top += Double(legendRows.count) * 18 + 2
        }
        headerHeight = top
        top += extra
        plotX = left
        plotY = top
        plotW = max(10, width - left - right)
        plotH = max(10, height - top - bottom)
    }

    // MARK: Axes

    /// Horizontal gridlines and tick labels of a vertical value axis.
    mutating func valueAxisY(_ scale: NiceScale, y: (Double) -> Double) {
        var g = SVGWriter(capacity: 2_048)
        g.write("<g class=\"axis axis-y\" font-size=\"11\" fill=\"\(ChartStyle.muted)\" text-anchor=\"end\">")
        for t in scale.ticks {
            let yy = y(t)
            let stroke = t == 0 && scale.lower < 0 ? ChartStyle.axis : ChartStyle.grid
            g.write("<line x1=\"\(plotX)\" x2=\"\(plotX + plotW)\" y1=\"\(yy)\" y2=\"\(yy)\"")
            g.write(" stroke=\"\(stroke)\" stroke-width=\"1\"/>")
            g.write("<text x=\"\(plotX - 6)\" y=\"\(yy)\" dy=\"0.32em\">")
            g.write("\(ChartNumber.drawn(ChartNumber.tick(t, step: scale.step)))</text>")
        }
        g.write("</g>")
        body += g
    }

    /// Vertical gridlines and tick labels of a horizontal numeric axis.
    mutating func valueAxisX(_ scale: NiceScale, x: (Double) -> Double, grid: Bool = true) {
        var g = SVGWriter(capacity: 3_072)
        g.write("<g class=\"axis axis-x\" font-size=\"11\" fill=\"\(ChartStyle.muted)\" text-anchor=\"middle\">")
        for t in scale.ticks {
            let xx = x(t)
            if grid {
                let stroke = t == 0 && scale.lower < 0 ? ChartStyle.axis : ChartStyle.grid
                g.write("<line x1=\"\(xx)\" x2=\"\(xx)\" y1=\"\(plotY)\" y2=\"\(plotY + plotH)\"")
                g.write(" stroke=\"\(stroke)\" stroke-width=\"1\"/>")
            }
            g.write("<line x1=\"\(xx)\" x2=\"\(xx)\" y1=\"\(plotY + plotH)\" y2=\"\(plotY + plotH + 4)\"")
            g.write(" stroke=\"\(ChartStyle.axis)\"/>")
            g.write("<text x=\"\(xx)\" y=\"\(plotY + plotH + 16)\">")
            g.write("\(ChartNumber.drawn(ChartNumber.tick(t, step: scale.step)))</text>")
        }
        g.write("</g>")
        body += g
    }

    /// Whether category labels under bands of width `band` must rotate, and the height
    /// the labels then need below the plot.
    /// `overhang` is how far a rotated first label reaches left of its band centre.
    static func categoryLabelFit(_ names: [String], band: Double) -> (rotate: Bool, height: Double, overhang: Double) {
        let widest = names.map { ChartStyle.textWidth(SVGText.truncate($0, max: 28), size: 11) }.max() ?? 0
        let firstWidth = names.first.map { ChartStyle.textWidth(SVGText.truncate($0, max: 28), size: 11) } ?? 0
        let rotate = widest > band - 4
        return (rotate, rotate ? widest * 0.57 + 16 : 20, rotate ? firstWidth * 0.82 : 0)
    }

    /// Category labels under bands centred at `centers`; rotated 35° when `rotate`.
    /// Written into ``body`` piece by piece (coordinates as ``ChartNumber/coord(_:)``
    /// writes them), where each label was a `String` of `String`s
    /// (`ChartAxesTwinTests` keeps that twin).
    mutating func categoryAxisX(_ names: [String], centers: [Double], rotate: Bool) {
        body.write("<g class=\"axis axis-x\" font-size=\"11\" fill=\"\(ChartStyle.muted)\"")
        body.write(literal: rotate ? " text-anchor=\"end\">" : " text-anchor=\"middle\">")
        // rotated 35°, neighbours are spacing·sin 35° apart across the text: keep ≥ 12px
        let every = rotate ? ChartCanvas.labelEvery(centers, minSpacing: 21) : 1
        for (i, n) in names.enumerated() where i < centers.count && i % every == 0 {
            let x = centers[i], y = plotY + plotH + (rotate ? 12 : 16)
            body.write("<text x=\"\(x)\" y=\"\(y)\"")
            if rotate { body.write(" transform=\"rotate(-35 \(x) \(y))\"") }
            body.write(literal: ">")
            writeLabel(n)
        }
        body.write(literal: "</g>")
    }

    /// A category label's text up to 28 characters (`<title>` of the whole when it is
    /// cut), then `</text>`.
    private mutating func writeLabel(_ n: String) {
        let l = SVGText.truncate(n, max: 28)
        if n != l {
            body.write(literal: "<title>")
            body.write(raw: SVGText.escape(n))
            body.write(literal: "</title>")
        }
        body.write(raw: SVGText.escape(l))
        body.write(literal: "</text>")
    }

    /// Show every k-th label so labels stay at least `minSpacing` apart along the axis.
    static func labelEvery(_ centers: [Double], minSpacing: Double = 13) -> Int {
        guard centers.count > 1 else { return 1 }
        let spacing = abs(centers[1] - centers[0])
        return spacing >= minSpacing ? 1 : Int(ceil(minSpacing / max(spacing, 0.01)))
    }

    /// Category labels left of horizontal bands (right-aligned), written as
    /// ``categoryAxisX(_:centers:rotate:)`` is.
    mutating func categoryAxisY(_ names: [String], centers: [Double]) {
        body.write("<g class=\"axis axis-y\" font-size=\"11\" fill=\"\(ChartStyle.muted)\"")
        body.write(literal: " text-anchor=\"end\">")
        let every = ChartCanvas.labelEvery(centers)
        for (i, n) in names.enumerated() where i < centers.count && i % every == 0 {
            body.write("<text x=\"\(plotX - 6)\" y=\"\(centers[i])\" dy=\"0.32em\">")
            writeLabel(n)
        }
        body.write(literal: "</g>")
    }

    /// Width a vertical axis needs for these tick/category labels, plus the axis title.
    static func leftMargin(labels: [String], yLabel: String) -> Double {
        let w = labels.map { ChartStyle.textWidth($0, size: 11) }.max() ?? 0
        return min(220, w) + 12 + (yLabel.isEmpty ? 0 : 20)
    }

    /// The axis frame lines (left and bottom) and the axis titles, written into ``body``.
    mutating func axisFrame(xTitleOffset: Double = 34, left: Bool = true, bottom: Bool = true) {
        if bottom {
            body.write("<line x1=\"\(plotX)\" x2=\"\(plotX + plotW)\"")
            body.write(" y1=\"\(plotY + plotH)\" y2=\"\(plotY + plotH)\" stroke=\"\(ChartStyle.axis)\"/>")
        }
        if left {
            body.write("<line x1=\"\(plotX)\" x2=\"\(plotX)\"")
            body.write(" y1=\"\(plotY)\" y2=\"\(plotY + plotH)\" stroke=\"\(ChartStyle.axis)\"/>")
        }
        if !options.xLabel.isEmpty {
            let y = min(height - 6, plotY + plotH + xTitleOffset)
            body.write("<text class=\"axis-title\" x=\"\(plotX + plotW / 2)\" y=\"\(y)\"")
            body.write(" text-anchor=\"middle\" font-size=\"12\" fill=\"\(ChartStyle.ink)\">")
            body.write(raw: SVGText.escape(options.xLabel))
            body.write(literal: "</text>")
        }
        if !options.yLabel.isEmpty {
            // Centred on the plot, but never reaching above it into the title (a short
            // heatmap): a title longer than the plot is tall hangs down from the plot's top.
            let half = ChartStyle.textWidth(options.yLabel, size: 12) / 2
            let x = 14.0, y = min(max(plotY + plotH / 2, plotY + half), max(plotY + plotH / 2, height - half))
            body.write("<text class=\"axis-title\" x=\"\(x)\" y=\"\(y)\" text-anchor=\"middle\" font-size=\"12\"")
            body.write(" fill=\"\(ChartStyle.ink)\" transform=\"rotate(-90 \(x) \(y))\">")
            body.write(raw: SVGText.escape(options.yLabel))
            body.write(literal: "</text>")
        }
    }
}

/// Shorthand for ``ChartNumber/coord(_:)``.
@inline(__always) func c(_ x: Double) -> String { ChartNumber.coord(x) }

/// Linear map from a data interval to a pixel interval.
struct LinearMap {
    var d0: Double, d1: Double, r0: Double, r1: Double
    func callAsFunction(_ v: Double) -> Double {
        d1 == d0 ? (r0 + r1) / 2 : r0 + (v - d0) / (d1 - d0) * (r1 - r0)
    }
}
