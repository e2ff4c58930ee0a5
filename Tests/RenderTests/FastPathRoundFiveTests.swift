import Foundation
import Testing
@testable import Render

/// Round five's CSV paths (docs/perf-study.md) against ``CSVWriter/textField(_:)``.
struct FastPathRoundFiveTests {
    /// A field encoded once (`EncodedField`) writes the bytes `textField` writes, for the
    /// random fields of round four's shape test, with and without neutralising.
    @Test func encodedFieldsAsTextFields() {
        for s in FastPathRoundFourTests.fields().prefix(3_000) {
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
        let words = ["", "Welcome", "Ready", "Memorize", "Verify", "Entry", "Recall", "Thank You", "Entry 3", "Recall 10", "Memorize 1",
                     "True", "False"]
        for w in words {
            var a = CSVWriter(), b = CSVWriter()
            a.plainField(w); a.plainField(w); a.endRecord()
            b.textField(w); b.textField(w); b.endRecord()
            #expect(a.text == b.text, "\(w.debugDescription)")
            #expect(CSVWriter.FieldShape(scanning: w, neutraliseFormulas: true).isPlain)
        }
        for notPlain in [" x", "a,b", "=1", "-x", "q\"", "\u{01}"] {
            #expect(!CSVWriter.FieldShape(scanning: notPlain, neutraliseFormulas: true).isPlain, "\(notPlain.debugDescription)")
        }
    }
}
