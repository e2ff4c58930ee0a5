import Testing
@testable import DossierKit

/// The sitemap written over bytes against its String twin, on generated sorted lists of
/// paths: HTML pages and others, folders' `index.html`, `assets/`, the 404 page, paths
/// with `&<>"'`, non-ASCII text, a combining mark after `.html` and a prepended mark
/// before `.html` (where a Character test and a byte test of the suffix differ).
@Suite struct SitemapTests {
    @Test func bytesAgreeWithTheStringTwin() {
        let pieces = ["a", "b/", "index.html", ".html", "x.css", "assets/", "404.html", "&", "<", "\"", "'", "é",
                      "\u{301}", "\u{600}", "/", "html"]
        var random = SeededNumbers(state: 77)
        var listed = 0
        for _ in 0..<1_500 {
            let paths = (0..<(random.next() % 12)).map { _ in random.soup(pieces, fewerThan: 6) }.sorted()
            let base = ["", "https://example.org/t/", "https://x.org/a&b/"][random.next() % 3]
            let fast = Sitemap.xml(paths: paths, baseURL: base, notFound: "404.html")
            let plain = Sitemap.xmlByString(paths: paths, baseURL: base, notFound: "404.html")
            #expect(fast == Array(plain.utf8), "\(paths)")
            listed += plain.components(separatedBy: "<url>").count - 1
        }
        #expect(listed > 1_000)
    }

    /// A `<loc>` is a URL: bytes outside unreserved, sub-delims and `/` are `%XX` (upper-case,
    /// UTF-8); without a base_url the path keeps `index.html`, so the home page is never empty.
    @Test func locationsArePercentEncodedURLs() {
        let paths = ["a&b/index.html", "index.html", "sp ace/index.html", "x.html", "ü/index.html"]
        let loc = { (base: String) in
            String(decoding: Sitemap.xml(paths: paths, baseURL: base, notFound: "404.html"), as: UTF8.self)
                .split(separator: "\n").filter { $0.contains("<loc>") }
                .map { String($0.dropFirst("  <url><loc>".count).dropLast("</loc></url>".count)) }
        }
        #expect(loc("https://e.org/") == ["https://e.org/a&amp;b/", "https://e.org/", "https://e.org/sp%20ace/",
                                          "https://e.org/x.html", "https://e.org/%C3%BC/"])
        #expect(loc("") == ["a&amp;b/index.html", "index.html", "sp%20ace/index.html", "x.html", "%C3%BC/index.html"])
    }
}
