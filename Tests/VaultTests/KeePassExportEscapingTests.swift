import Foundation
import Testing
import XMLScan
@testable import Vault

/// The KeePass export writes its text through the shared escaper
/// (`XMLText.escapeForXMLDocument`); what an XML reader gets back is the text, less the
/// control characters XML 1.0 cannot carry.
struct KeePassExportEscapingTests {
    /// The text an XML reader sees in `<Value>…</Value>` written with `esc`.
    static func readBack(_ escaped: String) throws -> String {
        var scanner = try XMLScanner(Data("<Value>\(escaped)</Value>".utf8))
        var text = ""
        while let event = try scanner.next() {
            if case .text(let t) = event { text += t }
        }
        return text
    }

    @Test func escapedTextReadsBackAsTheTextLessForbiddenControls() throws {
        let specials: [Unicode.Scalar] = [
            "&", "<", ">", "\"", "'", "\r", "\n", "\t", "\u{1}", "\u{1F}", "\u{7F}", "é", "😀", ";", "#"
        ]
        var g = SystemRandomNumberGenerator()
        var samples = ["", "a&b", "]]>", "&amp;", "line1\r\nline2", "\u{0}x"]
        for _ in 0..<2_000 {
            let n = Int.random(in: 0...12, using: &g)
            samples.append(String(String.UnicodeScalarView((0..<n).map { _ in specials.randomElement(using: &g)! })))
        }
        for s in samples {
            let escaped = KeePassXMLExport.esc(s)
            let kept = String(
                String.UnicodeScalarView(
                    s.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\n" || $0 == "\t" || $0 == "\r" }))
            #expect(try Self.readBack(escaped) == kept, "\(s.debugDescription)")
            #expect(
                !escaped.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" },
                "\(s.debugDescription)")
        }
    }

    @Test func carriageReturnsAreReferencesSoAReaderKeepsThem() {
        #expect(KeePassXMLExport.esc("a\rb") == "a&#13;b")
        #expect(KeePassXMLExport.esc("<'\"&>") == "&lt;&#39;&quot;&amp;&gt;")
    }
}
