import Foundation
import Testing
import Escaping
@testable import DossierKit

/// Issue #45: folder links in content become links to the folder's index.html; site-absolute
/// links become relative when base_url says where the site lives; the link report groups.
@Suite struct FolderLinksTests {
    @Test func folderFormsGetIndexHTMLAndEverythingElseStays() {
        let f = FolderLinks(baseURL: "", extensionlessFiles: ["CNAME", "b/LICENSE"])
        let page = "b/c/index.html"
        #expect(f.target("../blog/", on: page) == "../blog/index.html")
        #expect(f.target("../blog", on: page) == "../blog/index.html")
        #expect(f.target("..", on: page) == "../index.html")
        #expect(f.target("../x/#frag", on: page) == "../x/index.html#frag")
        #expect(f.target("../x?q=1#f", on: page) == "../x/index.html?q=1#f")
        #expect(f.target(".", on: page) == "./index.html")
        #expect(f.target("./", on: page) == "./index.html")
        // files, fragments, schemes, protocol-relative and site-absolute (no base_url) stay
        for same in ["../a/index.html", "x.css", "#top", "https://e.org/", "mailto:a@b", "//e.org/x/", "/x/",
                     "../../CNAME", "../LICENSE"] {
            #expect(f.target(same, on: page) == nil, "\(same)")
        }
    }

    @Test func siteAbsoluteLinksBecomeRelativeUnderBaseURL() {
        let f = FolderLinks(baseURL: "https://e.org/docs/")
        #expect(f.basePath == "/docs/")
        #expect(f.target("/docs/x/", on: "a/b/index.html") == "../../x/index.html")
        #expect(f.target("/docs/x/y.css", on: "a/index.html") == "../x/y.css")
        #expect(f.target("/docs/", on: "index.html") == "./index.html")
        #expect(f.target("/docs", on: "a/index.html") == "../index.html")
        #expect(f.target("/other/x/", on: "a/index.html") == nil)          // outside the site: stays, dangling
        #expect(FolderLinks(baseURL: "https://e.org/").target("/x/#f", on: "index.html") == "x/index.html#f")
        #expect(FolderLinks.basePath(of: "") == nil)
    }

    /// The byte pre-filter never drops a link ``FolderLinks/target(_:on:)`` would change.
    @Test func theBytePrefilterKeepsEveryLinkTargetWouldRewrite() {
        let f = FolderLinks(baseURL: "https://e.org/")
        let links = ["../blog/", "..", ".", "dir", "a/b", "/x/", "/x.css", "x.html", "a.b/c", "v1.2", "#top", "?q",
                     "a/..", "...", "x/#f", "x.md", "https://e.org/", "mailto:a@b.org"]
        for link in links {
            var l = link
            let may = l.withUTF8 { FolderLinks.mayBeFolder($0) }
            if f.target(link, on: "p/index.html") != nil { #expect(may, "\(link)") }
        }
    }

    /// The same on generated links: schemes, `//`, colons after a `/`, queries, fragments
    /// and non-ASCII text (where only the Character walk of ``FolderLinks/target(_:on:)``
    /// decides), with and without a `base_url`.
    @Test func theBytePrefilterKeepsEveryGeneratedLinkTargetWouldRewrite() {
        let pieces = ["/", "//", ".", "..", "a", "b.html", "#", "?", ":", "x:", "https:", "e.org", "é", ":\u{301}",
                      "/\u{301}", "\r\n", "mailto:"]
        let folders = [FolderLinks(baseURL: ""), FolderLinks(baseURL: "https://e.org/")]
        var random = SeededNumbers(state: 45)
        var rewritten = 0
        for _ in 0..<20_000 {
            let link = random.soup(pieces, fewerThan: 7)
            var l = link
            let may = l.withUTF8 { FolderLinks.mayBeFolder($0) }
            for f in folders where f.target(link, on: "p/index.html") != nil {
                rewritten += 1
                #expect(may, "\(link.debugDescription)")
            }
        }
        #expect(rewritten > 2_000)
    }

    @Test func contentRewriteTurnsFolderLinksIntoIndexLinks() {
        let page = ContentPage(
            source: URL(fileURLWithPath: "/p/content/b.md"), relative: "b.md", title: "b", summary: "",
            weight: 0, draft: false, toc: nil, raw: Data())
        let html =
            "<a href=\"../a/\">a</a> <a href=\"#x\">x</a> <a href=\"../a.md\">m</a> <a href=\"https://e.org/\">e</a>"
            + " <a href=\"it&#x27;s.html\">q</a> <a href=\"../it&#x27;s/?a=1&amp;b=2\">f</a>"
        let out = ContentLinks.rewrite(
            html, from: page, map: ["a.md": "a/index.html"], folders: FolderLinks(baseURL: ""))
        #expect(out == "<a href=\"../a/index.html\">a</a> <a href=\"#x\">x</a> <a href=\"../a/index.html\">m</a> "
                + "<a href=\"https://e.org/\">e</a> <a href=\"it&#x27;s.html\">q</a> "
                + "<a href=\"../it&#x27;s/index.html?a=1&amp;b=2\">f</a>")
    }

    /// A rewritten href goes through the one escaper, in cmark's spelling of `'`: every
    /// string of the five special characters and a letter, up to four long, against the
    /// shared `escape` with `&#39;` respelt.
    @Test func rewrittenHrefsAreEscapedByTheSharedEscaperInCmarkSpelling() {
        let parts = ["&", "<", ">", "\"", "'", "a"]
        var texts = [""]
        for _ in 0..<4 { texts += texts.flatMap { t in parts.map { t + $0 } } }
        for t in Set(texts) {
            let twin = XMLText.escape(t).replacingOccurrences(of: "&#39;", with: "&#x27;")
            #expect(XMLText.escapeAsCmarkAttribute(t) == twin, "\(t)")
        }
    }

    @Test func theReportGroupsByFileWithCounts() {
        var ds: [Diagnostic] = []
        for f in 0..<40 {
            for l in 0..<(f == 0 ? 25 : 1) { ds.append(Diagnostic(file: "content/p\(f).md", line: l + 1, "dangling")) }
        }
        let out = LinkReport.grouped(ds, perFile: 10, maxFiles: 30)
        #expect(out.filter { $0.file == "content/p0.md" }.count == 11)
        #expect(
            out.contains {
                $0.file == "content/p0.md" && $0.message.contains("15 more bad links in this file (25 in all)")
            })
        #expect(out.contains { $0.message.contains("10 more bad links in 10 more files") })
        #expect(out.last!.message.hasPrefix("64 bad links in 40 files"))
        #expect(out.count == 10 + 1 + 29 + 1 + 1)
        #expect(LinkReport.grouped([]).isEmpty)
    }
}
