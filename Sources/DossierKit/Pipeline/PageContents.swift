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
    /// fewer than ``minimumSections`` of them (the page is then used as it is). When
    /// every heading already has its id (a study's participant page: 130 KB, mostly
    /// charts), `html` itself is returned, not a copy of it decoded again (≈ 2 % of a
    /// study build; docs/perf-study.md). `addCopying` in the tests is the plain twin.
    static func add(to html: String) -> (html: String, toc: [TOCEntry])? {
        var html = html
        let added = html.withUTF8 { bytes -> (String?, [TOCEntry])? in
            var opens: [Int] = []
            var at = 0
            while let i = ByteSearch.find("<h2", in: bytes, from: at) {
                if i + 3 < bytes.count, bytes[i + 3] == 0x3E || bytes[i + 3] == 0x20 { opens.append(i) }
                at = i + 3
            }
            guard opens.count >= minimumSections else { return nil }
            var slugs = Slug.Registry()
            var out = ""
            out.reserveCapacity(bytes.count + 40 * opens.count)
            var toc: [TOCEntry] = []
            var copied = 0
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
                out += String(decoding: UnsafeBufferPointer(rebasing: bytes[copied..<(start + 3)]), as: UTF8.self)
                out += " id=\"\(HTML.escape(id))\""
                copied = start + 3
                toc.append(TOCEntry(level: 2, text: text, anchor: id))
            }
            guard toc.count >= minimumSections else { return nil }
            // Nothing inserted: the page is kept as it is.
            if copied == 0 { return (nil, toc) }
            out += String(decoding: UnsafeBufferPointer(rebasing: bytes[copied...]), as: UTF8.self)
            return (out, toc)
        }
        guard let added else { return nil }
        return (added.0 ?? html, added.1)
    }

    /// The text of a heading's HTML: tags dropped, the five escapes undone, spaces joined.
    static func plainText(_ html: String) -> String {
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
