import Testing
@testable import Render
import SplitMix64

// The heatmap's colours read from bytes, and a label's ink from one luminance
// (docs/perf-study.md, "Issue #45, the study build: cuts by measured share"), each
// against its plain twin.

/// `LabelInk.inkByContrast` as it was: each contrast from the two colours' text.
private func inkByContrastOfTexts(on fill: String) -> String {
    LabelInk.contrast(fill, LabelInk.black) >= LabelInk.contrast(fill, LabelInk.white) ? LabelInk.black : LabelInk.white
}

@Test func rgbFromBytesAsThroughCharacters() {
    var g = SplitMix64(seed: 45)
    let digits = Array("0123456789abcdefABCDEF")
    // Not colours: wrong lengths, signs and spaces (`Int(_:radix:)` reads `+f` and
    // `-1`), non-ASCII, a combining mark, CR LF (one Character).
    var texts = ["#12345", "#1234567", "#+f-1 a", "#ü12345", "é123456", "#12345\u{301}", "#\r\n23456", "#gg0000",
                 "000000x", "#ABCDEF", "#abcdef", "#000000", "#ffffff", "x0a0b0c"]
    for _ in 0..<20_000 {
        var s = Bool.random(using: &g) ? "#" : String(digits.randomElement(using: &g)!)
        for _ in 0..<6 { s.append(digits.randomElement(using: &g)!) }
        if Int.random(in: 0..<10, using: &g) == 0 {
            var chars = Array(s)
            chars[Int.random(in: 1..<7, using: &g)] = ["g", "+", "-", " ", "z"].randomElement(using: &g)!
            s = String(chars)
        }
        texts.append(s)
    }
    var fast = 0
    for t in texts where Array(t).count >= 7 {
        #expect(HeatmapChart.rgb(t) == HeatmapChart.rgbByCharacters(t), "\(t)")
        if HeatmapChart.rgbOfHexBytes(t) != nil { fast += 1 }
    }
    #expect(fast > 15_000)
    #expect(HeatmapChart.rgbOfHexBytes("#+f-1 a") == nil && HeatmapChart.rgbOfHexBytes("#12345\u{301}") == nil)
}

@Test func labelInkFromOneLuminanceAsFromTheTexts() {
    var g = SplitMix64(seed: 46)
    var fills = ChartStyle.palette + LabelInk.darkPalette + ["#000000", "#ffffff", "#777777", "#767676", "#808080"]
    for _ in 0..<20_000 {
        let v = g.next()
        fills.append("#" + [16, 8, 0].map { shift -> String in
            let h = String((v >> UInt64(shift)) & 0xFF, radix: 16)
            return h.count == 1 ? "0" + h : h
        }.joined())
    }
    for f in fills {
        #expect(LabelInk.inkByContrast(on: f) == inkByContrastOfTexts(on: f), "\(f)")
    }
}
