#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Timeline of lanes with spans (see ``Charts/timeline(lanes:options:)``).
enum TimelineChart {
    /// `tips`: ``tooltips(lanes:)`` when the caller has them already (both drawings of
    /// ``Charts/responsiveWritten(_:_:)`` share them); `rows`: ``packRows(_:)`` of each
    /// lane, shared the same way.
    static func canvas(lanes: [TimelineLane], options: ChartOptions, tips given: [[String]]? = nil,
                       rows givenRows: [(rows: [Int], count: Int)]? = nil) -> ChartCanvas {
        let kind = "timeline"
        let spans = lanes.flatMap(\.spans).filter { $0.start.isFinite && $0.end.isFinite }
        guard !lanes.isEmpty, !spans.isEmpty else { return ChartCanvas.noDataCanvas(options: options, kind: kind) }
        var cv = ChartCanvas(options: options, kind: kind)

        // Categories in order of first appearance → colours.
        var categories: [String] = []
        for s in spans where !categories.contains(s.category) { categories.append(s.category) }
        func colorOf(_ cat: String) -> String { ChartStyle.color(categories.firstIndex(of: cat) ?? 0) }
        if categories.count > 1 {
            cv.legend = categories.map {
                LegendItem(name: $0.isEmpty ? "(none)" : $0, key: .swatch(color: colorOf($0)))
            }
        }

        let lo = options.xMin ?? spans.map { min($0.start, $0.end) }.min()!
        let hi = options.xMax ?? spans.map { max($0.start, $0.end) }.max()!
        let xScale = NiceScale(min: lo, max: hi, count: max(2, Int((cv.width - 140) / 90)))
        let left = ChartCanvas.leftMargin(labels: lanes.map { SVGText.truncate($0.name, max: 28) },
                                          yLabel: options.yLabel)
        cv.layout(left: left, right: 20, bottom: 26 + (options.xLabel.isEmpty ? 0 : 20))
        let x = LinearMap(d0: xScale.lower, d1: xScale.upper, r0: cv.plotX, r1: cv.plotX + cv.plotW)
        let laneH = cv.plotH / Double(lanes.count)

        var bands = "<g class=\"lanes\" fill=\"#f4f4f4\">"
        for i in lanes.indices where i % 2 == 1 {
            bands += "<rect x=\"\(c(cv.plotX))\" y=\"\(c(cv.plotY + Double(i) * laneH))\""
            bands += " width=\"\(c(cv.plotW))\" height=\"\(c(laneH))\"/>"
        }
        bands += "</g>"
        cv.body += bands
        cv.valueAxisX(xScale, x: x.callAsFunction)

        let clip = "\(cv.id)-clip"
        cv.body += "<clipPath id=\"\(clip)\"><rect x=\"\(c(cv.plotX - 8))\" y=\"\(c(cv.plotY))\""
        cv.body += " width=\"\(c(cv.plotW + 16))\" height=\"\(c(cv.plotH))\"/></clipPath>"
        var marks = SVGWriter(capacity: 8_192), labels = SVGWriter(capacity: 1_024)
        marks.write("<g class=\"spans\" clip-path=\"url(#\(clip))\">")
        labels.write("<g class=\"span-labels\" font-size=\"11\" clip-path=\"url(#\(clip))\">")
        let tips = given ?? tooltips(lanes: lanes)
        for (li, lane) in lanes.enumerated() {
            let (rowOf, rowCount) = givenRows?[li] ?? packRows(lane.spans)
            let subH = laneH * 0.8 / Double(rowCount)
            let barH = min(24, subH * 0.8)
            for (si, s) in lane.spans.enumerated() where s.start.isFinite && s.end.isFinite {
                let cy = cv.plotY + Double(li) * laneH + laneH * 0.1 + (Double(rowOf[si]) + 0.5) * subH
                let a = min(s.start, s.end), b = max(s.start, s.end)
                let x0 = x(a), x1 = x(b)
                let fill = colorOf(s.category)
                let tip = tips[li][si]
                if x1 - x0 < 2 {
                    Marker.diamond.draw(into: &marks, x: x0, y: cy, r: min(6, max(2.5, barH / 2)), fill: fill,
                                        extra: " stroke=\"#ffffff\" stroke-width=\"1\"", title: tip)
                    continue
                }
                marks.write("<rect x=\"\(x0)\" y=\"\(cy - barH / 2)\" width=\"\(x1 - x0)\" height=\"\(barH)\" rx=\"2\"")
                marks.write(literal: " fill=\"")
                marks.write(raw: fill)
                marks.write(literal: "\" stroke=\"#ffffff\" stroke-width=\"0.5\"><title>")
                marks.write(raw: tip)
                marks.write(literal: "</title></rect>")
                if !s.label.isEmpty, barH >= 10, ChartStyle.textWidth(s.label, size: 10) <= x1 - x0 - 6 {
                    labels.write("<text x=\"\(x0 + 3)\" y=\"\(cy)\" dy=\"0.35em\"\(LabelInk.attributes(on: fill))>")
                    labels.write("\(SVGText.escape(s.label))</text>")
                }
            }
        }
        marks.write("</g>")
        labels.write("</g>")
        cv.body += marks
        cv.body += labels
        cv.categoryAxisY(lanes.map(\.name), centers: lanes.indices.map { cv.plotY + (Double($0) + 0.5) * laneH })
        cv.axisFrame()

        if cv.wantsSummary {
            cv.summary.append("Timeline of \(lanes.count) lane\(lanes.count == 1 ? "" : "s") "
                              + "from \(ChartNumber.shown(lo)) to \(ChartNumber.shown(hi)).")
            for lane in lanes {
                let items = summaryItems(lane.spans.filter { $0.start.isFinite && $0.end.isFinite })
                cv.summary.append(items.isEmpty
                                  ? "\(lane.name): no spans."
                                  : ChartSummary.list(head: lane.name, items: items, limit: 30))
            }
        }
        return cv
    }

    /// Each span in the data summary: `label / category a–b` (or `at a`), written into one
    /// writer with its numbers as digits (``SVGWriter/write(shown:)``) and made a string
    /// each: an array of names filtered and joined and two interpolated strings were
    /// ≈ 4,700 instructions a span (docs/perf-study.md, "the participant page's charts and
    /// tables"). `NumberColumnTwinTests` compares it with ``summaryItemPlainly(_:)``.
    static func summaryItems(_ spans: [TimelineSpan]) -> [String] {
        var t = SVGWriter(capacity: 128)
        return spans.map { s in
            t.removeAll()
            let a = min(s.start, s.end), b = max(s.start, s.end)
            if !s.label.isEmpty { t.write(raw: s.label) }
            if !s.label.isEmpty, !s.category.isEmpty { t.write(literal: " / ") }
            if !s.category.isEmpty { t.write(raw: s.category) }
            if !s.label.isEmpty || !s.category.isEmpty { t.write(literal: " ") }
            writeSpan(a, b, into: &t)
            return t.string
        }
    }

    /// A summary item as it was written: the plain twin of ``summaryItems(_:)``, kept for the tests.
    static func summaryItemPlainly(_ s: TimelineSpan) -> String {
        let a = min(s.start, s.end), b = max(s.start, s.end)
        let name = [s.label, s.category].filter { !$0.isEmpty }.joined(separator: " / ")
        let when = a == b ? "at \(ChartNumber.shown(a))" : "\(ChartNumber.shown(a))–\(ChartNumber.shown(b))"
        return name.isEmpty ? when : "\(name) \(when)"
    }

    /// Greedy interval packing so overlapping spans of one lane do not hide each other:
    /// spans sorted by (start, end, input order) go to the first sub-row whose last span
    /// ends at or before their start. Returns each span's sub-row (by input index) and
    /// the number of sub-rows.
    static func packRows(_ spans: [TimelineSpan]) -> (rows: [Int], count: Int) {
        var rowOf = [Int](repeating: 0, count: spans.count)
        var rowEnds: [Double] = []
        let order = spans.indices.filter { spans[$0].start.isFinite && spans[$0].end.isFinite }.sorted { i, j in
            let a = spans[i], b = spans[j]
            let (sa, sb) = (min(a.start, a.end), min(b.start, b.end))
            if sa != sb { return sa < sb }
            let (ea, eb) = (max(a.start, a.end), max(b.start, b.end))
            if ea != eb { return ea < eb }
            return i < j
        }
        for i in order {
            let a = min(spans[i].start, spans[i].end), b = max(spans[i].start, spans[i].end)
            if let r = rowEnds.firstIndex(where: { $0 <= a }) {
                rowOf[i] = r
                rowEnds[r] = b
            } else {
                rowOf[i] = rowEnds.count
                rowEnds.append(b)
            }
        }
        return (rowOf, max(1, rowEnds.count))
    }

    /// Each span's tooltip, escaped, by lane and span index ("" for a span with a
    /// non-finite end, which is not drawn).
    static func tooltips(lanes: [TimelineLane]) -> [[String]] {
        var t = SVGWriter(capacity: 256)   // one writer for every tooltip
        return lanes.map { lane in
            lane.spans.map { s in
                guard s.start.isFinite, s.end.isFinite else { return "" }
                t.removeAll()
                writeTooltip(lane.name, s, min(s.start, s.end), max(s.start, s.end), into: &t)
                return SVGText.escape(t.string)
            }
        }
    }

    /// `lane: label (category) a–b` (or `at a`), written as bytes and made a string once
    /// (``tooltipByStrings``, its plain twin, appended strings; `ChartTooltipTwinTests`).
    static func tooltip(_ lane: String, _ s: TimelineSpan, _ a: Double, _ b: Double) -> String {
        var t = SVGWriter(capacity: 96)
        writeTooltip(lane, s, a, b, into: &t)
        return t.string
    }

    /// ``tooltip(_:_:_:_:)`` written after what `t` holds, its numbers as digits
    /// (``SVGWriter/write(shown:)``).
    static func writeTooltip(_ lane: String, _ s: TimelineSpan, _ a: Double, _ b: Double, into t: inout SVGWriter) {
        t.write(raw: lane)
        t.write(literal: ": ")
        if !s.label.isEmpty { t.write(raw: s.label); t.write(literal: " ") }
        if !s.category.isEmpty { t.write(literal: "("); t.write(raw: s.category); t.write(literal: ") ") }
        writeSpan(a, b, into: &t)
    }

    /// A span's extent after what `t` holds: `at a` when it is one instant, else `a–b`.
    static func writeSpan(_ a: Double, _ b: Double, into t: inout SVGWriter) {
        if a == b {
            t.write(literal: "at ")
            t.write(shown: a)
        } else {
            t.write(shown: a)
            t.write(literal: "–")
            t.write(shown: b)
        }
    }

    /// ``tooltip(_:_:_:_:)`` as appended strings: its plain twin, kept for the tests.
    static func tooltipByStrings(_ lane: String, _ s: TimelineSpan, _ a: Double, _ b: Double) -> String {
        var t = lane + ": "
        if !s.label.isEmpty { t += s.label + " " }
        if !s.category.isEmpty { t += "(\(s.category)) " }
        t += a == b ? "at \(ChartNumber.shown(a))" : "\(ChartNumber.shown(a))–\(ChartNumber.shown(b))"
        return t
    }
}
