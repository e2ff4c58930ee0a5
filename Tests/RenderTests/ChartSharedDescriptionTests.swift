import Testing
@testable import Render

/// ``Charts/responsive(_:_:)`` draws each drawing with its class and id and gives the
/// narrow one the wide one's `<desc>` (``ChartOptions/sharedDescription``) instead of
/// summarising the data again; round four drew both alone and edited the finished SVGs
/// (class inserted, narrow ids replaced). Every chart kind, with and without a data
/// summary, with a given id, with text needing escaping, and with no data, both ways.
struct ChartSharedDescriptionTests {
    /// `responsive` as it was before the narrow drawing shared the description.
    static func referenceResponsive(_ options: ChartOptions, _ draw: (ChartOptions) -> String) -> String {
        let wide = draw(options)
        guard options.width > Charts.narrowWidth else {
            return Charts.frameOpening(width: options.width) + mark(wide, "chart-wide") + "</div>"
        }
        var n = options
        n.width = Charts.narrowWidth
        n.id = nil
        var narrow = draw(n)
        if let id = idOf(narrow), let wideID = idOf(wide) {
            narrow = replacingAll(narrow, id, with: wideID + "-n")
        }
        return Charts.frameOpening(width: options.width) + mark(wide, "chart-wide") + mark(narrow, "chart-narrow")
            + "</div>"
    }

    // The edits round four made to the finished drawings (the reference).

    static func mark(_ svg: String, _ cls: String) -> String {
        let b = Array(svg.utf8)
        guard let r = find(b, Array("class=\"dossier-chart ".utf8), from: 0) else { return svg }
        var out = Array(b[..<r])
        out.append(contentsOf: "class=\"dossier-chart \(cls) ".utf8)
        out.append(contentsOf: b[(r + "class=\"dossier-chart ".utf8.count)...])
        return String(decoding: out, as: UTF8.self)
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

    static let evil = "<b>x</b> & \"q\" 'it' \u{01}"

    typealias Draw = (ChartOptions) -> String

    static func points() -> [XYPoint] {
        var pts: [XYPoint] = []
        for i in 0..<30 {
            let x: Double = Double(i % 7), y: Double = Double((i * 13) % 11)
            pts.append(XYPoint(x: x, y: y, label: i == 3 ? evil : nil))
        }
        return pts
    }

    static func draws() -> [(String, Draw)] {
        let pts = points()
        let values: [Double] = (0..<200).map { (i: Int) -> Double in Double((i * 37) % 101) }
        let boxValues: [Double] = (0..<50).map { (i: Int) -> Double in Double(i % 17) } + [90]
        let bar: Draw = { o in
            BarChart.render(categories: ["a", evil, "c"],
                series: [BarSeries(name: evil, values: [1, nil, 3]), BarSeries(name: "s", values: [2, 2, .nan])],
                            options: o, horizontal: false)
        }
        let barH: Draw = { o in
            BarChart.render(
                categories: ["a", "b"], series: [BarSeries(name: "s", values: [1, -2])], options: o, horizontal: true)
        }
        let line: Draw = { o in
            XYChart.render(series: [XYSeries(name: "l", points: pts), XYSeries(name: "empty", points: [])], options: o,
                           kind: .line, trend: nil)
        }
        let scatter: Draw = { o in
            XYChart.render(series: [XYSeries(name: evil, points: pts)], options: o, kind: .scatter,
                           trend: XYSeries(name: "fit", points: [XYPoint(x: 0, y: 1), XYPoint(x: 6, y: 9)]))
        }
        let histogram: Draw = { o in HistogramChart.render(values: values, options: o, bins: nil, overlay: nil) }
        let heatmap: Draw = { o in
            HeatmapChart.render(rows: ["r1", evil], columns: ["c1", "c2"], values: [[1, nil], [3, 4]], options: o,
                                cellLabels: nil, scale: .sequential)
        }
        let box: Draw = { o in
            BoxPlotChart.render(
                groups: [BoxGroup(name: evil, values: boxValues), BoxGroup(name: "none", values: [])], options: o)
        }
        let lanes: [TimelineLane] = [
            TimelineLane(name: evil, spans: [TimelineSpan(start: 0, end: 5, label: "x", category: "A"),
                                             TimelineSpan(start: 5, end: 5, label: evil, category: "B")]),
            TimelineLane(name: "empty", spans: []),
        ]
        let timeline: Draw = { o in TimelineChart.render(lanes: lanes, options: o) }
        let noData: Draw = { o in XYChart.render(series: [], options: o, kind: .line, trend: nil) }
        return [("bar", bar), ("bar-h", barH), ("line", line), ("scatter", scatter), ("histogram", histogram),
                ("heatmap", heatmap), ("boxplot", box), ("timeline", timeline), ("no-data", noData)]
    }

    @Test func narrowDrawingAsDrawnAlone() {
        let optionSets = [
            ChartOptions(title: "Plain title", description: "Says what it shows.", xLabel: "x", yLabel: "y"),
            ChartOptions(title: Self.evil, description: "  \n padded " + Self.evil + "\t"),
            ChartOptions(title: "No summary", description: "", dataSummary: false),
            ChartOptions(title: "", description: ""),
            ChartOptions(title: "Given id", id: "my chart", showTitle: false),
            ChartOptions(title: "Given id with a digit first", id: "9 lives é"),
            ChartOptions(title: "Narrow already", width: 300),
        ]
        for (name, draw) in Self.draws() {
            for (i, o) in optionSets.enumerated() {
                #expect(Charts.responsive(o, draw) == Self.referenceResponsive(o, draw), "\(name), options \(i)")
            }
        }
    }
}
