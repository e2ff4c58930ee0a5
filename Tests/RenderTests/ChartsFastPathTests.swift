import Foundation
import Testing
@testable import Render
import SplitMix64

// Round five, charts (docs/perf-study.md): each fast path against the path it replaces,
// kept here as the reference, on many seeded random inputs.


// MARK: - Box statistics: the radix sort of whole numbers

/// The sort ``BoxStats/sortedFinite(_:)`` replaces.
private func referenceSortedFinite(_ values: [Double]) -> [Double] {
    values.filter(\.isFinite).sorted()
}

/// A random list in one of several shapes: small whole numbers (milliseconds), negative
/// ones, signed zeros, huge whole numbers near 2^52 and beyond, fractions, non-finite
/// values, constants, sorted and reversed runs.
private func randomValues(_ g: inout SplitMix64) -> [Double] {
    let n = Int.random(in: 0...600, using: &g)
    let shape = Int.random(in: 0..<9, using: &g)
    var v: [Double] = (0..<n).map { _ in
        switch shape {
        case 0: return Double(Int.random(in: 0...400, using: &g))
        case 1: return Double(Int.random(in: -3_000...20_000, using: &g))
        case 2: return [0.0, -0.0, 1, -1][Int.random(in: 0..<4, using: &g)]
        case 3: return Double(Int64.random(in: -(1 << 52) + 1...(1 << 52) - 1, using: &g))
        case 4: return Double(Int64.random(in: -(1 << 60)...(1 << 60), using: &g))
        case 5: return Double.random(in: -50...50, using: &g)
        case 6: return [Double.nan, .infinity, -.infinity, 3, -0.0, 0, 7][Int.random(in: 0..<7, using: &g)]
        case 7: return 42
        default: return Double(Int.random(in: 0...70_000, using: &g))
        }
    }
    if shape == 1, Bool.random(using: &g) { v.sort() }
    if shape == 8, Bool.random(using: &g) { v.sort(by: >) }
    if Int.random(in: 0..<5, using: &g) == 0, !v.isEmpty { v[Int.random(in: 0..<v.count, using: &g)] = .nan }
    return v
}

@Test func boxStatsSortMatchesTheStandardSortBitForBit() {
    var g = SplitMix64(seed: 20)
    for _ in 0..<4_000 {
        let v = randomValues(&g)
        let fast = BoxStats.sortedFinite(v), ref = referenceSortedFinite(v)
        #expect(fast.map(\.bitPattern) == ref.map(\.bitPattern), "\(v.prefix(20))")
        #expect(BoxStats(values: v) == BoxStats(sortedFinite: ref))
    }
    // the edges: one value, two, the largest whole numbers the radix path takes
    for v: [Double] in [[], [5], [-0.0, 0], [0, -0.0], [0x1p52 - 1, -(0x1p52 - 1), 0], [0x1p52, 1], [.nan]] {
        #expect(BoxStats.sortedFinite(v).map(\.bitPattern) == referenceSortedFinite(v).map(\.bitPattern))
    }
}

// MARK: - Markers written into the marks

/// The plain twin of `Marker.svg`: each element built as its own string and closed by a
/// local function.
private func referenceMarkerSVG(_ m: Marker, x: Double, y: Double, r: Double, fill: String, extra: String = "",
                                tooltip: String? = nil) -> String {
    let c = ChartNumber.coord
    let extra = (fill.isEmpty ? "" : " fill=\"\(fill)\"") + extra
    let tip = tooltip.map { "<title>\(SVGText.escape($0))</title>" }
    let tag = m == .circle ? "circle" : m == .square ? "rect" : "path"
    func close(_ head: String) -> String { tip.map { head + ">" + $0 + "</\(tag)>" } ?? head + "/>" }
    switch m {
    case .circle:
        return close("<circle cx=\"\(c(x))\" cy=\"\(c(y))\" r=\"\(c(r))\"\(extra)")
    case .square:
        let s = r * 0.9
        return close("<rect x=\"\(c(x - s))\" y=\"\(c(y - s))\" width=\"\(c(2 * s))\" height=\"\(c(2 * s))\"\(extra)")
    case .triangle:
        let d = "M\(c(x)) \(c(y - r * 1.15))L\(c(x + r * 1.1)) \(c(y + r * 0.8))L\(c(x - r * 1.1)) \(c(y + r * 0.8))Z"
        return close("<path d=\"\(d)\"\(extra)")
    case .diamond:
        let d =
            "M\(c(x)) \(c(y - r * 1.2))L\(c(x + r * 1.2)) \(c(y))L\(c(x)) \(c(y + r * 1.2))L\(c(x - r * 1.2)) \(c(y))Z"
        return close("<path d=\"\(d)\"\(extra)")
    case .triangleDown:
        let d = "M\(c(x)) \(c(y + r * 1.15))L\(c(x + r * 1.1)) \(c(y - r * 0.8))L\(c(x - r * 1.1)) \(c(y - r * 0.8))Z"
        return close("<path d=\"\(d)\"\(extra)")
    case .plus:
        let a = r * 1.2, w = r * 0.45
        let d =
            "M\(c(x - w)) "
                + "\(c(y - a))H\(c(x + w))V\(c(y - w))H\(c(x + a))V\(c(y + w))H\(c(x + w))"
                + "V\(c(y + a))H\(c(x - w))V\(c(y + w))H\(c(x - a))V\(c(y - w))H\(c(x - w))Z"
        return close("<path d=\"\(d)\"\(extra)")
    case .cross:
        let a = r * 1.1
        let d = "M\(c(x - a)) \(c(y - a))L\(c(x + a)) \(c(y + a))M\(c(x - a)) \(c(y + a))L\(c(x + a)) \(c(y - a))"
        return close(
            "<path d=\"\(d)\" fill=\"none\" stroke=\"\(fill.isEmpty ? "currentColor" : fill)\" stroke-width=\"2\"")
    }
}

@Test func markersWrittenIntoTheMarksMatchTheirPlainStringTwin() {
    var g = SplitMix64(seed: 5)
    let fills = ["", "#0072B2", "#ffffff"]
    let extras = ["", " stroke=\"#ffffff\" stroke-width=\"1\"", " stroke=\"#222222\" stroke-width=\"1.2\""]
    let tips: [String?] = [nil, "(3, 4.5)", "a <b> & \"c\" 'd'", "", "x\u{1}y"]
    for _ in 0..<3_000 {
        let m = Marker.allCases.randomElement(using: &g)!
        let x = Double.random(in: -200...900, using: &g), y = Double.random(in: -50...600, using: &g)
        let r = [3.5, 3.2, 4, Double.random(in: 0...8, using: &g)].randomElement(using: &g)!
        let fill = fills.randomElement(using: &g)!, extra = extras.randomElement(using: &g)!
        let tip = tips.randomElement(using: &g)!
        let ref = referenceMarkerSVG(m, x: x, y: y, r: r, fill: fill, extra: extra, tooltip: tip)
        #expect(m.svg(x: x, y: y, r: r, fill: fill, extra: extra, tooltip: tip) == ref)
        var into = SVGWriter()
        into.write("<g>")
        m.draw(into: &into, x: x, y: y, r: r, fill: fill, extra: extra, title: tip.map(SVGText.escape))
        #expect(into.string == "<g>" + ref)
    }
}

// MARK: - Tooltips made once for both drawings

/// Random series: finite and non-finite points, labels or none, sizes around the
/// line-marker and scatter-tooltip limits, names needing escaping.
private func randomSeries(_ g: inout SplitMix64) -> [XYSeries] {
    let names = ["correct", "incorrect", "a <b> & c", "s"]
    return (0..<Int.random(in: 1...3, using: &g)).map { i in
        let n = [0, 5, 60, 61, 200, 499, 501].randomElement(using: &g)!
        let points = (0..<n).map { k -> XYPoint in
            let bad = Int.random(in: 0..<40, using: &g) == 0
            let x = bad ? Double.nan : Double(Int.random(in: 1...40, using: &g))
            let y = Double.random(in: 0...30, using: &g)
            let label: String? = Bool.random(using: &g) ? nil : (k % 7 == 0 ? "field \"\(k)\"" : "field \(k)")
            return XYPoint(x: x, y: y, label: label)
        }
        return XYSeries(name: names[i % names.count], points: points)
    }
}

@Test func sharedTooltipsMatchTheTooltipsOfEachMark() {
    var g = SplitMix64(seed: 11)
    for _ in 0..<300 {
        let series = randomSeries(&g)
        let total = series.flatMap(\.points).count(where: { $0.x.isFinite && $0.y.isFinite })
        for kind in [XYChart.Kind.line, .scatter] {
            let tips = XYChart.tooltips(series: series, kind: kind)
            for (i, s) in series.enumerated() {
                for (k, p) in s.points.enumerated() where p.x.isFinite && p.y.isFinite {
                    // the conditions round four tested per mark
                    let shown = kind == .line ? s.points.count <= XYChart.lineMarkerLimit
                                              : p.label != nil || total <= XYChart.tooltipLimit
                    let ref = shown ? SVGText.escape(XYChart.tooltip(p, series: s.name, many: series.count > 1)) : nil
                    #expect(tips[i][k] == ref)
                }
            }
            // the frame with shared tooltips is the frame whose drawings make their own
            let options = ChartOptions(title: "t", description: "d", yMin: 0)
            let shared =
                kind == .line
                ? Charts.line(series: series, options: options) : Charts.scatter(series: series, options: options)
            let alone = Charts.responsive(options) {
                XYChart.render(series: series, options: $0, kind: kind, trend: nil)
            }
            #expect(shared == alone)
        }
    }
}

@Test func sharedTimelineAndBarTooltipsMatchTheirDrawings() {
    var g = SplitMix64(seed: 3)
    for _ in 0..<300 {
        let lanes = (0..<Int.random(in: 1...6, using: &g)).map { l in
            TimelineLane(
                name: l == 2 ? "Lane <\(l)>" : "String \(l)",
                spans: (0..<Int.random(in: 0...8, using: &g)).map { _ in
                    let a = Double(Int.random(in: 0...900_000, using: &g)) / 1000
                    let b =
                        Int.random(in: 0..<6, using: &g) == 0
                        ? a : a + Double(Int.random(in: 0...90_000, using: &g)) / 1000
                    let start = Int.random(in: 0..<30, using: &g) == 0 ? Double.infinity : a
                    return TimelineSpan(
                        start: Bool.random(using: &g) ? start : b, end: Bool.random(using: &g) ? b : start,
                        label: ["Memorize 1", "Entry", "", "a & b"].randomElement(using: &g)!,
                        category: ["Memorize", "Verify", "Entry", ""].randomElement(using: &g)!)
                })
        }
        let options = ChartOptions(title: "Phase timeline", description: "d", height: 200)
        let tips = TimelineChart.tooltips(lanes: lanes)
        for (li, lane) in lanes.enumerated() {
            for (si, s) in lane.spans.enumerated() where s.start.isFinite && s.end.isFinite {
                #expect(
                    tips[li][si]
                        == SVGText.escape(TimelineChart.tooltip(lane.name, s, min(s.start, s.end), max(s.start, s.end)))
                )
            }
        }
        #expect(Charts.timeline(lanes: lanes, options: options)
                == Charts.responsive(options) { TimelineChart.render(lanes: lanes, options: $0) })

        let cats = (0..<Int.random(in: 1...12, using: &g)).map { "\($0 + 1)" } + (Bool.random(using: &g) ? ["<x>"] : [])
        let series = (0..<Int.random(in: 1...4, using: &g)).map { i in
            BarSeries(name: "series \(i) & more", values: (0..<Int.random(in: 0...cats.count + 2, using: &g)).map { _ in
                Int.random(in: 0..<8, using: &g) == 0 ? nil : Double(Int.random(in: -3...40, using: &g)) })
        }
        for horizontal in [false, true] {
            let o = ChartOptions(title: "Errors", description: "d", yMin: 0, showValues: horizontal)
            #expect(
                Charts.bar(categories: cats, series: series, options: o, horizontal: horizontal)
                    == Charts.responsive(o) {
                        BarChart.render(categories: cats, series: series, options: $0, horizontal: horizontal)
                    })
        }
    }
}

// MARK: - Round six: coordinates and ids

/// The stack-buffer writer of coordinates (``DecimalText/hundredths(_:)``) against round
/// five's appending formatter, and ``ChartNumber/coord(_:)`` with it: every sign, zero, one and two decimals, trailing
/// zeros, the largest magnitude coord takes, and 20,000 random values of chart sizes and beyond.
@Test func coordinatesAsTheAppendingFormatter() {
    var g = SplitMix64(seed: 61)
    var ks: [Int64] = [0, 1, -1, 5, -5, 10, -10, 50, 99, 100, -100, 101, 110, 1_234, -1_230, 9_000_000_000_000_000 - 1,
                       -(9_000_000_000_000_000 - 1), 8_999_999_999_999_990]
    for _ in 0..<20_000 {
        let scale: [Int64] = [100, 10_000, 1_000_000, 9_000_000_000_000_000]
        let m = scale[Int(g.next() % 4)]
        ks.append(Int64(g.next() % UInt64(m)) * (g.next() % 2 == 0 ? 1 : -1))
    }
    // Round five's appending formatter, kept as the reference of the stack-buffer writer
    // (round six's `ChartNumber.hundredthsText`, since round seven `DecimalText.hundredths`).
    func appending(_ k: Int64) -> String {
        if k == 0 { return "0" }
        let a = k.magnitude
        let whole = a / 100, frac = a % 100
        var s = k < 0 ? "-" : ""
        s += String(whole)
        if frac != 0 {
            s.unicodeScalars.append(".")
            s.unicodeScalars.append(Unicode.Scalar(0x30 + UInt8(frac / 10)))
            if frac % 10 != 0 { s.unicodeScalars.append(Unicode.Scalar(0x30 + UInt8(frac % 10))) }
        }
        return s
    }
    for k in ks { #expect(DecimalText.hundredths(k) == appending(k), "\(k)") }
    for x in [0.0, -0.0, -0.001, 0.004, 0.005, -0.005, 12.345, -12.3, 639.999, 1e15, -1e15, 9e13, .nan, .infinity] {
        let hundredths = (x * 100).rounded()
        let old = !x.isFinite ? "0" : abs(hundredths) < 9e15 ? appending(Int64(hundredths)) : String(format: "%.0f", x)
        #expect(ChartNumber.coord(x) == old, "\(x)")
    }
}

/// The id of a chart with a given id: kept as it is when already clean (the fast path),
/// else cleaned as round five cleaned every given id (kept here as the reference).
@Test func givenChartIdsAsRoundFiveCleanedThem() {
    func reference(_ given: String) -> String {
        let clean = String(given.unicodeScalars.filter {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_"
        }.map(Character.init))
        if let f = clean.unicodeScalars.first, f.isASCII, f.properties.isAlphabetic { return clean }
        return "chart-" + clean
    }
    let pieces = ["a", "Z", "chart-", "-n", "_", "9", "0", " ", "é", "@", "[", "`", "{", "/", "日", "-", "x1"]
    var g = SplitMix64(seed: 62)
    let ids =
        pieces
        + (0..<5_000).map { _ in
            (0..<Int(g.next() % 6)).map { _ in pieces[Int(g.next() % UInt64(pieces.count))] }.joined()
        }
    for id in ids {
        var options = ChartOptions(title: "T")
        options.id = id
        #expect(ChartID.make(options, kind: "bar") == reference(id), "\(id.debugDescription)")
    }
}

@Test func paletteLabelInksAsTheirContrast() {
    for fill in ChartStyle.palette + LabelInk.darkPalette + ["#ffffff", "#000000", "#123456", "#0072b2"] {
        #expect(LabelInk.ink(on: fill) == LabelInk.inkByContrast(on: fill), "\(fill)")
    }
}

/// ``SVGText/needsEscaping(_:)`` against round five's scan (two flags carried through
/// every byte, kept here): U+FFFE and U+FFFF, their neighbours (U+FEFF, U+FFFD, U+FFBF,
/// U+EFBF), every escaped character, controls, and 20,000 random strings of them.
@Test func needsEscapingAsRoundFivesScan() {
    func reference(_ s: String) -> Bool {
        var afterEF = false, afterEFBF = false
        for b in s.utf8 {
            if b < 0x20 { if b != 0x09 && b != 0x0A && b != 0x0D { return true } }
            else if b == 0x26 || b == 0x3C || b == 0x3E || b == 0x22 || b == 0x27 { return true }
            if afterEFBF && (b == 0xBE || b == 0xBF) { return true }
            afterEFBF = afterEF && b == 0xBF
            afterEF = b == 0xEF
        }
        return false
    }
    let pieces = [
        "a", "\u{FFFE}", "\u{FFFF}", "\u{FEFF}", "\u{FFFD}", "\u{FFBF}", "\u{EFBF}", "\u{FFBE}", "&", "<", ">", "\"",
        "'",
        "\t", "\n", "\r", "\u{1}", "\u{1F}", "é", "日", "1.5", " "
    ]
    var g = SplitMix64(seed: 63)
    let strings =
        pieces
        + (0..<20_000).map { _ in
            (0..<Int(g.next() % 5)).map { _ in pieces[Int(g.next() % UInt64(pieces.count))] }.joined()
        }
    for s in strings { #expect(SVGText.needsEscaping(s) == reference(s), "\(s.debugDescription)") }
}
