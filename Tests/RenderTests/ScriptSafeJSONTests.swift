import Escaping
import Foundation
import Testing
@testable import Render

/// `HTML.scriptSafeJSON`, the JSON placed inside `<script>` by the experience pages and the
/// kit pages: no `<`, `>`, `&`, U+2028 or U+2029 left, and a JSON reader (Foundation's)
/// still reads the value that was written.
@Suite struct ScriptSafeJSONTests {
    @Test func nothingCanCloseTheScriptAndTheValueReadsBack() throws {
        let pieces = ["<", ">", "&", "\u{2028}", "\u{2029}", "</script>", "<!--", "é", "😀", "\"", "\\", "\n", "a", " "]
        var samples = ["", "</script><script>alert(1)</script>"]
        for _ in 0..<1_000 {
            samples.append((0..<Int.random(in: 0...10)).map { _ in pieces.randomElement()! }.joined())
        }
        for s in samples {
            let safe = HTML.scriptSafeJSON(JSONValue.array([.string(s)]).serialized(pretty: false))
            #expect(!safe.unicodeScalars.contains { "<>&\u{2028}\u{2029}".unicodeScalars.contains($0) }, "\(s)")
            let back = try JSONSerialization.jsonObject(with: Data(safe.utf8)) as? [String]
            #expect(back == [s], "\(s.debugDescription)")
        }
        #expect(HTML.scriptSafeJSON("\"</a>&\u{2028}\"") == "\"\\u003c/a\\u003e\\u0026\\u2028\"")
    }

    @Test func hexEscapesAreFourLowercaseDigitsAsPrintfWritesThem() {
        for v in Array(0..<0x20) + [0x3c, 0x3e, 0x26, 0x7f, 0xe9, 0x2028, 0x2029, 0xfffd] {
            var out = ""
            JSONText.appendHexEscape(Unicode.Scalar(UInt32(v))!, to: &out)
            #expect(out == String(format: "\\u%04x", v))
        }
    }
}
