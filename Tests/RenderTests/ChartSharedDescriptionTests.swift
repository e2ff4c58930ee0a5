import Testing
@testable import Render

/// The narrow drawing of ``Charts/responsive(_:_:)`` reuses the wide drawing's `<desc>`
/// (``ChartOptions/sharedDescription``) instead of summarising the data again: every
/// chart kind, with and without a data summary, with text needing escaping, and with no
/// data, drawn both ways.
struct ChartSharedDescriptionTests {
    /// `responsive` as it was before the narrow drawing shared the description.
    static func referenceResponsive(_ options: ChartOptions, _ draw: (ChartOptions) -> String) -> String {
        let wide = draw(options)
        guard options.width > Charts.narrowWidth else {
            return "<div class=\"chart-frame\">" + Charts.mark(wide, "chart-wide") + "</div>"
        }
        var n = options
        n.width = Charts.narrowWidth
        n.id = nil
        var narrow = draw(n)
        if let id = Charts.idOf(narrow), let wideID = Charts.idOf(wide) {
            narrow = Charts.replacingAll(narrow, id, with: wideID + "-n")
        }
        return "<div class=\"chart-frame\">" + Charts.mark(wide, "chart-wide") + Charts.mark(narrow, "chart-narrow") + "</div>"
    }

    static let evil = "<b>x</b> & \"q\" 'it' \u{01}"

    static func draws() -> [(String, (ChartOptions) -> String)] {
        let pts = (0..<30).map { XYPoint(x: Double($0 % 7), y: Double(($0 * 13) % 11), label: $0 == 3 ? evil : nil) }
        return [
            ("bar", { BarChart.render(categories: ["a", evil, "c"], series: [BarSeries(name: evil, values: [1, nil, 3]),
                                                                              BarSeries(name: "s", values: [2, 2, .nan])],
                                      options: $0, horizontal: false) }),
            ("bar-h", { BarChart.render(categories: ["a", "b"], series: [BarSeries(name: "s", values: [1, -2])], options: $0, horizontal: true) }),
            ("line", { XYChart.render(series: [XYSeries(name: "l", points: pts), XYSeries(name: "empty", points: [])], options: $0,
                                      kind: .line, trend: nil) }),
            ("scatter", { XYChart.render(series: [XYSeries(name: evil, points: pts)], options: $0, kind: .scatter,
                                         trend: XYSeries(name: "fit", points: [XYPoint(x: 0, y: 1), XYPoint(x: 6, y: 9)])) }),
            ("histogram", { HistogramChart.render(values: (0..<200).map { Double(($0 * 37) % 101) }, options: $0, bins: nil, overlay: nil) }),
            ("heatmap", { HeatmapChart.render(rows: ["r1", evil], columns: ["c1", "c2"], values: [[1, nil], [3, 4]], options: $0,
                                              cellLabels: nil, scale: .sequential) }),
            ("boxplot", { BoxPlotChart.render(groups: [BoxGroup(name: evil, values: (0..<50).map { Double($0 % 17) } + [90]),
                                                       BoxGroup(name: "none", values: [])], options: $0) }),
            ("timeline", { TimelineChart.render(lanes: [TimelineLane(name: evil, spans: [TimelineSpan(start: 0, end: 5, label: "x", category: "A"),
                                                                                         TimelineSpan(start: 5, end: 5, label: evil, category: "B")]),
                                                        TimelineLane(name: "empty", spans: [])], options: $0) }),
            ("no-data", { XYChart.render(series: [], options: $0, kind: .line, trend: nil) }),
        ]
    }

    @Test func narrowDrawingAsDrawnAlone() {
        let optionSets = [
            ChartOptions(title: "Plain title", description: "Says what it shows.", xLabel: "x", yLabel: "y"),
            ChartOptions(title: Self.evil, description: "  \n padded " + Self.evil + "\t"),
            ChartOptions(title: "No summary", description: "", dataSummary: false),
            ChartOptions(title: "", description: ""),
            ChartOptions(title: "Given id", id: "my chart", showTitle: false),
            ChartOptions(title: "Narrow already", width: 300),
        ]
        for (name, draw) in Self.draws() {
            for (i, o) in optionSets.enumerated() {
                #expect(Charts.responsive(o, draw) == Self.referenceResponsive(o, draw), "\(name), options \(i)")
            }
        }
    }
}
