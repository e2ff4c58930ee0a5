import Foundation
import Testing
@testable import Render

/// Round four's fast paths (docs/perf-study.md) against the paths they replace.
struct NumberAndCSVShapeFastPathTests {
    /// `%.10g` through `withVaList` and `vsnprintf`, as ``JSONValue/formatNumberPrintf(_:)``
    /// printed before it called `dossier_format_g10`.
    static func vaListNumber(_ d: Double) -> String {
        var buf = [CChar](repeating: 0, count: 40)
        let n = buf.withUnsafeMutableBufferPointer { out in
            withVaList([d]) { args in vsnprintf(out.baseAddress, 40, "%.10g", args) }
        }
        var b = buf.prefix(max(0, min(Int(n), 39))).map { UInt8(bitPattern: $0) }
        if b.contains(0x65) { return String(decoding: b, as: UTF8.self) }
        if b.contains(0x2E) {
            while b.last == 0x30 { b.removeLast() }
            if b.last == 0x2E { b.removeLast() }
        }
        let s = String(decoding: b, as: UTF8.self)
        return s == "-0" ? "0" : s
    }

    @Test func generalNumbersPrintAsThroughWithVaList() {
        let edge: [Double] = [
            -0.0, 0.0, 1e-7, -1e-7, 1e15, 1e16, 1.5e300, -2.5e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
            0.1 + 0.2, 1.0 / 3.0, -2.0 / 3.0, 123456789.125, 9_999_999_999.5, 100, 1e21
        ]
        for d in edge + FastPathTests.samples() {
            #expect(JSONValue.formatNumberPrintf(d) == Self.vaListNumber(d), "\(d)")
        }
    }

    /// Fields over the bytes the CSV shape looks at, at every position.
    static func fields() -> [String] {
        let pieces = [
            "a", " ", ",", "\"", "\n", "\r", "\t", "=", "+", "-", "@", "\u{01}", "\u{7F}", "\u{85}", "\u{A0}", "é",
            "Â", "😀", "1", "Entry 3", "5c2'Qe", "\u{FEFF}"
        ]
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33) % n
        }
        return [""] + pieces
            + (0..<20_000).map { _ in (0..<(1 + next(4))).map { _ in pieces[next(pieces.count)] }.joined() }
    }

    @Test func csvFieldShapeOfPlainFieldsAsTheFullScan() {
        for s in Self.fields() {
            for neutralise in [true, false] {
                let fast = CSVWriter.FieldShape(s, neutraliseFormulas: neutralise)
                let full = CSVWriter.FieldShape(scanning: s, neutraliseFormulas: neutralise)
                #expect(
                    fast.needsQuotes == full.needsQuotes && fast.neutralise == full.neutralise
                        && fast.hasControl == full.hasControl,
                    "\(s.debugDescription)")
                #expect(
                    CSVWriter(neutraliseFormulas: neutralise).field(s)
                        == FastPathTests.referenceField(s, neutraliseFormulas: neutralise),
                    "\(s.debugDescription)")
            }
        }
    }
}

@Test func csvWholeDoublesAsTheirFormattedNumbers() {
    for d in [
        0.0, -0.0, 1, -1, 4316, 1e15, -9_007_199_254_740_991, 9_007_199_254_740_992, 1e300, 2.5, -0.5, .infinity, .nan
    ] {
        var a = CSVWriter(), b = CSVWriter()
        a.numberField(d)
        b.numberField(JSONValue.formatNumber(d))
        #expect(a.text == b.text, "\(d)")
    }
}

/// `numberField(Double)` writes whole hundredths and thousandths from their digits; its
/// plain twin is `numberField(JSONValue.formatNumber(d))` (text and plain-number check).
@Test func numberFieldOfDoublesAsThroughFormattedText() {
    var rng = SystemRandomNumberGenerator()
    var values: [Double] = [0.001, -0.001, 0.01, -0.01, 0.005, 0.0049, 9_999_999.999, -9_999_999.999, 1e7 - 0.5,
                            1e7 + 0.25, 0.0009, 1.5, -2.25, 0.1 + 0.2, 1.0 / 3, 123.456, -0.125, 5e-324, 1e-7]
    for ms in -3_000...30_000 { values.append(Double(ms) / 1000) }      // the dynamics tables' cells
    for ms in stride(from: -2_000, through: 2_000, by: 1) { values.append(Double(ms) / 100) }
    for _ in 0..<100_000 {
        let k = Int64.random(in: -20_000_000_000...20_000_000_000, using: &rng)
        values.append(Double(k) / 1000)
        values.append(Double(k) / 100)
        values.append(Double.random(in: -1e8...1e8, using: &rng))
        values.append(Double(bitPattern: UInt64.random(in: .min ... .max, using: &rng)))
    }
    for d in values {
        var a = CSVWriter(), b = CSVWriter()
        a.numberField(d); a.numberField(d)
        b.numberField(JSONValue.formatNumber(d)); b.numberField(JSONValue.formatNumber(d))
        #expect(a.text == b.text, "\(d)")
    }
}
