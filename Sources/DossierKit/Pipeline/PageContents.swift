#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// In-page contents for a long page a template made (docs/design-system.md, "Contents on
/// long pages"): a page that has no table of contents of its own (Markdown pages have
/// one) and at least ``minimumSections`` `<h2>` headings gets one, listing those
/// headings; a heading without an `id` gets one (its text made a slug as Markdown
/// headings are, `-1`, `-2`, … on a repeat).
enum PageContents {
    static let minimumSections = 4

    /// `html` with every `<h2>` given an id, and the contents; nil when the page has
    /// fewer than ``minimumSections`` of them (the page is then used as it is).
    ///
    /// The headings are found in the page's bytes; the page is then put together from
    /// slices of `html` itself between the places where an id goes in (a copy of valid
    /// text, not bytes decoded and checked again: that was ≈ 2 % of a study build, whose
    /// participant pages are 130 KB of charts with eight headings; docs/perf-study.md).
    /// A page whose headings all have ids is `html` itself. `addCopying` in the tests
    /// is the plain twin.
    static func add(to html: String) -> (html: String, toc: [TOCEntry])? {
        var html = html
        let found = html.withUTF8 { bytes -> (inserts: [(at: Int, id: String)], toc: [TOCEntry])? in
            var opens: [Int] = []
            var at = 0
            while let i = ByteSearch.find("<h2", in: bytes, from: at) {
                if i + 3 < bytes.count, bytes[i + 3] == 0x3E || bytes[i + 3] == 0x20 { opens.append(i) }
                at = i + 3
            }
            guard opens.count >= minimumSections else { return nil }
            var slugs = Slug.Registry()
            var inserts: [(at: Int, id: String)] = []
            var toc: [TOCEntry] = []
            for start in opens {
                guard let tagEnd = ByteSearch.find(">", in: bytes, from: start),
                      let close = ByteSearch.find("</h2>", in: bytes, from: tagEnd) else { continue }
                let tag = String(decoding: UnsafeBufferPointer(rebasing: bytes[start...tagEnd]), as: UTF8.self)
                let text = plainText(
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[(tagEnd + 1)..<close]), as: UTF8.self))
                guard !text.isEmpty else { continue }
                if let r = tag.textRange(of: " id=\"") {
                    let id = String(tag[r.upperBound...].prefix { $0 != "\"" })
                    _ = slugs.unique(id)
                    toc.append(TOCEntry(level: 2, text: text, anchor: id))
                    continue
                }
                let id = slugs.unique(Slug.make(text))
                inserts.append((start + 3, id))
                toc.append(TOCEntry(level: 2, text: text, anchor: id))
            }
            guard toc.count >= minimumSections else { return nil }
            return (inserts, toc)
        }
        guard let found else { return nil }
        guard !found.inserts.isEmpty else { return (html, found.toc) }
        // Every place an id goes in is just after `<h2`: ASCII, a character boundary.
        var out = ""
        out.reserveCapacity(html.utf8.count + 40 * found.inserts.count)
        let utf8 = html.utf8
        var copied = utf8.startIndex
        for insert in found.inserts {
            let at = utf8.index(utf8.startIndex, offsetBy: insert.at)
            out += html[copied..<at]
            out += " id=\"\(HTML.escape(insert.id))\""
            copied = at
        }
        out += html[copied...]
        return (out, found.toc)
    }

    /// The text of a heading's HTML: tags dropped, the five escapes undone, spaces joined.
    /// A heading of printable ASCII words with single spaces between them and no `<`, `>`
    /// or `&` (every heading of a participant page) is that text already: it is kept
    /// as it is (``isPlainASCIIHeading(_:)``), where the Character walk, five
    /// replacements and a split cost a few thousand instructions per heading.
    /// `PageContentsTwinTests` compares it with ``plainTextByCharacters(_:)``.
    static func plainText(_ html: String) -> String {
        isPlainASCIIHeading(html) ? html : plainTextByCharacters(html)
    }

    /// Whether `html` is non-empty printable ASCII without `<`, `>`, `&`, whose spaces are
    /// single and between words.
    static func isPlainASCIIHeading(_ html: String) -> Bool {
        var html = html
        return html.withUTF8 { b in
            guard let first = b.first, let last = b.last, first != 0x20, last != 0x20 else { return false }
            var previous: UInt8 = 0
            for c in b {
                guard c >= 0x20, c < 0x7F, c != 0x3C, c != 0x3E, c != 0x26 else { return false }
                if c == 0x20 && previous == 0x20 { return false }
                previous = c
            }
            return true
        }
    }

    /// The plain twin of ``plainText(_:)``: every heading through the Character walk.
    static func plainTextByCharacters(_ html: String) -> String {
        var s = ""
        var inTag = false
        for c in html {
            if c == "<" { inTag = true } else if c == ">" { inTag = false } else if !inTag { s.append(c) }
        }
        for (e, c) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            s = s.replacingAll(e, with: c)
        }
        return s.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
