import Foundation
import Render

/// Lets authors link content pages by their source file: `[Methods](methods.md)` or
/// `[x](../a/b.md#part)` becomes a relative link to that page's HTML. Other links are
/// left alone.
enum ContentLinks {
    static func rewrite(_ html: String, from page: ContentPage, all: [ContentPage]) -> String {
        rewrite(html, from: page, map: map(all))
    }

    /// Source path → output path of every page; built once per build (building it per
    /// page made a site whose pages link each other by `.md` quadratic).
    static func map(_ all: [ContentPage]) -> [String: String] {
        Dictionary(all.map { ($0.relative, $0.outputPath) }, uniquingKeysWith: { a, _ in a })
    }

    static func rewrite(_ html: String, from page: ContentPage, map byRelative: [String: String]) -> String {
        guard html.contains(".md") || html.contains(".markdown") else { return html }
        var out = ""
        var rest = Substring(html)
        let marker = "href=\""
        while let r = rest.range(of: marker) {
            out += rest[rest.startIndex..<r.upperBound]
            rest = rest[r.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { break }
            let value = String(rest[rest.startIndex..<end])
            out += target(value, page: page, map: byRelative) ?? value
            rest = rest[end...]
        }
        out += rest
        return out
    }

    static func target(_ link: String, page: ContentPage, map: [String: String]) -> String? {
        var path = link
        var fragment = ""
        if let i = path.firstIndex(of: "#") { fragment = String(path[i...]); path = String(path[..<i]) }
        guard path.hasSuffix(".md") || path.hasSuffix(".markdown"), !path.contains(":") else { return nil }
        // Resolve the link relative to the source file inside content/.
        var parts = page.relative.split(separator: "/").map(String.init)
        parts.removeLast()
        if path.hasPrefix("/") { parts = [] }
        for comp in path.split(separator: "/") {
            if comp == "." { continue }
            if comp == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(String(comp))
        }
        guard let out = map[parts.joined(separator: "/")] else { return nil }
        return SitePaths.root(from: page.outputPath) + out + fragment
    }
}
