import Foundation
import Testing
@testable import Render

/// Each byte-level or integer fast path of docs/perf-study.md against the reference path
/// it stands in for: same text for every input tried.
struct FastPathTests {
    /// Values a study writes (ms / 1000, medians of whole ms, means) and edge cases.
    static func samples() -> [Double] {
        var v: [Double] = [0.01, -0.01, 0.009, 0.015, 0.07, 0.1, 0.5, 1.5, -2.25, 9_999_999.99, 10_000_000.5,
                           1e-7, 123.456, 1.0 / 3.0, 487.83351234567, 0.1 + 0.2, 2.675, 1.005, -0.5]
        for k in stride(from: 1, through: 200_000, by: 7) {
            v.append(Double(k) / 100); v.append(Double(k) / 1000); v.append(-Double(k) / 100)
        }
        for k in stride(from: 1, through: 20_000, by: 3) { v.append(Double(k) + 0.5); v.append(Double(k) / 3) }
        var g = SystemRandomNumberGenerator()
        for _ in 0..<20_000 { v.append(Double.random(in: -1e8...1e8, using: &g) / 1000) }
        return v
    }

    @Test func formatNumberHundredthsMatchPrintf() {
        for d in Self.samples() where d != d.rounded() {
            #expect(JSONValue.formatNumber(d) == JSONValue.formatNumberPrintf(d), "\(d)")
        }
    }

    @Test func exactHundredthsRefusesWhatIsNotWholeHundredths() {
        #expect(DecimalText.exactHundredths(0.015) == nil)
        #expect(DecimalText.exactHundredths(0.009) == nil)
        #expect(DecimalText.exactHundredths(1e7) == nil)
        #expect(DecimalText.exactHundredths(12.34) == 1234)
        #expect(DecimalText.hundredths(-1230) == "-12.3")
        #expect(DecimalText.hundredths(5) == "0.05")
        #expect(DecimalText.hundredths(700) == "7")
    }

    @Test func chartCoordinatesAsBefore() {
        // The formatting ChartNumber.coord used before it shared DecimalText.
        func old(_ x: Double) -> String {
            let n = Int64((x * 100).rounded())
            if n == 0 { return "0" }
            let a = n < 0 ? -n : n
            let whole = a / 100, frac = a % 100
            var s = n < 0 ? "-" : ""
            s += String(whole)
            if frac != 0 { s += frac % 10 == 0 ? "." + String(frac / 10) : (frac < 10 ? ".0" : ".") + String(frac) }
            return s
        }
        for d in Self.samples() { #expect(ChartNumber.coord(d) == old(d), "\(d)") }
    }

    @Test func svgTextEscapeFastPathMatchesReference() {
        let cases = ["", "plain title", "a & b", "<x>", "say \"hi\"", "it's", "tab\there", "line\nbreak", "bell\u{07}",
                     "nul\u{0}", "\u{FFFE}", "x\u{FFFF}y", "\u{FFFD}", "é ü ∞ 😀", "\u{EFBF}", "Memorize 3", "field 12"]
        for s in cases {
            #expect(SVGText.escape(s) == SVGText.escapeSlow(s), "\(s.debugDescription)")
        }
        #expect(SVGText.needsEscaping("plain") == false)
        #expect(SVGText.needsEscaping("x\u{FFFE}") == true)
    }

    @Test func descriptionTrimmedAsFoundation() {
        for s in ["", " a ", "a", "a\n", "\tab", "abc", "é", "x\u{00A0}", "\u{2003}y", ". ", "ok."] {
            #expect(ChartCanvas.trimmed(s) == s.trimmingCharacters(in: .whitespacesAndNewlines),
                    "\(s.debugDescription)")
        }
    }
    /// The CSV text field as it was written before `FieldShape` (three passes).
    static func referenceField(_ raw: String, neutraliseFormulas: Bool) -> String {
        // ControlCharacters.display: C0 (but TAB, LF, CR), DEL and C1 → U+FFFD.
        var shown = String.UnicodeScalarView()
        for u in raw.unicodeScalars {
            let v = u.value
            let control = (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || (v >= 0x7F && v <= 0x9F)
            shown.append(control ? "\u{FFFD}" : u)
        }
        let raw = String(shown)
        var out: [UInt8] = []
        var needsQuotes = false, neutralise = false, first = true
        var last: UInt8 = 0
        for b in raw.utf8 {
            if first {
                neutralise =
                    neutraliseFormulas && (b == 0x3D || b == 0x2B || b == 0x2D || b == 0x40 || b == 0x09 || b == 0x0D)
                if b == 0x20 { needsQuotes = true }
                first = false
            }
            if b == 0x2C || b == 0x22 || b == 0x0A || b == 0x0D { needsQuotes = true }
            last = b
        }
        if last == 0x20 { needsQuotes = true }
        if needsQuotes { out.append(0x22) }
        if neutralise { out.append(0x27) }
        for b in raw.utf8 {
            if needsQuotes && b == 0x22 { out.append(0x22) }
            out.append(b)
        }
        if needsQuotes { out.append(0x22) }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func csvTextFieldsAsTheThreePassWriter() {
        let cases = [
            "", "plain", " lead", "trail ", "a,b", "say \"x\"", "l1\nl2", "cr\r", "=SUM(A1)", "+1", "-x", "@me",
            "\tx", "\rx", "bell\u{07}", "del\u{7F}", "c1\u{85}x", "\u{9F}", "é\u{A0}", "Â€", "Ã", "\u{C2}",
            "=\u{01}\"", "😀 ,", "Entry 3", "True"
        ]
        for s in cases {
            for neutralise in [true, false] {
                #expect(
                    CSVWriter(neutraliseFormulas: neutralise).field(s)
                        == Self.referenceField(s, neutraliseFormulas: neutralise),
                    "\(s.debugDescription)")
            }
        }
    }

    @Test func csvIntegerFieldsAsFormattedNumbers() {
        var a = CSVWriter(), b = CSVWriter()
        for i in [0, 7, 9, 10, -3, -10, 99, 100, 12_345, 1_000_000, Int.max, Int.min, Int.min + 1] {
            a.numberField(i); b.numberField(String(i))
        }
        a.endRecord(); b.endRecord()
        #expect(a.text == b.text)
    }
}
