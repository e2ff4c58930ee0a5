/// Each chart's drawing as its `<svg>` element: the chart's canvas (`canvas(…)`: its
/// marks, axes and legend drawn, not yet finished) finished. A frame
/// (``Charts/responsiveWritten(_:_:)``) writes the canvases straight into its own bytes;
/// these are for one drawing alone and for the tests, which compare the two.
extension BarChart {
    static func render(categories: [String], series: [BarSeries], options: ChartOptions, horizontal: Bool,
                       tips: [[String?]]? = nil) -> String {
        canvas(categories: categories, series: series, options: options, horizontal: horizontal, tips: tips)
            .finish()
    }
}

extension BoxPlotChart {
    static func render(groups: [BoxGroup], options: ChartOptions, stats: [BoxStats?]? = nil,
                       described: [String?]? = nil) -> String {
        canvas(groups: groups, options: options, stats: stats, described: described).finish()
    }
}

extension HeatmapChart {
    static func render(rows: [String], columns: [String], values: [[Double?]], options: ChartOptions,
                       cellLabels: [[String]]?, scale: HeatmapScale) -> String {
        canvas(rows: rows, columns: columns, values: values, options: options, cellLabels: cellLabels, scale: scale)
            .finish()
    }
}

extension HistogramChart {
    static func render(values: [Double], options: ChartOptions, bins: Int?, overlay: XYSeries?) -> String {
        canvas(values: values, options: options, bins: bins, overlay: overlay).finish()
    }
}

extension TimelineChart {
    static func render(lanes: [TimelineLane], options: ChartOptions, tips: [[String]]? = nil) -> String {
        canvas(lanes: lanes, options: options, tips: tips).finish()
    }
}

extension XYChart {
    static func render(series: [XYSeries], options: ChartOptions, kind: Kind, trend: XYSeries?,
                       tips: [[String?]]? = nil) -> String {
        canvas(series: series, options: options, kind: kind, trend: trend, tips: tips).finish()
    }
}
