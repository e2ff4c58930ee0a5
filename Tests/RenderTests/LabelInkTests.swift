import Foundation
import Testing
@testable import Render

// Every label drawn on a coloured mark reads at WCAG AA (4.5:1) in both schemes: the
// light scheme's ink against the fill as drawn, the dark scheme's ink (its class)
// against the colour the style sheet gives that fill in the dark scheme.

/// (text, fill attribute, class) of every `<text>` directly after a mark in `svg`,
/// paired with the fill of the mark (rect) whose box holds the label's anchor.
private func labelsOnMarks(_ svg: String) -> [(label: String, ink: String, darkClass: String, fill: String)] {
    func attr(_ tag: Substring, _ name: String) -> String? {
        guard let r = tag.range(of: " \(name)=\"") else { return nil }
        return String(tag[r.upperBound...].prefix { $0 != "\"" })
    }
    var rects: [(x: Double, y: Double, w: Double, h: Double, fill: String)] = []
    var out: [(String, String, String, String)] = []
    var rest = Substring(svg)
    func next() -> Range<Substring.Index>? {
        let found = [rest.range(of: "<rect "), rest.range(of: "<text ")].compactMap { $0 }
        return found.min { $0.lowerBound < $1.lowerBound }
    }
    while let open = next() {
        let tagEnd = rest[open.lowerBound...].firstIndex(of: ">")!
        let tag = rest[open.lowerBound..<tagEnd]
        if tag.hasPrefix("<rect"), let fill = attr(tag, "fill"), fill.hasPrefix("#"),
           let x = attr(tag, "x").flatMap(Double.init), let y = attr(tag, "y").flatMap(Double.init),
           let w = attr(tag, "width").flatMap(Double.init), let h = attr(tag, "height").flatMap(Double.init) {
            rects.append((x, y, w, h, fill))
        } else if tag.hasPrefix("<text"), let cls = attr(tag, "class"), cls.hasPrefix("ink-dark-"),
                  let x = attr(tag, "x").flatMap(Double.init), let y = attr(tag, "y").flatMap(Double.init) {
            let under = rects.last { x >= $0.x && x <= $0.x + $0.w && y >= $0.y && y <= $0.y + $0.h }
            let text = String(rest[rest.index(after: tagEnd)...].prefix { $0 != "<" })
            out.append((text, attr(tag, "fill") ?? "", cls, under?.fill ?? "none"))
        }
        rest = rest[tagEnd...]
    }
    return out
}

@Test func everyLabelOnAMarkReadsInBothSchemes() throws {
    // a heatmap over the whole sequential and diverging ranges, with a missing cell
    var values: [[Double?]] = []
    for r in 0..<4 {
        var row: [Double?] = []
        for c in 0..<11 {
            let v: Double = Double(c) - 5 + Double(r) * 0.25
            row.append(r == 3 && c == 5 ? nil : v)
        }
        values.append(row)
    }
    var options = ChartOptions(title: "h", width: 900, height: 320)
    options.showValues = true
    let labels = (0..<4).map { _ in (0..<11).map { _ in "88" } }
    var svgs = [Charts.heatmap(rows: ["a", "b", "c", "d"], columns: (0..<11).map { "c\($0)" }, values: values,
                               options: options, cellLabels: labels, scale: .sequential),
                Charts.heatmap(rows: ["a", "b", "c", "d"], columns: (0..<11).map { "c\($0)" }, values: values,
                               options: options, cellLabels: labels, scale: .diverging(center: 0))]
    // a timeline with one span per palette colour
    svgs.append(Charts.timeline(lanes: [TimelineLane(name: "l", spans: (0..<8).map {
        TimelineSpan(start: Double($0) * 10, end: Double($0) * 10 + 9, label: "span", category: "k\($0)")
    })], options: ChartOptions(title: "t", width: 900, height: 200)))
    var seen = 0, fills = Set<String>()
    for svg in svgs {
        for l in labelsOnMarks(wideSVG(svg)) {
            #expect(l.fill != "none", "label \(l.label) is on no mark")
            let light = LabelInk.contrast(l.ink, l.fill)
            let darkInk = l.darkClass == "ink-dark-black" ? LabelInk.black : LabelInk.white
            let dark = LabelInk.contrast(darkInk, LabelInk.darkScheme(l.fill))
            #expect(light >= 4.5, "light: \(l.ink) on \(l.fill) is \(light):1")
            #expect(dark >= 4.5, "dark: \(darkInk) on \(LabelInk.darkScheme(l.fill)) is \(dark):1")
            seen += 1
            fills.insert(l.fill)
        }
    }
    #expect(seen == 44 + 44 + 8)           // every cell (the missing one has a given label too), every span
    #expect(fills.isSuperset(of: ChartStyle.palette))
    #expect(fills.contains(HeatmapChart.missing))            // a label on the no-data grey, in both schemes
}

@Test func blackOrWhiteReachesAAOnEveryColour() {
    // every 17th step of each channel: the better of black and white is ≥ 4.58:1
    var worst = 100.0
    for r in stride(from: 0, through: 255, by: 17) {
        for g in stride(from: 0, through: 255, by: 17) {
            for b in stride(from: 0, through: 255, by: 17) {
                let hex = String(format: "#%02x%02x%02x", r, g, b)
                worst = min(worst, LabelInk.contrast(LabelInk.ink(on: hex), hex))
            }
        }
    }
    #expect(worst >= 4.5)
}

/// The dark palette the labels are chosen against is the one the style sheet draws.
@Test func darkPaletteIsTheStyleSheetsDarkTokens() throws {
    let css = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Site/dossier.css").standardized, encoding: .utf8)
    let dark = try #require(css.range(of: "@media (prefers-color-scheme: dark)"))
    let block = css[dark.upperBound...].prefix { $0 != "}" }
    func token(_ name: String) -> String? {
        guard let r = block.range(of: "\(name): ") else { return nil }
        return block[r.upperBound...].prefix { $0 != ";" }.lowercased()
    }
    for i in 0..<8 { #expect(token("--chart-\(i + 1)") == LabelInk.darkPalette[i]) }
    #expect(token("--chart-nodata") == LabelInk.darkNoData)
    #expect(css.contains(".dossier-chart [fill=\"\(HeatmapChart.missing)\"]"))
}

/// A chart drawn narrower than 640 units is never scaled past 1.6× (its title stays
/// below a page's h2); a 640-wide one fills the frame's 64rem as before.
@Test func aNarrowlyDrawnChartIsNotScaledPastTheTypeScale() {
    let square = Charts.bar(categories: ["a"], series: [BarSeries(name: "n", values: [1])],
                            options: ChartOptions(title: "ROC", width: 420, height: 380))
    #expect(square.hasPrefix("<div class=\"chart-frame\" style=\"max-width:672px\"><svg"))
    let wide = Charts.bar(
        categories: ["a"], series: [BarSeries(name: "n", values: [1])], options: ChartOptions(title: "T"))
    #expect(wide.hasPrefix("<div class=\"chart-frame\"><svg"))
    #expect(14 * Charts.maxScale < 1.728 * 16)      // the drawn title against the h2 (1.728rem at 16 px)
}
