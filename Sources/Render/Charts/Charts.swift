#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// SVG charts for reports. Every function returns a `<div class="chart-frame">` holding
/// the chart drawn twice (see ``responsive(_:_:)``); each drawing is one self-contained
/// `<svg>` element:
/// `role="img"`, `aria-labelledby` naming its `<title>` and `<desc>`, a `viewBox` and
/// 100% width, inline presentation attributes (no CSS or JavaScript needed), the
/// Okabe–Ito palette, and byte-identical output for identical input. Non-finite values
/// are skipped; no data gives a chart that says "No data". See docs/charts.md.
public enum Charts {
    /// Grouped bar chart: one group per category, one bar per series
    /// (`horizontal` puts categories on the y axis).
    public static func bar(categories: [String], series: [BarSeries], options: ChartOptions,
                           horizontal: Bool = false) -> String {
        let tips = BarChart.tooltips(categories: categories, series: series)
        return responsiveWritten(options) {
            BarChart.canvas(categories: categories, series: series, options: $0, horizontal: horizontal, tips: tips)
        }
    }

    /// Line chart: each series is a polyline in its own colour, dash and marker;
    /// a non-finite point breaks the line.
    public static func line(series: [XYSeries], options: ChartOptions) -> String {
        let tips = XYChart.tooltips(series: series, kind: .line)
        return responsiveWritten(options) {
            XYChart.canvas(series: series, options: $0, kind: .line, trend: nil, tips: tips)
        }
    }

    /// Scatter plot: markers by series (colour and shape), optional trend line.
    public static func scatter(series: [XYSeries], options: ChartOptions, trend: XYSeries? = nil) -> String {
        let tips = XYChart.tooltips(series: series, kind: .scatter)
        return responsiveWritten(options) {
            XYChart.canvas(series: series, options: $0, kind: .scatter, trend: trend, tips: tips)
        }
    }

    /// Scatter points of several series that sit on the same whole x values (mean entry
    /// time against string length), set side by side so that no series hides another
    /// (docs/charts.md, "Side by side"). Of `n` series, series `k` (from 0) is centred at
    /// x + (k − (n − 1) / 2) · `width` / n; the `m` points one series has at one x are
    /// spread evenly over 0.8 of that band, in their order: point i (from 0) at
    /// ((i + 0.5) / m − 0.5) · 0.8 · `width` / n from the centre. Each keeps its own x as
    /// `xValue` (the tooltip's). Non-finite points are left as they are.
    public static func sideBySide(_ series: [XYSeries], width: Double = 0.8) -> [XYSeries] {
        let n = Double(series.count), band = width / max(n, 1)
        return series.enumerated().map { k, s in
            let centre = (Double(k) - (n - 1) / 2) * band
            var counts: [Double: Int] = [:], seen: [Double: Int] = [:]
            for p in s.points where p.x.isFinite { counts[p.x, default: 0] += 1 }
            let points = s.points.map { p -> XYPoint in
                guard p.x.isFinite, let m = counts[p.x] else { return p }
                let i = seen[p.x, default: 0]
                seen[p.x] = i + 1
                let spread = ((Double(i) + 0.5) / Double(m) - 0.5) * 0.8 * band
                return XYPoint(x: p.x + centre + spread, y: p.y, label: p.label, xValue: p.xValue ?? p.x)
            }
            return XYSeries(name: s.name, points: points)
        }
    }

    /// Histogram of `values`. `bins` nil chooses Freedman–Diaconis (Sturges when the
    /// IQR is 0); `overlay` is a curve in count units (e.g. a fitted density × n × width).
    public static func histogram(values: [Double], options: ChartOptions, bins: Int? = nil,
                                 overlay: XYSeries? = nil) -> String {
        responsiveWritten(options) { HistogramChart.canvas(values: values, options: $0, bins: bins, overlay: overlay) }
    }

    /// Heatmap: `values[r][c]` for row `rows[r]` and column `columns[c]`, with a colour
    /// legend; `cellLabels[r][c]` is written in each cell when given.
    public static func heatmap(rows: [String], columns: [String], values: [[Double?]], options: ChartOptions,
                               cellLabels: [[String]]? = nil, scale: HeatmapScale = .sequential) -> String {
        responsiveWritten(options) {
            HeatmapChart.canvas(rows: rows, columns: columns, values: values, options: $0,
                                cellLabels: cellLabels, scale: scale)
        }
    }

    /// Box plot: quartiles by linear interpolation (type 7), Tukey whiskers at 1.5 IQR,
    /// outliers as points, mean as a diamond.
    public static func boxPlot(groups: [BoxGroup], options: ChartOptions) -> String {
        let stats = groups.map { BoxStats(values: $0.values) }
        let described = stats.map { $0.map(BoxPlotChart.describe) }
        return responsiveWritten(options) {
            BoxPlotChart.canvas(groups: groups, options: $0, stats: stats, described: described)
        }
    }

    /// Box plot of groups of whole numbers (a participant's keystroke intervals in ms):
    /// ``boxPlot(groups:options:)`` of the values as `Double`s, byte for byte, its
    /// statistics counted from the integers (``BoxStats/init(whole:)``) with no list of
    /// `Double`s made. `BoxStatsWholeTwinTests` compares the two.
    public static func boxPlot(wholeGroups: [(name: String, values: [Int])], options: ChartOptions) -> String {
        let stats = wholeGroups.map { BoxStats(whole: $0.values) }
        let described = stats.map { $0.map(BoxPlotChart.describe) }
        // Given the statistics, the canvas reads a group's name only.
        let groups = wholeGroups.map { BoxGroup(name: $0.name, values: []) }
        return responsiveWritten(options) {
            BoxPlotChart.canvas(groups: groups, options: $0, stats: stats, described: described)
        }
    }

    /// Box plot from `(name, values)` pairs.
    public static func boxPlot(groups: [(name: String, values: [Double])], options: ChartOptions) -> String {
        boxPlot(groups: groups.map { BoxGroup(name: $0.name, values: $0.values) }, options: options)
    }

    /// Timeline: one lane per row, spans as bars coloured by category, instants as diamonds.
    public static func timeline(lanes: [TimelineLane], options: ChartOptions) -> String {
        let tips = TimelineChart.tooltips(lanes: lanes), rows = lanes.map { TimelineChart.packRows($0.spans) }
        return responsiveWritten(options) { TimelineChart.canvas(lanes: lanes, options: $0, tips: tips, rows: rows) }
    }

    /// Width in user units of the narrow drawing.
    public static let narrowWidth = 340.0

    /// The chart drawn at `options.width` (class `chart-wide`) and at ``narrowWidth``
    /// (class `chart-narrow`, ids suffixed `-n`), in `<div class="chart-frame">`. The
    /// style sheet shows the narrow drawing when the frame is narrower than the wide
    /// one, so neither is ever scaled below its drawn size and text stays at least
    /// 11 CSS px (docs/charts.md, "Fitting the screen"). A chart already at most
    /// ``narrowWidth`` wide is drawn once.
    ///
    /// Each drawing is made with its class and id (``ChartOptions/drawingClass``), and
    /// the narrow one reuses the wide one's `<desc>` (``ChartOptions/sharedDescription``):
    /// no second data summary, and no edit of the finished SVG (charts were a seventh of
    /// a study build; docs/perf-study.md, round five). `ChartSharedDescriptionTests`
    /// compares the frame with the drawings made alone and edited afterwards.
    static func responsive(_ options: ChartOptions, _ draw: (ChartOptions) -> String) -> String {
        var w = options
        w.drawingClass = "chart-wide"
        let wide = draw(w)
        let open = frameOpening(width: options.width)
        guard options.width > narrowWidth else {
            return open + wide + "</div>"
        }
        var n = options
        n.width = narrowWidth
        n.drawingClass = "chart-narrow"
        var wideText = wide
        wideText.withUTF8 { b in
            // The wide drawing's id is already clean (letters, digits, `-`, `_`; it
            // starts with a letter), so the narrow drawing keeps it with `-n` as it is.
            n.id = text(in: b, after: " id=\"", upTo: "\"").map { $0 + "-n" }
            n.sharedDescription = text(in: b, after: "-desc\">", upTo: "</desc>")
        }
        let narrow = draw(n)
        var frame = ""
        frame.reserveCapacity(open.utf8.count + wide.utf8.count + narrow.utf8.count + 6)
        frame += open; frame += wide; frame += narrow; frame += "</div>"
        return frame
    }

    /// ``responsive(_:_:)`` written as bytes: the frame's opening, each drawing's canvas
    /// finished straight into the frame (``ChartCanvas/finish(into:)``), the close, and
    /// one `String` of it all. The frame was three `String`s — each drawing's, its bytes
    /// checked as UTF-8, then the frame they were copied into — a copy and a check of
    /// every byte of a participant page's eight drawings more (docs/perf-study.md, "the
    /// study's pages kept as bytes"). `ChartFrameTwinTests` compares the two.
    static func responsiveWritten(_ options: ChartOptions, _ draw: (ChartOptions) -> ChartCanvas) -> String {
        var w = options
        w.drawingClass = "chart-wide"
        let wide = draw(w)
        let open = frameOpening(width: options.width)
        var frame = SVGWriter(capacity: open.utf8.count + 2 * (wide.body.count + 2_048))
        frame.write(raw: open)
        let wideStart = frame.count
        wide.finish(into: &frame)
        guard options.width > narrowWidth else {
            frame.write(literal: "</div>")
            return frame.string
        }
        var n = options
        n.width = narrowWidth
        n.drawingClass = "chart-narrow"
        frame.withBytes { all in
            let b = UnsafeBufferPointer(rebasing: all[wideStart...])
            n.id = text(in: b, after: " id=\"", upTo: "\"").map { $0 + "-n" }
            n.sharedDescription = text(in: b, after: "-desc\">", upTo: "</desc>")
        }
        draw(n).finish(into: &frame)
        frame.write(literal: "</div>")
        return frame.string
    }

    /// The most a drawing is scaled up: 1.6 × its drawn size (a 640-wide chart fills the
    /// frame's 64rem), so a chart's title (14 units) stays below a page's h2 and its
    /// text on one type scale, whatever width it was drawn at.
    public static let maxScale = 1.6

    /// `<div class="chart-frame">`; a chart drawn narrower than 640 units gets
    /// `style="max-width:Wpx"` with W = ``maxScale`` × its width (docs/charts.md).
    static func frameOpening(width: Double) -> String {
        guard width < 640 else { return "<div class=\"chart-frame\">" }
        return "<div class=\"chart-frame\" style=\"max-width:\(c(width * maxScale))px\">"
    }

    /// The text between the first `start` in `b` and the next `end` after it (the
    /// drawing's id; its `<desc>`, whose escaped text holds no `<`).
    static func text(in b: UnsafeBufferPointer<UInt8>, after start: StaticString, upTo end: StaticString) -> String? {
        guard let s = find(b, start, from: 0) else { return nil }
        let from = s + start.utf8CodeUnitCount
        guard let e = find(b, end, from: from) else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: b[from..<e]), as: UTF8.self)
    }

    /// The first index at or after `from` where `needle` occurs in `hay`.
    static func find(_ hay: UnsafeBufferPointer<UInt8>, _ needle: StaticString, from: Int) -> Int? {
        let n = needle.utf8CodeUnitCount
        guard n > 0, hay.count >= n else { return nil }
        let k = needle.utf8Start
        var i = from
        while i <= hay.count - n {
            if hay[i] == k[0] {
                var j = 1
                while j < n, hay[i + j] == k[j] { j += 1 }
                if j == n { return i }
            }
            i += 1
        }
        return nil
    }
}
