import Foundation
import Testing
@testable import Render
import SplitMix64

// The category axes and the axis frame written into the canvas's bytes
// (``ChartCanvas/categoryAxisX(_:centers:rotate:)``, ``ChartCanvas/categoryAxisY(_:centers:)``,
// ``ChartCanvas/axisFrame(xTitleOffset:left:bottom:)``) against their plain twins below:
// each label a `String` of `String`s, as they were written before the drawings were kept
// as bytes.

extension ChartCanvas {
    func categoryAxisXByStrings(_ names: [String], centers: [Double], rotate: Bool) -> String {
        var g = "<g class=\"axis axis-x\" font-size=\"11\" fill=\"\(ChartStyle.muted)\""
            + " text-anchor=\"\(rotate ? "end" : "middle")\">"
        let every = rotate ? ChartCanvas.labelEvery(centers, minSpacing: 21) : 1
        for (i, n) in names.enumerated() where i < centers.count && i % every == 0 {
            let l = SVGText.truncate(n, max: 28)
            let x = c(centers[i]), y = c(plotY + plotH + (rotate ? 12 : 16))
            let full = n == l ? "" : "<title>\(SVGText.escape(n))</title>"
            if rotate {
                g += "<text x=\"\(x)\" y=\"\(y)\" transform=\"rotate(-35 \(x) \(y))\">"
                g += "\(full)\(SVGText.escape(l))</text>"
            } else {
                g += "<text x=\"\(x)\" y=\"\(y)\">\(full)\(SVGText.escape(l))</text>"
            }
        }
        return g + "</g>"
    }

    func categoryAxisYByStrings(_ names: [String], centers: [Double]) -> String {
        var g = "<g class=\"axis axis-y\" font-size=\"11\" fill=\"\(ChartStyle.muted)\" text-anchor=\"end\">"
        let every = ChartCanvas.labelEvery(centers)
        for (i, n) in names.enumerated() where i < centers.count && i % every == 0 {
            let l = SVGText.truncate(n, max: 28)
            let full = n == l ? "" : "<title>\(SVGText.escape(n))</title>"
            g += "<text x=\"\(c(plotX - 6))\" y=\"\(c(centers[i]))\" dy=\"0.32em\">\(full)\(SVGText.escape(l))</text>"
        }
        return g + "</g>"
    }

    func axisFrameByStrings(xTitleOffset: Double = 34, left: Bool = true, bottom: Bool = true) -> String {
        var body = ""
        if bottom {
            body += "<line x1=\"\(c(plotX))\" x2=\"\(c(plotX + plotW))\""
            body += " y1=\"\(c(plotY + plotH))\" y2=\"\(c(plotY + plotH))\" stroke=\"\(ChartStyle.axis)\"/>"
        }
        if left {
            body += "<line x1=\"\(c(plotX))\" x2=\"\(c(plotX))\""
            body += " y1=\"\(c(plotY))\" y2=\"\(c(plotY + plotH))\" stroke=\"\(ChartStyle.axis)\"/>"
        }
        if !options.xLabel.isEmpty {
            let y = min(height - 6, plotY + plotH + xTitleOffset)
            body += "<text class=\"axis-title\" x=\"\(c(plotX + plotW / 2))\" y=\"\(c(y))\""
            body += " text-anchor=\"middle\" font-size=\"12\" fill=\"\(ChartStyle.ink)\">"
            body += "\(SVGText.escape(options.xLabel))</text>"
        }
        if !options.yLabel.isEmpty {
            let half = ChartStyle.textWidth(options.yLabel, size: 12) / 2
            let x = 14.0, y = min(max(plotY + plotH / 2, plotY + half), max(plotY + plotH / 2, height - half))
            body += "<text class=\"axis-title\" x=\"\(c(x))\" y=\"\(c(y))\" text-anchor=\"middle\" font-size=\"12\""
            body += " fill=\"\(ChartStyle.ink)\" transform=\"rotate(-90 \(c(x)) \(c(y)))\">"
            body += "\(SVGText.escape(options.yLabel))</text>"
        }
        return body
    }
}

@Test func chartAxesWrittenAsBytesAsTheirStringTwins() {
    var g = SplitMix64(seed: 35)
    let words = ["1", "10", "hold", "a & b", "<x>", "é ✓ 日本語", String(repeating: "w", count: 27),
                 String(repeating: "v", count: 28), String(repeating: "long ", count: 9), "", "tab\tx\u{2}"]
    func coordinate() -> Double {
        switch Int.random(in: 0..<6, using: &g) {
        case 0: return [Double.nan, .infinity, -.infinity, -0.0, 0.005, -0.005][Int.random(in: 0..<6, using: &g)]
        case 1: return Double.random(in: -1e12...1e12, using: &g)
        default: return Double(Int.random(in: -2_000...200_000, using: &g)) / 100
        }
    }
    for _ in 0..<3_000 {
        var o = ChartOptions(title: "t", width: coordinate(), height: coordinate())
        o.xLabel = words.randomElement(using: &g)!
        o.yLabel = words.randomElement(using: &g)!
        var cv = ChartCanvas(options: o, kind: "bar")
        cv.layout(left: abs(coordinate()).truncatingRemainder(dividingBy: 300), right: 16, bottom: 40)
        if Bool.random(using: &g) { cv.plotX = coordinate(); cv.plotY = coordinate(); cv.plotH = coordinate() }
        let names = (0..<Int.random(in: 0...14, using: &g)).map { _ in words.randomElement(using: &g)! }
        // (The first two centres are finite, as a chart's bands are: their spacing
        // decides how many labels to skip.)
        var centers = (0..<Int.random(in: 0...14, using: &g)).map { k in
            k < 2 ? Double(Int.random(in: -20_000...20_000, using: &g)) / 7 : coordinate()
        }
        if Bool.random(using: &g) {
            let step = Double(Int.random(in: 1...40, using: &g))
            centers = names.indices.map { Double($0) * step }
        }
        let rotate = Bool.random(using: &g)
        let offset = coordinate(), left = Bool.random(using: &g), bottom = Bool.random(using: &g)
        let twin = cv.categoryAxisXByStrings(names, centers: centers, rotate: rotate)
            + cv.categoryAxisYByStrings(names, centers: centers)
            + cv.axisFrameByStrings(xTitleOffset: offset, left: left, bottom: bottom)
        cv.categoryAxisX(names, centers: centers, rotate: rotate)
        cv.categoryAxisY(names, centers: centers)
        cv.axisFrame(xTitleOffset: offset, left: left, bottom: bottom)
        #expect(cv.body.string == twin)
        if cv.body.string != twin { break }
    }
}

@Test func aYTitleLongerThanAShortPlotHangsFromThePlotTop() throws {
    var o = ChartOptions(title: "A short heatmap", width: 640, height: 400)
    o.yLabel = "participant"
    let half = ChartStyle.textWidth("participant", size: 12) / 2
    for (plotH, short) in [(20.0, true), (300.0, false)] {
        var cv = ChartCanvas(options: o, kind: "heatmap")
        cv.layout(left: 80, right: 40, bottom: 40)
        cv.plotH = plotH
        cv.axisFrame(xTitleOffset: 30, left: false, bottom: false)
        let svg = cv.body.string
        // `transform="rotate(-90 X Y)"`: Y is the title's centre.
        let rotate = try #require(svg.range(of: "rotate(-90 ").map { svg[$0.upperBound...] })
        let numbers = rotate.prefix { $0 != ")" }.split(separator: " ")
        let y = try #require(Double(String(numbers[1])))
        if short {
            #expect(abs(y - (cv.plotY + half)) < 1e-9, "the title's top at the plot's top")
            #expect(cv.plotY + plotH / 2 < y, "centred, the title would reach into the chart's title")
        } else {
            #expect(abs(y - (cv.plotY + plotH / 2)) < 1e-9, "a tall plot keeps the title centred")
        }
    }
}
