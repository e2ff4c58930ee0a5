import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Render

// MARK: - Sample charts (also written to $DOSSIER_CHART_SAMPLES for visual checks)

enum ChartSamples {
    static let evil = "<script>alert('x')</script> & \"q\""

    static func all() -> [(name: String, svg: String)] {
        var out: [(name: String, svg: String)] = []
        let bar: String = Charts.bar(categories: ["Session 1", "Session 2", "Session 3", "Session 4"],
                               series: [BarSeries(name: "Accuracy", values: [0.62, 0.71, 0.8, 0.86]),
                                        BarSeries(name: "Recall", values: [0.4, 0.55, nil, 0.77])],
                               options: ChartOptions(title: "Accuracy and recall by session", description: "Both rise over sessions.",
                                                     xLabel: "Session", yLabel: "Proportion", showValues: true))
        out.append(("bar", bar))
        let bar_horizontal: String = Charts.bar(categories: ["Weak passwords", "Reused passwords", "Old passwords (over two years)", "Missing TOTP"],
                                          series: [BarSeries(name: "Entries", values: [12, 7, 23, -3])],
                                          options: ChartOptions(title: "Vault findings", xLabel: "Entries"), horizontal: true)
        out.append(("bar-horizontal", bar_horizontal))
        let bar_many: String = Charts.bar(categories: (1...14).map { "Participant P\($0)" },
                                    series: [BarSeries(name: "Errors", values: (1...14).map { Double(($0 * 37) % 11) })],
                                    options: ChartOptions(title: "Errors per participant", yLabel: "Errors"))
        out.append(("bar-many", bar_many))
        var speed: [XYPoint] = [], median: [XYPoint] = []
        for i in 0..<12 {
            let x = Double(i)
            speed.append(XYPoint(x: x, y: 40 + 3 * x + Double((i * 7) % 5)))
            median.append(XYPoint(x: x, y: i == 6 ? Double.nan : 45 + 2 * x))
        }
        let line: String = Charts.line(series: [XYSeries(name: "Typing speed", points: speed),
                                                XYSeries(name: "Cohort median", points: median),
                                                XYSeries(name: "Target", points: [XYPoint(x: 0, y: 70), XYPoint(x: 11, y: 70)])],
                                       options: ChartOptions(title: "Typing speed over sessions", xLabel: "Session", yLabel: "Characters per minute"))
        out.append(("line", line))
        var groupA: [XYPoint] = [], groupB: [XYPoint] = []
        for i in 0..<40 {
            let x: Double = Double(i % 13) * 1.7 + 3
            let y: Double = Double((i * 17) % 23) * 10 + 250
            groupA.append(XYPoint(x: x, y: y))
        }
        for i in 0..<30 {
            let x: Double = Double(i % 11) * 2.1 + 1
            let y: Double = Double((i * 29) % 19) * 12 + 300
            groupB.append(XYPoint(x: x, y: y, label: i == 0 ? "player 7" : nil))
        }
        let scatter: String = Charts.scatter(series: [XYSeries(name: "Group A", points: groupA), XYSeries(name: "Group B", points: groupB)],
                                             options: ChartOptions(title: "Reaction time vs level", xLabel: "Level", yLabel: "Reaction time (ms)"),
                                             trend: XYSeries(name: "Least-squares fit", points: [XYPoint(x: 0, y: 330), XYPoint(x: 25, y: 420)]))
        out.append(("scatter", scatter))
        var rts: [Double] = []
        for i in 0..<300 {
            let wave: Double = 120 * sin(Double(i) * 1.7)
            rts.append(400 + wave + Double((i * 31) % 97))
        }
        var curve: [XYPoint] = []
        for x in stride(from: 250.0, through: 640, by: 10) {
            let z: Double = (x - 448) / 98
            let density: Double = exp(-z * z / 2) / (98 * (2 * Double.pi).squareRoot())
            curve.append(XYPoint(x: x, y: 300 * 36 * density))
        }
        let histogram: String = Charts.histogram(values: rts, options: ChartOptions(title: "Reaction times", xLabel: "Reaction time (ms)", yLabel: "Trials"),
                                                 overlay: XYSeries(name: "Fitted normal", points: curve))
        out.append(("histogram", histogram))
        let heatmap: String = Charts.heatmap(rows: ["Mon", "Tue", "Wed", "Thu"], columns: ["08h", "10h", "12h", "14h", "16h", "18h"],
                                       values: [[1, 4, 9, 3, nil, 0], [2, 6, 12, 5, 3, 1], [0, 3, 7, 14, 6, 2], [1, 1, 2, 3, 5, 8]],
                                       options: ChartOptions(title: "Sessions by weekday and hour", xLabel: "Hour", yLabel: "Day", showValues: true))
        out.append(("heatmap", heatmap))
        let heatmap_diverging: String = Charts.heatmap(rows: ["a", "b", "c"], columns: ["x", "y", "z"],
                                                 values: [[-0.8, 0.1, 0.5], [0.3, -0.2, 0.9], [0, 0.4, -0.5]],
                                                 options: ChartOptions(title: "Correlation"),
                                                 cellLabels: [["-.8", ".1", ".5"], [".3", "-.2", ".9"], ["0", ".4", "-.5"]],
                                                 scale: .diverging(center: 0))
        out.append(("heatmap-diverging", heatmap_diverging))
        let boxplot: String = Charts.boxPlot(groups: [
                BoxGroup(name: "Easy", values: (0..<40).map { 300 + Double(($0 * 37) % 80) } + [520, 560]),
                BoxGroup(name: "Medium", values: (0..<40).map { 360 + Double(($0 * 53) % 120) }),
                BoxGroup(name: "Hard", values: (0..<40).map { 420 + Double(($0 * 71) % 160) } + [250]),
                BoxGroup(name: "Empty", values: []),
            ], options: ChartOptions(title: "Reaction time by difficulty", xLabel: "Difficulty", yLabel: "ms"))
        out.append(("boxplot", boxplot))
        let timeline: String = Charts.timeline(lanes: [
                TimelineLane(name: "Lobby", spans: [TimelineSpan(start: 0, end: 12, label: "Intro", category: "audio"),
                                                    TimelineSpan(start: 12, end: 12, label: "Door", category: "hotspot")]),
                TimelineLane(name: "Garden", spans: [TimelineSpan(start: 12, end: 40, label: "Birdsong", category: "audio"),
                                                     TimelineSpan(start: 20, end: 31, label: "Fountain video", category: "video")]),
                TimelineLane(name: "Kitchen", spans: [TimelineSpan(start: 40, end: 58, label: "Walkthrough", category: "video")]),
            ], options: ChartOptions(title: "Experience timeline", xLabel: "Seconds"))
        out.append(("timeline", timeline))
        let no_data: String = Charts.line(series: [], options: ChartOptions(title: "Nothing yet"))
        out.append(("no-data", no_data))
        return out.map { ($0.name, wideSVG($0.svg)) }
    }
}

/// The wide drawing (the first `<svg>`) of a chart frame; `s` itself when it is a bare svg.
func wideSVG(_ s: String) -> String {
    guard s.hasPrefix("<div"), let a = s.range(of: "<svg"), let b = s.range(of: "</svg>") else { return s }
    return String(s[a.lowerBound..<b.upperBound])
}

/// The narrow drawing (the second `<svg>`) of a chart frame.
func narrowSVG(_ s: String) -> String? {
    guard let first = s.range(of: "</svg>"), let a = s.range(of: "<svg", range: first.upperBound..<s.endIndex),
          let b = s.range(of: "</svg>", range: a.upperBound..<s.endIndex) else { return nil }
    return String(s[a.lowerBound..<b.upperBound])
}

// MARK: - XML helpers

/// Parses `svg` as XML; nil when it is not well-formed.
private func parse(_ svg: String) -> XMLDocument? {
    try? XMLDocument(xmlString: wideSVG(svg), options: [])
}

/// An attribute by local name (FoundationXML on Linux does not find un-prefixed
/// attributes of an element in a default namespace by `attribute(forName:)`).
private func attr(_ e: XMLElement, _ name: String) -> String? {
    (e.attributes ?? []).first { $0.name == name || $0.localName == name }?.stringValue
}

private func elements(_ node: XMLNode, named name: String) -> [XMLElement] {
    var out: [XMLElement] = []
    if let e = node as? XMLElement, e.name == name { out.append(e) }
    for child in node.children ?? [] { out += elements(child, named: name) }
    return out
}

private func elementWithID(_ doc: XMLDocument, _ id: String) -> XMLElement? {
    func walk(_ n: XMLNode) -> XMLElement? {
        if let e = n as? XMLElement, attr(e, "id") == id { return e }
        for c in n.children ?? [] { if let f = walk(c) { return f } }
        return nil
    }
    return walk(doc)
}

private func count(_ needle: String, in s: String) -> Int {
    s.components(separatedBy: needle).count - 1
}

// MARK: - Structure and accessibility

@Test func everySampleIsWellFormedSVGWithReferencedTitleAndDesc() throws {
    for (name, svg) in ChartSamples.all() {
        let doc = try #require(parse(svg), "\(name) is not well-formed XML")
        let root = try #require(doc.rootElement())
        #expect(root.name == "svg", "\(name)")
        #expect(attr(root, "role") == "img", "\(name)")
        #expect(attr(root, "width") == "100%", "\(name)")
        #expect(attr(root, "viewBox")?.hasPrefix("0 0 ") == true, "\(name)")
        let refs = try #require(attr(root, "aria-labelledby")).split(separator: " ").map(String.init)
        #expect(refs.count == 2, "\(name)")
        let title = try #require(elementWithID(doc, refs[0]), "\(name): title id \(refs[0]) missing")
        let desc = try #require(elementWithID(doc, refs[1]), "\(name): desc id \(refs[1]) missing")
        #expect(title.name == "title" && title.parent === root, "\(name)")
        #expect(desc.name == "desc" && desc.parent === root, "\(name)")
        #expect(!(title.stringValue ?? "").isEmpty && !(desc.stringValue ?? "").isEmpty, "\(name)")
        // every url(#…) reference resolves inside the chart
        for part in svg.components(separatedBy: "url(#").dropFirst() {
            let ref = String(part.prefix { $0 != ")" })
            #expect(elementWithID(doc, ref) != nil, "\(name): dangling url(#\(ref))")
        }
    }
}

@Test func samplesCanBeWrittenForVisualChecks() throws {
    let env = ProcessInfo.processInfo.environment["DOSSIER_CHART_SAMPLES"]
    let dir = URL(fileURLWithPath: env ?? NSTemporaryDirectory()).appendingPathComponent(env == nil ? "charts-\(UUID().uuidString)" : "")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { if env == nil { try? FileManager.default.removeItem(at: dir) } }
    var page = "<!doctype html><meta charset=utf-8><body style=\"margin:0;background:#fff\">"
    for (name, svg) in ChartSamples.all() {
        try svg.write(to: dir.appendingPathComponent(name + ".svg"), atomically: true, encoding: .utf8)
        page += "<div style=\"width:640px\">\(svg)</div>"
        let back = try String(contentsOf: dir.appendingPathComponent(name + ".svg"), encoding: .utf8)
        #expect(back == svg)
    }
    try page.write(to: dir.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
}

@Test func userTextIsEscapedEverywhere() throws {
    let e = ChartSamples.evil
    let opts = ChartOptions(title: e, description: e, xLabel: e, yLabel: e)
    let charts = [
        Charts.bar(categories: [e, "b"], series: [BarSeries(name: e, values: [1, 2]), BarSeries(name: "s2", values: [2, 1])], options: opts),
        Charts.bar(categories: [e], series: [BarSeries(name: e, values: [1])], options: opts, horizontal: true),
        Charts.line(series: [XYSeries(name: e, points: [XYPoint(x: 0, y: 1, label: e)]), XYSeries(name: "b", xy: [(1, 2)])], options: opts),
        Charts.scatter(series: [XYSeries(name: e, points: [XYPoint(x: 0, y: 1, label: e)])], options: opts,
                       trend: XYSeries(name: e, xy: [(0, 0), (1, 1)])),
        Charts.histogram(values: [1, 2, 3], options: opts, overlay: XYSeries(name: e, xy: [(1, 1), (2, 2)])),
        Charts.heatmap(rows: [e], columns: [e], values: [[1]], options: opts, cellLabels: [[e]]),
        Charts.boxPlot(groups: [BoxGroup(name: e, values: [1, 2, 3, 40])], options: opts),
        Charts.timeline(lanes: [TimelineLane(name: e, spans: [TimelineSpan(start: 0, end: 100, label: e, category: e),
                                                               TimelineSpan(start: 5, end: 6, category: "other")])], options: opts),
        Charts.line(series: [], options: opts),
    ]
    for svg in charts {
        #expect(!svg.contains("<script"))
        #expect(!svg.contains("'x'"))
        let doc = try #require(parse(svg))
        #expect(elements(doc, named: "script").isEmpty)
        // the text survives as text
        let title = try #require(elements(doc, named: "title").first)
        #expect(title.stringValue == e)
    }
}

@Test func controlCharactersAreDroppedSoTheXMLStaysWellFormed() throws {
    let svg = Charts.bar(categories: ["a\u{0}b\u{1B}c"], series: [BarSeries(name: "s", values: [1])],
                         options: ChartOptions(title: "t\u{7}"))
    let doc = try #require(parse(svg))
    #expect(svg.contains("abc"))
    #expect(elements(doc, named: "title").first?.stringValue == "t")
}

@Test func legendOnlyWithMoreThanOneSeries() {
    let one = Charts.bar(categories: ["a"], series: [BarSeries(name: "only", values: [1])], options: ChartOptions(title: "t"))
    let two = Charts.bar(categories: ["a"], series: [BarSeries(name: "first", values: [1]), BarSeries(name: "second", values: [2])],
                         options: ChartOptions(title: "t"))
    #expect(!one.contains("class=\"legend\""))
    #expect(two.contains("class=\"legend\""))
    #expect(two.contains(">first</text>") && two.contains(">second</text>"))
}

@Test func lineSeriesDifferByDashAndMarkerShape() {
    let svg = Charts.line(series: [XYSeries(name: "a", xy: [(0, 0), (1, 1)]), XYSeries(name: "b", xy: [(0, 1), (1, 0)])],
                          options: ChartOptions(title: "t"))
    #expect(svg.contains("stroke-dasharray=\"\(ChartStyle.dashes[1])\""))
    #expect(svg.contains("<circle"))   // series 1 markers
    #expect(svg.contains("<rect x="))  // series 2 markers are squares
}

// MARK: - Determinism and ids

@Test func sameInputGivesSameBytes() {
    let a = ChartSamples.all(), b = ChartSamples.all()
    for (x, y) in zip(a, b) { #expect(x.svg == y.svg, "\(x.name)") }
}

@Test func idsAreDerivedFromTitleAndDistinct() {
    let ids = ChartSamples.all().map { s -> String in
        let r = s.svg.range(of: "id=\"")!
        return String(s.svg[r.upperBound...].prefix { $0 != "\"" })
    }
    #expect(Set(ids).count == ids.count)
    #expect(ids[0].hasPrefix("chart-accuracy-and-recall-by-"))
    let custom = Charts.line(series: [], options: ChartOptions(title: "x", id: "my chart#1"))
    #expect(custom.contains("id=\"mychart1\"") && custom.contains("aria-labelledby=\"mychart1-title mychart1-desc\""))
    let numeric = Charts.line(series: [], options: ChartOptions(title: "x", id: "42"))
    #expect(numeric.contains("id=\"chart-42\""))
}

// MARK: - Numbers

@Test func coordinatesHaveAtMostTwoDecimalsAndNoNegativeZero() {
    #expect(ChartNumber.coord(10) == "10")
    #expect(ChartNumber.coord(2.5) == "2.5")
    #expect(ChartNumber.coord(-3.14159) == "-3.14")
    #expect(ChartNumber.coord(0.07) == "0.07")
    #expect(ChartNumber.coord(-0.001) == "0")
    #expect(ChartNumber.coord(.nan) == "0")
    for svg in ChartSamples.all().map(\.svg) {
        // no coordinate with 3+ decimals anywhere (attribute values)
        #expect(svg.range(of: #"="-?[0-9]+\.[0-9]{3,}""#, options: .regularExpression) == nil)
    }
}

@Test func tickLabelsUseTheDecimalsOfTheStep() {
    #expect(ChartNumber.tick(0.30000000000000004, step: 0.1) == "0.3")
    #expect(ChartNumber.tick(20, step: 20) == "20")
    #expect(ChartNumber.tick(0.25, step: 0.05) == "0.25")
    #expect(ChartNumber.tick(-0.0, step: 1) == "0")
    #expect(ChartNumber.tick(2_500_000, step: 500_000) == "2.5M")
}

@Test func niceScaleExample() {
    // 0…97 in about 5 intervals: raw step 19.4 = 1.94·10 → 1.94 ≥ √2 → 2·10 = 20; ends 0 and 100.
    let s = NiceScale(min: 0, max: 97, count: 5)
    #expect(s.step == 20 && s.lower == 0 && s.upper == 100)
    #expect(s.ticks == [0, 20, 40, 60, 80, 100])
    // -0.3…0.7 in about 4: raw 0.25 = 2.5·0.1 → √2 ≤ 2.5 < √10 → 0.2; ends -0.4 and 0.8
    let t = NiceScale(min: -0.3, max: 0.7, count: 4)
    #expect(t.step == 0.2 && t.ticks == [-0.4, -0.2, 0, 0.2, 0.4, 0.6, 0.8])
    // raw 0.215 (0…0.86 in 4) → 2.15 → 0.2, so 0…1 in 5 steps (not 0.5 in 2)
    #expect(NiceScale(min: 0, max: 0.86, count: 4).ticks == [0, 0.2, 0.4, 0.6, 0.8, 1])
    // raw 4 (0…16 in 4) → 4 ≥ √10 → 5; raw 8 (0…32 in 4) → 8 ≥ √50 → 10
    #expect(NiceScale(min: 0, max: 16, count: 4).step == 5)
    #expect(NiceScale(min: 0, max: 32, count: 4).step == 10)
    // fractional ticks come out exact (no 0.30000000000000004)
    #expect(NiceScale(min: 0, max: 0.3, count: 3).ticks == [0, 0.1, 0.2, 0.3])
    // a single value is widened by 10% each side: 50 → 45…55; raw step 10/5 = 2 → 2;
    // ends rounded outwards to multiples of 2: 44…56
    let u = NiceScale(min: 50, max: 50, count: 5)
    #expect(u.lower == 44 && u.upper == 56 && u.step == 2)
}

@Test func niceScaleProperties() {
    var seed: UInt64 = 12345
    func next() -> Double {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return Double(seed >> 11) / Double(1 << 53)
    }
    for _ in 0..<500 {
        let mag = pow(10, (next() * 12).rounded(.down) - 6)
        let a = (next() - 0.5) * 10 * mag, b = a + next() * 10 * mag
        let count = 2 + Int(next() * 8)
        let s = NiceScale(min: a, max: b, count: count)
        let e = floor(log10(s.step))
        let mantissa = (s.step / pow(10, e) * 1e6).rounded() / 1e6
        #expect([1, 2, 5].contains(mantissa), "step \(s.step)")
        #expect(s.lower <= a + abs(a) * 1e-12 && s.upper >= b - abs(b) * 1e-12)
        // the step is within a factor √2.5 (√(5/2)) of the raw step, plus one interval per end
        #expect(s.ticks.count >= 2 && Double(s.ticks.count - 1) <= Double(count) * 2.5.squareRoot() + 2, "\(a)…\(b) count \(count): \(s.ticks)")
        let k = s.lower / s.step
        #expect(abs(k - k.rounded()) < 1e-6)
    }
}

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
    #expect(count("outlier: ", in: svg) == 2)
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
        let doc = try #require(parse(svg))
        #expect(svg.contains(">No data</text>"))
        #expect(elements(doc, named: "desc").first?.stringValue == "No data.")
    }
}

@Test func nonFiniteValuesAreSkipped() {
    let bar = wideSVG(Charts.bar(categories: ["a", "b", "c"], series: [BarSeries(name: "s", values: [.nan, 2, .infinity])],
                                 options: ChartOptions(title: "t")))
    #expect(count("</title></rect>", in: bar) == 1)  // one bar, with its tooltip
    let line = Charts.line(series: [XYSeries(name: "s", xy: [(0, 1), (1, 2), (2, .nan), (3, 1), (4, 2)])],
                           options: ChartOptions(title: "t"))
    let d = line.components(separatedBy: "<path d=\"").dropFirst().first!.prefix { $0 != "\"" }
    #expect(count("M", in: String(d)) == 2 && count("L", in: String(d)) == 2)
    #expect(!line.contains("nan") && !line.contains("inf"))
    let scatter = wideSVG(Charts.scatter(series: [XYSeries(name: "s", xy: [(0, 1), (.infinity, 2), (2, 3)])], options: ChartOptions(title: "t")))
    #expect(count("<circle", in: scatter) == 2)
    // beyond the tooltip limit, points on the same rounded pixel are drawn once
    let many = (0..<(XYChart.tooltipLimit + 1)).map { i in XYPoint(x: Double(i % 2), y: 1) }
    #expect(count("<circle", in: wideSVG(Charts.scatter(series: [XYSeries(name: "s", points: many)], options: ChartOptions(title: "t")))) == 2)
    // every marker shape parses (7 series use all 7 shapes, twice over with 14)
    let shapes = Charts.scatter(series: (0..<14).map { XYSeries(name: "s\($0)", xy: [(Double($0), 1)]) }, options: ChartOptions(title: "t"))
    #expect(parse(shapes) != nil)
    let lines = Charts.line(series: (0..<14).map { XYSeries(name: "s\($0)", xy: [(0, Double($0)), (1, 2)]) }, options: ChartOptions(title: "t"))
    #expect(parse(lines) != nil)
}

// MARK: - Heatmap

@Test func heatmapLabelsCellsAndHasAScale() throws {
    let svg = Charts.heatmap(rows: ["r1", "r2"], columns: ["c1", "c2"], values: [[0, 1], [2, nil]],
                             options: ChartOptions(title: "h"), cellLabels: [["zero", "one"], ["two", "none"]])
    let doc = try #require(parse(svg))
    let texts = elements(doc, named: "text").compactMap(\.stringValue)
    for l in ["zero", "one", "two", "none"] { #expect(texts.contains(l)) }
    #expect(elements(doc, named: "linearGradient").count == 1)
    #expect(svg.contains("fill=\"\(HeatmapChart.sequentialStops.first!.lowercased())\""))  // minimum cell
    #expect(svg.contains("fill=\"\(HeatmapChart.sequentialStops.last!.lowercased())\""))   // maximum cell
    #expect(svg.contains("fill=\"\(HeatmapChart.missing)\""))                   // the nil cell
    #expect(HeatmapChart.color(0.5, ["#000000", "#ffffff"]) == "#808080")
    #expect(LabelInk.ink(on: "#ffffff") != LabelInk.ink(on: "#000000"))
}

// MARK: - Timeline

@Test func timelineColoursByCategoryAndMarksInstants() {
    let svg = wideSVG(Charts.timeline(lanes: [
        TimelineLane(name: "A", spans: [TimelineSpan(start: 0, end: 10, category: "x"), TimelineSpan(start: 10, end: 20, category: "y")]),
        TimelineLane(name: "B", spans: [TimelineSpan(start: 5, end: 15, category: "x"), TimelineSpan(start: 15, end: 15, label: "now", category: "y")]),
    ], options: ChartOptions(title: "t")))
    #expect(count("fill=\"\(ChartStyle.color(0))\" stroke", in: svg) == 2)  // the two "x" spans
    #expect(count("fill=\"\(ChartStyle.color(1))\" stroke", in: svg) == 2)  // "y" span and the instant
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
    let sessions = Charts.line(series: [XYSeries(name: "s", xy: [(1, 3.2), (2, 4.1)])], options: ChartOptions(title: "Sessions"))
    #expect(!sessions.contains(">1.5<"))
}
