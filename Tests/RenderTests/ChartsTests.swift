import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Render

// MARK: - Structure and accessibility

@Test func everySampleIsWellFormedSVGWithReferencedTitleAndDesc() throws {
    for (name, svg) in ChartSamples.all() {
        let doc = try #require(chartXML(svg), "\(name) is not well-formed XML")
        let root = try #require(doc.rootElement())
        #expect(root.name == "svg", "\(name)")
        #expect(xmlAttr(root, "role") == "img", "\(name)")
        #expect(xmlAttr(root, "width") == "100%", "\(name)")
        #expect(xmlAttr(root, "viewBox")?.hasPrefix("0 0 ") == true, "\(name)")
        let refs = try #require(xmlAttr(root, "aria-labelledby")).split(separator: " ").map(String.init)
        #expect(refs.count == 2, "\(name)")
        let title = try #require(xmlElementWithID(doc, refs[0]), "\(name): title id \(refs[0]) missing")
        let desc = try #require(xmlElementWithID(doc, refs[1]), "\(name): desc id \(refs[1]) missing")
        #expect(title.name == "title" && title.parent === root, "\(name)")
        #expect(desc.name == "desc" && desc.parent === root, "\(name)")
        #expect(!(title.stringValue ?? "").isEmpty && !(desc.stringValue ?? "").isEmpty, "\(name)")
        // every url(#…) reference resolves inside the chart
        for part in svg.components(separatedBy: "url(#").dropFirst() {
            let ref = String(part.prefix { $0 != ")" })
            #expect(xmlElementWithID(doc, ref) != nil, "\(name): dangling url(#\(ref))")
        }
    }
}

@Test func samplesCanBeWrittenForVisualChecks() throws {
    let env = ProcessInfo.processInfo.environment["DOSSIER_CHART_SAMPLES"]
    let dir = URL(fileURLWithPath: env ?? NSTemporaryDirectory()).appendingPathComponent(
        env == nil ? "charts-\(UUID().uuidString)" : "")
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
        Charts.bar(
            categories: [e, "b"], series: [BarSeries(name: e, values: [1, 2]), BarSeries(name: "s2", values: [2, 1])],
            options: opts),
        Charts.bar(categories: [e], series: [BarSeries(name: e, values: [1])], options: opts, horizontal: true),
        Charts.line(
            series: [XYSeries(name: e, points: [XYPoint(x: 0, y: 1, label: e)]), XYSeries(name: "b", xy: [(1, 2)])],
            options: opts),
        Charts.scatter(series: [XYSeries(name: e, points: [XYPoint(x: 0, y: 1, label: e)])], options: opts,
                       trend: XYSeries(name: e, xy: [(0, 0), (1, 1)])),
        Charts.histogram(values: [1, 2, 3], options: opts, overlay: XYSeries(name: e, xy: [(1, 1), (2, 2)])),
        Charts.heatmap(rows: [e], columns: [e], values: [[1]], options: opts, cellLabels: [[e]]),
        Charts.boxPlot(groups: [BoxGroup(name: e, values: [1, 2, 3, 40])], options: opts),
        Charts.timeline(
            lanes: [
                TimelineLane(
                    name: e,
                    spans: [
                        TimelineSpan(start: 0, end: 100, label: e, category: e),
                        TimelineSpan(start: 5, end: 6, category: "other")
                    ])
            ], options: opts),
        Charts.line(series: [], options: opts),
    ]
    for svg in charts {
        #expect(!svg.contains("<script"))
        #expect(!svg.contains("'x'"))
        let doc = try #require(chartXML(svg))
        #expect(xmlElements(doc, named: "script").isEmpty)
        // the text survives as text
        let title = try #require(xmlElements(doc, named: "title").first)
        #expect(title.stringValue == e)
    }
}

@Test func controlCharactersAreDroppedSoTheXMLStaysWellFormed() throws {
    let svg = Charts.bar(categories: ["a\u{0}b\u{1B}c"], series: [BarSeries(name: "s", values: [1])],
                         options: ChartOptions(title: "t\u{7}"))
    let doc = try #require(chartXML(svg))
    #expect(svg.contains("abc"))
    #expect(xmlElements(doc, named: "title").first?.stringValue == "t")
}

@Test func legendOnlyWithMoreThanOneSeries() {
    let one = Charts.bar(
        categories: ["a"], series: [BarSeries(name: "only", values: [1])], options: ChartOptions(title: "t"))
    let two = Charts.bar(
        categories: ["a"], series: [BarSeries(name: "first", values: [1]), BarSeries(name: "second", values: [2])],
        options: ChartOptions(title: "t"))
    #expect(!one.contains("class=\"legend\""))
    #expect(two.contains("class=\"legend\""))
    #expect(two.contains(">first</text>") && two.contains(">second</text>"))
}

@Test func lineSeriesDifferByDashAndMarkerShape() {
    let svg = Charts.line(
        series: [XYSeries(name: "a", xy: [(0, 0), (1, 1)]), XYSeries(name: "b", xy: [(0, 1), (1, 0)])],
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
        #expect(
            s.ticks.count >= 2 && Double(s.ticks.count - 1) <= Double(count) * 2.5.squareRoot() + 2,
            "\(a)…\(b) count \(count): \(s.ticks)")
        let k = s.lower / s.step
        #expect(abs(k - k.rounded()) < 1e-6)
    }
}
