import Foundation

/// SVG charts for reports. Every function returns one self-contained `<svg>` element:
/// `role="img"`, `aria-labelledby` naming its `<title>` and `<desc>`, a `viewBox` and
/// 100% width, inline presentation attributes (no CSS or JavaScript needed), the
/// Okabe–Ito palette, and byte-identical output for identical input. Non-finite values
/// are skipped; no data gives a chart that says "No data". See docs/charts.md.
public enum Charts {
    /// Grouped bar chart: one group per category, one bar per series
    /// (`horizontal` puts categories on the y axis).
    public static func bar(categories: [String], series: [BarSeries], options: ChartOptions,
                           horizontal: Bool = false) -> String {
        BarChart.render(categories: categories, series: series, options: options, horizontal: horizontal)
    }

    /// Line chart: each series is a polyline in its own colour, dash and marker;
    /// a non-finite point breaks the line.
    public static func line(series: [XYSeries], options: ChartOptions) -> String {
        XYChart.render(series: series, options: options, kind: .line, trend: nil)
    }

    /// Scatter plot: markers by series (colour and shape), optional trend line.
    public static func scatter(series: [XYSeries], options: ChartOptions, trend: XYSeries? = nil) -> String {
        XYChart.render(series: series, options: options, kind: .scatter, trend: trend)
    }

    /// Histogram of `values`. `bins` nil chooses Freedman–Diaconis (Sturges when the
    /// IQR is 0); `overlay` is a curve in count units (e.g. a fitted density × n × width).
    public static func histogram(values: [Double], options: ChartOptions, bins: Int? = nil,
                                 overlay: XYSeries? = nil) -> String {
        HistogramChart.render(values: values, options: options, bins: bins, overlay: overlay)
    }

    /// Heatmap: `values[r][c]` for row `rows[r]` and column `columns[c]`, with a colour
    /// legend; `cellLabels[r][c]` is written in each cell when given.
    public static func heatmap(rows: [String], columns: [String], values: [[Double?]], options: ChartOptions,
                               cellLabels: [[String]]? = nil, scale: HeatmapScale = .sequential) -> String {
        HeatmapChart.render(rows: rows, columns: columns, values: values, options: options,
                            cellLabels: cellLabels, scale: scale)
    }

    /// Box plot: quartiles by linear interpolation (type 7), Tukey whiskers at 1.5 IQR,
    /// outliers as points, mean as a diamond.
    public static func boxPlot(groups: [BoxGroup], options: ChartOptions) -> String {
        BoxPlotChart.render(groups: groups, options: options)
    }

    /// Box plot from `(name, values)` pairs.
    public static func boxPlot(groups: [(name: String, values: [Double])], options: ChartOptions) -> String {
        boxPlot(groups: groups.map { BoxGroup(name: $0.name, values: $0.values) }, options: options)
    }

    /// Timeline: one lane per row, spans as bars coloured by category, instants as diamonds.
    public static func timeline(lanes: [TimelineLane], options: ChartOptions) -> String {
        TimelineChart.render(lanes: lanes, options: options)
    }
}
