import Foundation
import Testing
@testable import Render

/// Round five's CSV paths (docs/perf-study.md) against ``CSVWriter/textField(_:)``.
struct CSVEncodedFieldFastPathTests {
    /// A field encoded once (`EncodedField`) writes the bytes `textField` writes, for the
    /// random fields of round four's shape test, with and without neutralising.
    @Test func encodedFieldsAsTextFields() {
        for s in NumberAndCSVShapeFastPathTests.fields().prefix(3_000) {
            for neutralise in [true, false] {
                var a = CSVWriter(neutraliseFormulas: neutralise), b = CSVWriter(neutraliseFormulas: neutralise)
                let once = CSVWriter.EncodedField(s, neutraliseFormulas: neutralise)
                a.numberField(1); a.field(once); a.field(once); a.endRecord()
                b.numberField(1); b.textField(s); b.textField(s); b.endRecord()
                #expect(a.text == b.text, "\(s.debugDescription)")
            }
        }
    }

    /// raw.csv's fixed words (page names with and without a field number, `True`/`False`,
    /// the empty phase) written by `plainField` as `textField` writes them.
    @Test func plainFieldsAsTextFields() {
        let words = [
            "", "Welcome", "Ready", "Memorize", "Verify", "Entry", "Recall", "Thank You", "Entry 3", "Recall 10",
            "Memorize 1",
            "True", "False"
        ]
        for w in words {
            var a = CSVWriter(), b = CSVWriter()
            a.plainField(w); a.plainField(w); a.endRecord()
            b.textField(w); b.textField(w); b.endRecord()
            #expect(a.text == b.text, "\(w.debugDescription)")
            #expect(CSVWriter.FieldShape(scanning: w, neutraliseFormulas: true).isPlain)
        }
        for notPlain in [" x", "a,b", "=1", "-x", "q\"", "\u{01}"] {
            #expect(
                !CSVWriter.FieldShape(scanning: notPlain, neutraliseFormulas: true).isPlain,
                "\(notPlain.debugDescription)")
        }
    }
}

/// Tick labels without printf (`ChartNumber.fixedWhole`) against `String(format: "%.Nf")`
/// with the `-0` rule of `ChartNumber.fixed`: every tick of nice scales over many ranges,
/// and values that are not whole at their decimals (those must be left to printf).
@Test func tickLabelsAsPrintf() {
    func printf(_ x: Double, _ d: Int) -> String {
        let s = String(format: "%.\(d)f", x)
        if s.hasPrefix("-"), s.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { return String(s.dropFirst()) }
        return s
    }
    var values: [(Double, Int)] = []
    for (lo, hi) in [
        (0.0, 1.0), (-3.3, 7.9), (0, 0.0004), (1e-5, 2e-5), (-1e6, 3e6), (0, 123_456.7), (0.1, 0.3), (-0.0, 0.0), (5, 5)
    ] {
        for count in [2, 3, 5, 8] {
            let scale = NiceScale(min: lo, max: hi, count: count)
            let d = ChartNumber.decimals(forStep: scale.step)
            for t in scale.ticks { values.append((t, d)) }
        }
    }
    for d in 0...6 {
        for x in [
            0.0, -0.0, 0.15, 0.125, -0.125, 2.5, -2.5, 0.1 + 0.2, 1.005, 1e15, -1e15, 9e15, 123.456789, -7.0, 0.000_001,
            -0.000_000_4
        ] {
            values.append((x, d))
        }
    }
    var state: UInt64 = 11
    for _ in 0..<20_000 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let d = Int(state >> 61) % 7
        let k = Double(Int64(truncatingIfNeeded: state >> 20) % 2_000_000 - 1_000_000)
        values.append((k / [1.0, 10, 100, 1_000, 10_000, 100_000, 1_000_000][d], d))
    }
    for (x, d) in values {
        #expect(ChartNumber.fixed(x, decimals: d) == printf(x, d), "\(x) with \(d) decimals")
        if let fast = ChartNumber.fixedWhole(x, decimals: d) {
            #expect(fast == printf(x, d), "\(x) with \(d) decimals")
        }
    }
}
