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
            options: ChartOptions(
                title: "Accuracy and recall by session", description: "Both rise over sessions.",
                xLabel: "Session", yLabel: "Proportion", showValues: true))
        out.append(("bar", bar))
        let bar_horizontal: String = Charts.bar(
            categories: ["Weak passwords", "Reused passwords", "Old passwords (over two years)", "Missing TOTP"],
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
        let line: String = Charts.line(
            series: [
                XYSeries(name: "Typing speed", points: speed),
                XYSeries(name: "Cohort median", points: median),
                XYSeries(name: "Target", points: [XYPoint(x: 0, y: 70), XYPoint(x: 11, y: 70)])
            ],
            options: ChartOptions(
                title: "Typing speed over sessions", xLabel: "Session", yLabel: "Characters per minute"))
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
        let scatter: String = Charts.scatter(
            series: [XYSeries(name: "Group A", points: groupA), XYSeries(name: "Group B", points: groupB)],
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
        let histogram: String = Charts.histogram(
            values: rts, options: ChartOptions(title: "Reaction times", xLabel: "Reaction time (ms)", yLabel: "Trials"),
            overlay: XYSeries(name: "Fitted normal", points: curve))
        out.append(("histogram", histogram))
        let heatmap: String = Charts.heatmap(
            rows: ["Mon", "Tue", "Wed", "Thu"], columns: ["08h", "10h", "12h", "14h", "16h", "18h"],
            values: [[1, 4, 9, 3, nil, 0], [2, 6, 12, 5, 3, 1], [0, 3, 7, 14, 6, 2], [1, 1, 2, 3, 5, 8]],
            options: ChartOptions(
                title: "Sessions by weekday and hour", xLabel: "Hour", yLabel: "Day", showValues: true))
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
                TimelineLane(
                    name: "Lobby",
                    spans: [
                        TimelineSpan(start: 0, end: 12, label: "Intro", category: "audio"),
                        TimelineSpan(start: 12, end: 12, label: "Door", category: "hotspot")
                    ]),
                TimelineLane(
                    name: "Garden",
                    spans: [
                        TimelineSpan(start: 12, end: 40, label: "Birdsong", category: "audio"),
                        TimelineSpan(start: 20, end: 31, label: "Fountain video", category: "video")
                    ]),
                TimelineLane(
                    name: "Kitchen", spans: [TimelineSpan(start: 40, end: 58, label: "Walkthrough", category: "video")])
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
func chartXML(_ svg: String) -> XMLDocument? {
    try? XMLDocument(xmlString: wideSVG(svg), options: [])
}

/// An attribute by local name (FoundationXML on Linux does not find un-prefixed
/// attributes of an element in a default namespace by `attribute(forName:)`).
func xmlAttr(_ e: XMLElement, _ name: String) -> String? {
    (e.attributes ?? []).first { $0.name == name || $0.localName == name }?.stringValue
}

func xmlElements(_ node: XMLNode, named name: String) -> [XMLElement] {
    var out: [XMLElement] = []
    if let e = node as? XMLElement, e.name == name { out.append(e) }
    for child in node.children ?? [] { out += xmlElements(child, named: name) }
    return out
}

func xmlElementWithID(_ doc: XMLDocument, _ id: String) -> XMLElement? {
    func walk(_ n: XMLNode) -> XMLElement? {
        if let e = n as? XMLElement, xmlAttr(e, "id") == id { return e }
        for c in n.children ?? [] { if let f = walk(c) { return f } }
        return nil
    }
    return walk(doc)
}

func occurrences(_ needle: String, in s: String) -> Int {
    s.components(separatedBy: needle).count - 1
}
