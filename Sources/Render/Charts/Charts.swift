import Foundation

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
        responsive(options) { BarChart.render(categories: categories, series: series, options: $0, horizontal: horizontal) }
    }

    /// Line chart: each series is a polyline in its own colour, dash and marker;
    /// a non-finite point breaks the line.
    public static func line(series: [XYSeries], options: ChartOptions) -> String {
        responsive(options) { XYChart.render(series: series, options: $0, kind: .line, trend: nil) }
    }

    /// Scatter plot: markers by series (colour and shape), optional trend line.
    public static func scatter(series: [XYSeries], options: ChartOptions, trend: XYSeries? = nil) -> String {
        responsive(options) { XYChart.render(series: series, options: $0, kind: .scatter, trend: trend) }
    }

    /// Histogram of `values`. `bins` nil chooses Freedman–Diaconis (Sturges when the
    /// IQR is 0); `overlay` is a curve in count units (e.g. a fitted density × n × width).
    public static func histogram(values: [Double], options: ChartOptions, bins: Int? = nil,
                                 overlay: XYSeries? = nil) -> String {
        responsive(options) { HistogramChart.render(values: values, options: $0, bins: bins, overlay: overlay) }
    }

    /// Heatmap: `values[r][c]` for row `rows[r]` and column `columns[c]`, with a colour
    /// legend; `cellLabels[r][c]` is written in each cell when given.
    public static func heatmap(rows: [String], columns: [String], values: [[Double?]], options: ChartOptions,
                               cellLabels: [[String]]? = nil, scale: HeatmapScale = .sequential) -> String {
        responsive(options) {
            HeatmapChart.render(rows: rows, columns: columns, values: values, options: $0,
                                cellLabels: cellLabels, scale: scale)
        }
    }

    /// Box plot: quartiles by linear interpolation (type 7), Tukey whiskers at 1.5 IQR,
    /// outliers as points, mean as a diamond.
    public static func boxPlot(groups: [BoxGroup], options: ChartOptions) -> String {
        let stats = groups.map { BoxStats(values: $0.values) }
        return responsive(options) { BoxPlotChart.render(groups: groups, options: $0, stats: stats) }
    }

    /// Box plot from `(name, values)` pairs.
    public static func boxPlot(groups: [(name: String, values: [Double])], options: ChartOptions) -> String {
        boxPlot(groups: groups.map { BoxGroup(name: $0.name, values: $0.values) }, options: options)
    }

    /// Timeline: one lane per row, spans as bars coloured by category, instants as diamonds.
    public static func timeline(lanes: [TimelineLane], options: ChartOptions) -> String {
        responsive(options) { TimelineChart.render(lanes: lanes, options: $0) }
    }

    /// Width in user units of the narrow drawing.
    public static let narrowWidth = 340.0

    /// The chart drawn at `options.width` (class `chart-wide`) and at ``narrowWidth``
    /// (class `chart-narrow`, ids suffixed `-n`), in `<div class="chart-frame">`. The
    /// style sheet shows the narrow drawing when the frame is narrower than the wide
    /// one, so neither is ever scaled below its drawn size and text stays at least
    /// 11 CSS px (docs/charts.md, "Fitting the screen"). A chart already at most
    /// ``narrowWidth`` wide is drawn once.
    static func responsive(_ options: ChartOptions, _ draw: (ChartOptions) -> String) -> String {
        let wide = draw(options)
        guard options.width > narrowWidth else {
            return "<div class=\"chart-frame\">" + mark(wide, "chart-wide") + "</div>"
        }
        var n = options
        n.width = narrowWidth
        n.id = nil
        n.sharedDescription = descriptionOf(wide)
        var narrow = draw(n)
        if let id = idOf(narrow), let wideID = idOf(wide) {
            narrow = replacingAll(narrow, id, with: wideID + "-n")
        }
        return "<div class=\"chart-frame\">" + mark(wide, "chart-wide") + mark(narrow, "chart-narrow") + "</div>"
    }

    // The three helpers below work on UTF-8 bytes: Foundation's `range(of:)` and
    // `replacingOccurrences` convert the whole SVG to UTF-16 on Linux, and charts were a
    // fifth of a study build (docs/perf-study.md).

    static func mark(_ svg: String, _ cls: String) -> String {
        let b = Array(svg.utf8)
        guard let r = find(b, Array("class=\"dossier-chart ".utf8), from: 0) else { return svg }
        var out = Array(b[..<r])
        out.append(contentsOf: "class=\"dossier-chart \(cls) ".utf8)
        out.append(contentsOf: b[(r + "class=\"dossier-chart ".utf8.count)...])
        return String(decoding: out, as: UTF8.self)
    }

    /// The escaped text of the drawing's `<desc>` (it holds no `<`: its end is the first
    /// `</desc>`).
    static func descriptionOf(_ svg: String) -> String? {
        let b = Array(svg.utf8)
        guard let open = find(b, Array("<desc id=\"".utf8), from: 0),
              let tagEnd = find(b, Array("\">".utf8), from: open),
              let close = find(b, Array("</desc>".utf8), from: tagEnd) else { return nil }
        return String(decoding: b[(tagEnd + 2)..<close], as: UTF8.self)
    }

    static func idOf(_ svg: String) -> String? {
        let b = Array(svg.utf8)
        let key = Array(" id=\"".utf8)
        guard let r = find(b, key, from: 0) else { return nil }
        let start = r + key.count
        var end = start
        while end < b.count, b[end] != 0x22 { end += 1 }
        return String(decoding: b[start..<end], as: UTF8.self)
    }

    /// `s` with every non-overlapping occurrence of `target` (left to right) replaced.
    static func replacingAll(_ s: String, _ target: String, with replacement: String) -> String {
        let b = Array(s.utf8), t = Array(target.utf8), r = Array(replacement.utf8)
        guard !t.isEmpty else { return s }
        var out: [UInt8] = []
        out.reserveCapacity(b.count + 64)
        var i = 0
        while let at = find(b, t, from: i) {
            out.append(contentsOf: b[i..<at])
            out.append(contentsOf: r)
            i = at + t.count
        }
        out.append(contentsOf: b[i...])
        return String(decoding: out, as: UTF8.self)
    }

    /// The first index at or after `from` where `needle` occurs in `hay`.
    static func find(_ hay: [UInt8], _ needle: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, hay.count >= needle.count else { return nil }
        var i = from
        let last = hay.count - needle.count
        while i <= last {
            if hay[i] == first {
                var j = 1
                while j < needle.count, hay[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
