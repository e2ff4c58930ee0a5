#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - A finished drawing

extension ChartCanvas {
    // MARK: No data

    /// A chart that says "No data": the frame, a dashed plot outline, centred text.
    static func noDataCanvas(options: ChartOptions, kind: String) -> ChartCanvas {
        var cv = ChartCanvas(options: options, kind: kind)
        cv.layout(left: 16, right: 16, bottom: 16)
        cv.body += "<rect x=\"\(c(cv.plotX))\" y=\"\(c(cv.plotY))\" width=\"\(c(cv.plotW))\" height=\"\(c(cv.plotH))\""
        cv.body += " fill=\"#f6f6f6\" stroke=\"#bbbbbb\" stroke-dasharray=\"4 4\"/>"
        cv.body += "<text x=\"\(c(cv.plotX + cv.plotW / 2))\" y=\"\(c(cv.plotY + cv.plotH / 2))\" dy=\"0.32em\""
        cv.body += " text-anchor=\"middle\" font-size=\"16\" fill=\"\(ChartStyle.muted)\">No data</text>"
        cv.summary = ["No data."]
        return cv
    }

    /// ``noDataCanvas(options:kind:)`` as its `<svg>` element.
    static func noData(options: ChartOptions, kind: String) -> String {
        noDataCanvas(options: options, kind: kind).finish()
    }

    // MARK: Output

    /// The complete `<svg>` element.
    func finish() -> String {
        var out = SVGWriter(capacity: body.count + 2_048)
        finish(into: &out)
        return out.string
    }

    /// Writes the complete `<svg>` element after what `out` holds: the frame of a chart
    /// (``Charts/responsiveWritten(_:_:)``) takes both drawings this way, their marks
    /// copied as bytes once, where each drawing was a `String` (its bytes checked as
    /// UTF-8) copied into the frame (docs/perf-study.md, "the study's pages kept as
    /// bytes"). `ChartCanvasOutputTests` compares it with ``finishByStrings()``.
    func finish(into s: inout SVGWriter) {
        let w = c(width), h = c(height)
        s.write(literal: "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"dossier-chart ")
        if let drawingClass = options.drawingClass { s.write(raw: drawingClass); s.write(literal: " ") }
        s.write(literal: "dossier-chart-"); s.write(raw: kind)
        s.write(literal: "\" id=\""); s.write(raw: id)
        s.write(literal: "\" viewBox=\"0 0 "); s.write(raw: w); s.write(literal: " "); s.write(raw: h)
        s.write(literal: "\" width=\"100%\" preserveAspectRatio=\"xMidYMid meet\"")
        s.write(literal: " style=\"height:auto\" role=\"img\" aria-labelledby=\"")
        s.write(raw: id); s.write(literal: "-title "); s.write(raw: id); s.write(literal: "-desc\"")
        s.write(literal: " font-family=\""); s.write(raw: ChartStyle.fontFamily)
        s.write(literal: "\" font-size=\"12\"><title id=\""); s.write(raw: id); s.write(literal: "-title\">")
        s.write(raw: SVGText.escape(options.title))
        s.write(literal: "</title><desc id=\""); s.write(raw: id); s.write(literal: "-desc\">")
        s.write(raw: options.sharedDescription ?? SVGText.escape(description()))
        s.write(literal: "</desc><rect class=\"chart-background\" width=\"")
        s.write(raw: w); s.write(literal: "\" height=\""); s.write(raw: h)
        s.write(literal: "\" fill=\""); s.write(raw: ChartStyle.background); s.write(literal: "\"/>")
        if options.showTitle, !options.title.isEmpty {
            let t = SVGText.truncate(options.title, max: max(10, Int((width - 24) / (14 * 0.6))))
            s.write(literal: "<text class=\"chart-title\" x=\"12\" y=\"20\" font-size=\"14\" font-weight=\"600\"")
            s.write(literal: " fill=\""); s.write(raw: ChartStyle.ink); s.write(literal: "\" aria-hidden=\"true\">")
            s.write(raw: SVGText.escape(t)); s.write(literal: "</text>")
        }
        if !legendRows.isEmpty { s.write(legendWriter()) }
        s.write(body)
        s.write(literal: "</svg>")
    }

    /// The plain twin of ``finish(into:)``, kept for the tests: the element put together
    /// from `String`s, as it was before the drawings were kept as bytes.
    func finishByStrings() -> String {
        let w = c(width), h = c(height)
        let drawingClass = options.drawingClass.map { $0 + " " } ?? ""
        var s = ""
        s += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"dossier-chart \(drawingClass)dossier-chart-\(kind)\""
        s += " id=\"\(id)\" viewBox=\"0 0 \(w) \(h)\" width=\"100%\" preserveAspectRatio=\"xMidYMid meet\""
        s += " style=\"height:auto\" role=\"img\" aria-labelledby=\"\(id)-title \(id)-desc\""
        s += " font-family=\"\(ChartStyle.fontFamily)\" font-size=\"12\">"
        s += "<title id=\"\(id)-title\">\(SVGText.escape(options.title))</title>"
        s += "<desc id=\"\(id)-desc\">\(options.sharedDescription ?? SVGText.escape(description()))</desc>"
        s += "<rect class=\"chart-background\" width=\"\(w)\" height=\"\(h)\" fill=\"\(ChartStyle.background)\"/>"
        if options.showTitle, !options.title.isEmpty {
            let t = SVGText.truncate(options.title, max: max(10, Int((width - 24) / (14 * 0.6))))
            s += "<text class=\"chart-title\" x=\"12\" y=\"20\" font-size=\"14\" font-weight=\"600\""
            s += " fill=\"\(ChartStyle.ink)\" aria-hidden=\"true\">\(SVGText.escape(t))</text>"
        }
        s += legendRows.isEmpty ? "" : legendWriter().string
        s += body.string
        s += "</svg>"
        return s
    }

    /// The `<desc>` text: the description, then the data summary, else the title.
    private func description() -> String {
        var desc = ChartCanvas.trimmed(options.description)
        if options.dataSummary || summary == ["No data."], !summary.isEmpty {
            desc += (desc.isEmpty ? "" : " ") + summary.joined(separator: " ")
        }
        return desc.isEmpty ? options.title : desc
    }

    /// `s` without leading and trailing whitespace and newlines; Foundation's
    /// `trimmingCharacters` (UTF-16 on Linux) only when an end byte might be one.
    static func trimmed(_ s: String) -> String {
        func plain(_ b: UInt8?) -> Bool { b.map { $0 > 0x20 && $0 < 0x7F } ?? true }
        if plain(s.utf8.first) && plain(s.utf8.last) { return s }
        return s.trimmingWhitespaceAndNewlines()
    }

    private func legendWriter() -> SVGWriter {
        var s = SVGWriter(capacity: 1_024)
        s.write("<g class=\"legend\" font-size=\"11\" fill=\"\(ChartStyle.ink)\" aria-hidden=\"true\">")
        var y = (options.showTitle && !options.title.isEmpty ? 30.0 : 8.0) + 9
        for row in legendRows {
            var x = 12.0
            for (item, w) in row {
                switch item.key {
                case let .swatch(color):
                    s.write("<rect x=\"\(x)\" y=\"\(y - 5)\" width=\"18\" height=\"10\" fill=\"\(color)\"/>")
                case let .line(color, dash, marker):
                    s.write("<line x1=\"\(x)\" x2=\"\(x + 18)\" y1=\"\(y)\" y2=\"\(y)\" stroke=\"\(color)\"")
                    s.write(" stroke-width=\"2\"\(dash.isEmpty ? "" : " stroke-dasharray=\"\(dash)\"")/>")
                    marker?.draw(into: &s, x: x + 9, y: y, r: 3.5, fill: color)
                case let .marker(color, marker):
                    marker.draw(into: &s, x: x + 9, y: y, r: 4, fill: color)
                }
                s.write("<text x=\"\(x + 24)\" y=\"\(y)\" dy=\"0.32em\">")
                s.write("\(SVGText.escape(SVGText.truncate(item.name, max: 40)))</text>")
                x += w
            }
            y += 18
        }
        s.write("</g>")
        return s
    }
}
