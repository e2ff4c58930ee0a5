import Foundation
import Render
import SplitMix64
import Testing
import TextBasics
@testable import DossierKit

// `PageContents.add` keeps a page whose headings all have ids as it is, without copying
// it (docs/perf-study.md, "Issue #45, the study build: cuts by measured share"). The
// plain twin below always rebuilds the page from its pieces, as the function did before.

@Suite struct PageContentsTwinTests {
    /// The page rebuilt from its pieces whether or not an id was inserted.
    static func addCopying(to html: String) -> (html: String, toc: [TOCEntry])? {
        let bytes = Array(html.utf8)
        func find(_ needle: String, from: Int) -> Int? {
            let n = Array(needle.utf8)
            guard n.count <= bytes.count else { return nil }
            var i = from
            while i + n.count <= bytes.count {
                if Array(bytes[i..<(i + n.count)]) == n { return i }
                i += 1
            }
            return nil
        }
        func text(_ r: Range<Int>) -> String { String(decoding: bytes[r], as: UTF8.self) }
        var opens: [Int] = []
        var at = 0
        while let i = find("<h2", from: at) {
            if i + 3 < bytes.count, bytes[i + 3] == 0x3E || bytes[i + 3] == 0x20 { opens.append(i) }
            at = i + 3
        }
        guard opens.count >= PageContents.minimumSections else { return nil }
        var slugs = Slug.Registry()
        var out = ""
        var toc: [TOCEntry] = []
        var copied = 0
        for start in opens {
            guard let tagEnd = find(">", from: start), let close = find("</h2>", from: tagEnd) else { continue }
            let tag = text(start..<(tagEnd + 1))
            let heading = PageContents.plainTextByCharacters(text((tagEnd + 1)..<close))
            guard !heading.isEmpty else { continue }
            if let r = tag.textRange(of: " id=\"") {
                let id = String(tag[r.upperBound...].prefix { $0 != "\"" })
                _ = slugs.unique(id)
                toc.append(TOCEntry(level: 2, text: heading, anchor: id))
                continue
            }
            let id = slugs.unique(Slug.make(heading))
            out += text(copied..<(start + 3)) + " id=\"\(HTML.escape(id))\""
            copied = start + 3
            toc.append(TOCEntry(level: 2, text: heading, anchor: id))
        }
        guard toc.count >= PageContents.minimumSections else { return nil }
        return (out + text(copied..<bytes.count), toc)
    }

    /// A page of random pieces: headings with and without ids (some empty, some with
    /// markup and escapes), `<h2x>` and `<h20>` look-alikes, charts-like filler,
    /// non-ASCII text and an unclosed heading.
    static func page(_ rng: inout SplitMix64) -> String {
        let words = [
            "Strings", "Data &amp; files", "Recall", "Ünïcode 😀", "a&lt;b", "", "<small>(x)</small>", " spaced  out ",
        ]
        let filler = [
            "<p>x</p>", "<svg><rect x=\"1\"/></svg>", "<h2x>no</h2x>", "<h20>", "é", "\n", "<h3>c</h3>",
        ]
        var s = ""
        // A quarter of the pages give every heading an id (the page is then kept).
        let allGiven = rng.next() % 4 == 0
        for _ in 0..<Int(rng.next() % 14) {
            switch rng.next() % 5 {
            case 0, 1 where !allGiven:
                let w = words[Int(rng.next() % UInt64(words.count))]
                s += "<h2>\(w)</h2>"
            case 0, 1, 2:
                let w = words[Int(rng.next() % UInt64(words.count))]
                s += "<h2 id=\"given-\(rng.next() % 3)\" class=\"k\">\(w)</h2>"
            default:
                s += filler[Int(rng.next() % UInt64(filler.count))]
            }
        }
        if rng.next() % 10 == 0 { s += "<h2>unclosed" }
        return s
    }

    @Test func addAsItsCopyingTwin() {
        var rng = SplitMix64(seed: 45)
        var kept = 0, inserted = 0, none = 0
        for _ in 0..<20_000 {
            let html = Self.page(&rng)
            let fast = PageContents.add(to: html)
            let plain = Self.addCopying(to: html)
            #expect(fast?.html == plain?.html, "\(html)")
            #expect(fast?.toc == plain?.toc, "\(html)")
            if let fast { if fast.html == html { kept += 1 } else { inserted += 1 } } else { none += 1 }
        }
        // Every kind of page was met: kept as it is, given ids, and without contents.
        #expect(kept > 100 && inserted > 100 && none > 100)
    }

    /// A heading's text kept as it is when it is plain ASCII words (``PageContents/plainText(_:)``)
    /// against the Character walk, on random headings of plain words, spaces at the ends
    /// and doubled, tabs, newlines, tags, escapes, a lone `>`, controls and non-ASCII.
    @Test func headingTextAsItsCharacterTwin() {
        var rng = SplitMix64(seed: 8)
        let pieces = ["Strings", "Recall", "(x)", "re-keys", " ", "  ", "\t", "\n", "\r\n", "<b>", "</b>", "&amp;",
                      "&lt;", ">", "a&b", "é", "\u{301}", "x\u{1}", "\u{7F}", "~", "'", "\"", ""]
        var kept = 0
        for _ in 0..<30_000 {
            let text = (0..<Int(rng.next() % 6)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
            #expect(PageContents.plainText(text) == PageContents.plainTextByCharacters(text),
                    "\(text.debugDescription)")
            if PageContents.isPlainASCIIHeading(text) { kept += 1 }
        }
        #expect(kept > 1_000)
    }

    @Test func pageWithEveryIdIsKept() throws {
        let html = (1...5).map { "<h2 id=\"s\($0)\">Section \($0)</h2><p>é</p>" }.joined()
        let (out, toc) = try #require(PageContents.add(to: html))
        #expect(out == html)
        #expect(toc.map(\.anchor) == ["s1", "s2", "s3", "s4", "s5"])
    }
}
