import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Render

// MARK: - Quartiles, whiskers, outliers

/// Type-7 quantile written out from the definition for the test: with n sorted values,
/// position h = 1 + (n − 1)p (1-based), q = x_⌊h⌋ + (h − ⌊h⌋)(x_⌊h⌋+1 − x_⌊h⌋).
private func type7(_ values: [Double], _ p: Double) -> Double {
    let x = values.sorted()
    let h = 1 + Double(x.count - 1) * p
    let j = Int(h)
    let g = h - Double(j)
    if j >= x.count { return x[x.count - 1] }
    return x[j - 1] + g * (x[j] - x[j - 1])
}

@Test func quartilesMatchTheType7Definition() throws {
    // R: quantile(1:10) gives 3.25, 5.5, 7.75 for 25/50/75%
    let s = try #require(BoxStats(values: (1...10).map(Double.init)))
    #expect(s.q1 == 3.25 && s.median == 5.5 && s.q3 == 7.75)
    // odd count with an outlier, by hand: h(0.25) = 1 + 10·0.25 = 3.5 → 3 + 0.5·(4 − 3) = 3.5;
    // median x_6 = 6; h(0.75) = 8.5 → 8.5. IQR 5, fences −4 and 16 → whiskers 1 and 10, outlier 100.
    let data: [Double] = [100, 7, 1, 9, 2, 8, 3, 10, 4, 6, 5]
    let b = try #require(BoxStats(values: data + [.nan, .infinity]))
    #expect(b.count == 11)
    #expect(b.q1 == 3.5 && b.median == 6 && b.q3 == 8.5)
    #expect(b.lowerWhisker == 1 && b.upperWhisker == 10 && b.outliers == [100])
    #expect(b.min == 1 && b.max == 100 && b.mean == 155.0 / 11)
    // a pseudo-random sample against the definition above
    var seed: UInt64 = 99
    let sample = (0..<37).map { _ -> Double in
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return Double(seed >> 40) / 1000
    }
    let r = try #require(BoxStats(values: sample))
    for (p, q) in [(0.25, r.q1), (0.5, r.median), (0.75, r.q3)] {
        #expect(abs(type7(sample, p) - q) < 1e-9)
    }
    let iqr = r.q3 - r.q1
    let inside = sample.filter { $0 >= r.q1 - 1.5 * iqr && $0 <= r.q3 + 1.5 * iqr }
    #expect(r.lowerWhisker == inside.min() && r.upperWhisker == inside.max())
    #expect(r.outliers.count == sample.count - inside.count)
    #expect(BoxStats(values: [.nan]) == nil)
}

@Test func boxPlotDrawsOneCirclePerOutlier() {
    let svg = wideSVG(Charts.boxPlot(groups: [BoxGroup(name: "g", values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100, -80])],
                                     options: ChartOptions(title: "t")))
    #expect(occurrences("outlier: ", in: svg) == 2)
    #expect(svg.contains("whiskers 1 to 10"))
}

// MARK: - Histogram bins

@Test func histogramWithGivenBins() throws {
    // 0…9 in 3 bins: width 3, edges 0,3,6,9; [0,3) = 0,1,2; [3,6) = 3,4,5; [6,9] = 6,7,8,9
    let h = try #require(HistogramBins(values: (0...9).map(Double.init), bins: 3))
    #expect(h.edges == [0, 3, 6, 9])
    #expect(h.counts == [3, 3, 4])
    #expect(h.rule == "given")
}

@Test func histogramFreedmanDiaconisAndSturges() throws {
    // 1…100: type-7 Q1 = 25.75, Q3 = 75.25, IQR 49.5; h = 2·49.5/100^(1/3) ≈ 21.33;
    // k = ⌈99 / 21.33⌉ = 5
    let v = (1...100).map(Double.init)
    let iqr = type7(v, 0.75) - type7(v, 0.25)
    let width = 2 * iqr / pow(100, 1.0 / 3)
    let fd = try #require(HistogramBins(values: v))
    #expect(fd.rule == "freedman-diaconis")
    #expect(fd.counts.count == Int(ceil(99 / width)) && fd.counts.count == 5)
    #expect(fd.counts.reduce(0, +) == 100)
    // IQR 0 → Sturges: ⌈log2 5⌉ + 1 = 4 bins
    let st = try #require(HistogramBins(values: [1, 1, 1, 1, 2]))
    #expect(st.rule == "sturges" && st.counts.count == 4 && st.counts.first == 4 && st.counts.last == 1)
    // all equal → one-unit range around the value
    let eq = try #require(HistogramBins(values: [7, 7, 7], bins: 2))
    #expect(eq.edges == [6.5, 7, 7.5] && eq.counts == [0, 3])
    #expect(HistogramBins(values: [.nan, .infinity]) == nil)
}

// MARK: - Empty and non-finite input

@Test func emptyInputSaysNoData() throws {
    let o = ChartOptions(title: "Empty")
    let charts = [
        Charts.bar(categories: [], series: [], options: o),
        Charts.bar(categories: ["a"], series: [BarSeries(name: "s", values: [nil, .nan])], options: o),
        Charts.line(series: [XYSeries(name: "s", points: [])], options: o),
        Charts.scatter(series: [], options: o),
        Charts.histogram(values: [.nan], options: o),
        Charts.heatmap(rows: ["a"], columns: ["b"], values: [[nil]], options: o),
        Charts.heatmap(rows: [], columns: [], values: [], options: o),
        Charts.boxPlot(groups: [BoxGroup(name: "g", values: [])], options: o),
        Charts.boxPlot(groups: [(name: "g", values: [Double]())], options: o),
        Charts.timeline(lanes: [TimelineLane(name: "l", spans: [])], options: o),
    ]
    for svg in charts {
        let doc = try #require(chartXML(svg))
        #expect(svg.contains(">No data</text>"))
        #expect(xmlElements(doc, named: "desc").first?.stringValue == "No data.")
    }
}

@Test func nonFiniteValuesAreSkipped() {
    let bar = wideSVG(
        Charts.bar(
            categories: ["a", "b", "c"], series: [BarSeries(name: "s", values: [.nan, 2, .infinity])],
            options: ChartOptions(title: "t")))
    #expect(occurrences("</title></rect>", in: bar) == 1)  // one bar, with its tooltip
    let line = Charts.line(series: [XYSeries(name: "s", xy: [(0, 1), (1, 2), (2, .nan), (3, 1), (4, 2)])],
                           options: ChartOptions(title: "t"))
    let d = line.components(separatedBy: "<path d=\"").dropFirst().first!.prefix { $0 != "\"" }
    #expect(occurrences("M", in: String(d)) == 2 && occurrences("L", in: String(d)) == 2)
    #expect(!line.contains("nan") && !line.contains("inf"))
    let scatter = wideSVG(
        Charts.scatter(
            series: [XYSeries(name: "s", xy: [(0, 1), (.infinity, 2), (2, 3)])], options: ChartOptions(title: "t")))
    #expect(occurrences("<circle", in: scatter) == 2)
    // beyond the tooltip limit, points on the same rounded pixel are drawn once
    let many = (0..<(XYChart.tooltipLimit + 1)).map { i in XYPoint(x: Double(i % 2), y: 1) }
    #expect(
        occurrences(
            "<circle",
            in: wideSVG(Charts.scatter(series: [XYSeries(name: "s", points: many)], options: ChartOptions(title: "t"))))
            == 2)
    // every marker shape parses (7 series use all 7 shapes, twice over with 14)
    let shapes = Charts.scatter(
        series: (0..<14).map { XYSeries(name: "s\($0)", xy: [(Double($0), 1)]) }, options: ChartOptions(title: "t"))
    #expect(chartXML(shapes) != nil)
    let lines = Charts.line(
        series: (0..<14).map { XYSeries(name: "s\($0)", xy: [(0, Double($0)), (1, 2)]) },
        options: ChartOptions(title: "t"))
    #expect(chartXML(lines) != nil)
}

// MARK: - Heatmap

@Test func heatmapLabelsCellsAndHasAScale() throws {
    let svg = Charts.heatmap(rows: ["r1", "r2"], columns: ["c1", "c2"], values: [[0, 1], [2, nil]],
                             options: ChartOptions(title: "h"), cellLabels: [["zero", "one"], ["two", "none"]])
    let doc = try #require(chartXML(svg))
    let texts = xmlElements(doc, named: "text").compactMap(\.stringValue)
    for l in ["zero", "one", "two", "none"] { #expect(texts.contains(l)) }
    #expect(xmlElements(doc, named: "linearGradient").count == 1)
    #expect(svg.contains("fill=\"\(HeatmapChart.sequentialStops.first!.lowercased())\""))  // minimum cell
    #expect(svg.contains("fill=\"\(HeatmapChart.sequentialStops.last!.lowercased())\""))   // maximum cell
    #expect(svg.contains("fill=\"\(HeatmapChart.missing)\""))                   // the nil cell
    #expect(HeatmapChart.color(0.5, ["#000000", "#ffffff"]) == "#808080")
    #expect(LabelInk.ink(on: "#ffffff") != LabelInk.ink(on: "#000000"))
}

/// `showValues` without given labels: every cell label of one heatmap has the same number
/// of decimals (the most any value needs), reads back as its value, and a negative value
/// carries U+2212, never a hyphen-minus.
@Test func heatmapValueLabelsShareOneNumberOfDecimals() throws {
    let values: [[Double?]] = [[8, 8.03, -1.5], [2, nil, 0.25], [-0.001, 12, 7.1]]
    let svg = Charts.heatmap(rows: ["a", "b", "c"], columns: ["x", "y", "z"], values: values,
                             options: ChartOptions(title: "h", width: 900, showValues: true))
    let doc = try #require(chartXML(svg))
    let group = try #require(xmlElements(doc, named: "g").first { xmlAttr($0, "class") == "cell-labels" })
    let labels = xmlElements(group, named: "text").compactMap(\.stringValue)
    #expect(labels.count == values.joined().compactMap { $0 }.count)
    let decimals = Set(labels.map { $0.split(separator: ".").dropFirst().first?.count ?? 0 })
    #expect(decimals.count == 1, "\(labels)")
    #expect(!labels.contains { $0.contains("-") }, "\(labels)")
    let read = labels.compactMap { Double($0.replacingOccurrences(of: "\u{2212}", with: "-")) }
    #expect(read.count == labels.count)
    let want = values.joined().compactMap { $0 }
    for (r, v) in zip(read, want) { #expect(abs(r - v) <= 0.005 + 1e-9, "\(r) for \(v)") }
    #expect(labels.contains { $0.hasPrefix("\u{2212}") })
}

// MARK: - Timeline

@Test func timelineColoursByCategoryAndMarksInstants() {
    let svg = wideSVG(Charts.timeline(lanes: [
                TimelineLane(
                    name: "A",
                    spans: [
                        TimelineSpan(start: 0, end: 10, category: "x"), TimelineSpan(start: 10, end: 20, category: "y")
                    ]),
                TimelineLane(
                    name: "B",
                    spans: [
                        TimelineSpan(start: 5, end: 15, category: "x"),
                        TimelineSpan(start: 15, end: 15, label: "now", category: "y")
                    ])
    ], options: ChartOptions(title: "t")))
    #expect(occurrences("fill=\"\(ChartStyle.color(0))\" stroke", in: svg) == 2)  // the two "x" spans
    #expect(occurrences("fill=\"\(ChartStyle.color(1))\" stroke", in: svg) == 2)  // "y" span and the instant
    #expect(svg.contains("B: now (y) at 15"))
    #expect(svg.contains("class=\"legend\""))
}

@Test func overlappingSpansGetTheirOwnSubRow() {
    let spans = [TimelineSpan(start: 0, end: 10), TimelineSpan(start: 5, end: 8), TimelineSpan(start: 10, end: 12),
                 TimelineSpan(start: 6, end: 20)]
    let packed = TimelineChart.packRows(spans)
    // 0–10 → row 0; 5–8 overlaps → row 1; 6–20 overlaps both → row 2; 10–12 fits after 0–10 → row 0
    #expect(packed.rows == [0, 1, 0, 2] && packed.count == 3)
}

// MARK: - Fitting narrow screens

@Test func everyChartComesInAFrameWithAWideAndANarrowDrawing() throws {
    let frame = Charts.bar(categories: ["a", "b"], series: [BarSeries(name: "n", values: [1, 3])],
                           options: ChartOptions(title: "Counts", id: "counts"))
    #expect(frame.hasPrefix("<div class=\"chart-frame\"><svg"))
    let wide = wideSVG(frame)
    let narrow = try #require(narrowSVG(frame))
    #expect(wide.contains("class=\"dossier-chart chart-wide ") && wide.contains("viewBox=\"0 0 640 320\""))
    #expect(narrow.contains("class=\"dossier-chart chart-narrow ") && narrow.contains("viewBox=\"0 0 340 320\""))
    #expect(narrow.contains("id=\"counts-n\"") && narrow.contains("aria-labelledby=\"counts-n-title counts-n-desc\""))
    #expect(!narrow.contains("id=\"counts\""))
    _ = try #require(try? XMLDocument(xmlString: narrow, options: []))
}

@Test func noChartTextIsSmallerThanElevenUnits() {
    for (name, svg) in ChartSamples.all() {
        for m in svg.matches(of: /font-size="([0-9.]+)"/) {
            #expect(Double(m.1)! >= 11, "\(name): font-size \(m.1)")
        }
    }
}

@Test func countAxesHaveWholeNumberTicks() {
    let s = NiceScale(min: 0, max: 2, count: 5, integer: true)
    #expect(s.step == 1 && s.ticks == [0, 1, 2])
    let free = NiceScale(min: 0, max: 2, count: 5)
    #expect(free.step == 0.5)
    let bars = Charts.bar(categories: ["weak", "strong"], series: [BarSeries(name: "Entries", values: [1, 2])],
                          options: ChartOptions(title: "Entries"))
    #expect(!bars.contains(">0.5<") && !bars.contains(">1.5<"))
    let sessions = Charts.line(
        series: [XYSeries(name: "s", xy: [(1, 3.2), (2, 4.1)])], options: ChartOptions(title: "Sessions"))
    #expect(!sessions.contains(">1.5<"))
}
