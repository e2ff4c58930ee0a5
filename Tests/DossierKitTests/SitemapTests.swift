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
}
