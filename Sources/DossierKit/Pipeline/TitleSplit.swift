// Where "On this page" goes: after the page's title (docs/design-system.md, "Contents on
// long pages").

import TextBasics

enum TitleSplit {
    /// Elements without an end tag.
    static let void: Set<String> = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                                    "source", "track", "wbr"]

    /// `html` cut where the element holding its first `</h1>` ends at the top level: right
    /// after `</h1>` when the `h1` is a top-level element, else after the top-level element
    /// the `h1` sits in. The head is empty (the whole page is the body) when there is no
    /// `</h1>` or the tags never close back to the top level.
    static func split(_ html: String) -> (head: Substring, body: Substring) {
        let whole = (head: html[html.startIndex..<html.startIndex], body: html[...])
        guard let title = html.textRange(of: "</h1>") else { return whole }
        let bytes = html.utf8
        var depth = 0
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if i >= title.upperBound && depth == 0 { return (html[..<i], html[i...]) }
            guard bytes[i] == UInt8(ascii: "<") else { i = bytes.index(after: i); continue }
            let rest = html[i...]
            if rest.hasPrefix("<!--") {
                guard let end = rest.textRange(of: "-->") else { return whole }
                i = end.upperBound
                continue
            }
            guard let close = rest.firstIndex(of: ">") else { return whole }
            let tag = rest[rest.index(after: rest.startIndex)..<close]
            let name = tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber || $0 == "-" }.lowercased()
            i = rest.index(after: close)
            if name.isEmpty { continue }                                  // <!doctype …>, a stray <
            if tag.hasPrefix("/") { depth -= 1; continue }
            if name == "script" || name == "style" {                       // raw text up to its end tag
                guard let end = html[i...].textRange(of: "</\(name)>") else { return whole }
                i = end.upperBound
                continue
            }
            if !void.contains(name) && !tag.hasSuffix("/") { depth += 1 }
        }
        return depth == 0 && i >= title.upperBound ? (html[...], html[html.endIndex...]) : whole
    }
}
