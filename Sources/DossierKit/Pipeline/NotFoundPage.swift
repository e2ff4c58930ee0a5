#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render

/// `404.html`: the page a server shows for a path that is not in the site (docs/serve.md,
/// "Not found"). It is written with the home page (same unit, same layout, so it has the
/// site's navigation, both colour schemes and `lang`), at the site root: its links are
/// relative to the root, and `dossier serve` gives it `<base href="/">` when it answers
/// a missing path at any depth.
extension BuildContext {
    static let notFoundPath = "404.html"

    /// The page: what happened, a way home, and the site's sections.
    func notFoundPage() -> Page {
        var html = "<h1>Page not found</h1>\n<p class=\"lead\">There is no page at this address in "
        html += HTML.escape(project.title)
        html += ". It may have moved, or the address may be mistyped.</p>\n"
        html += "<p><a href=\"index.html\">Go to the home page</a></p>\n"
        if !sectionTypes.isEmpty {
            html += "<h2>Sections</h2>\n<ul class=\"page-list\">\n"
            for s in sectionTypes {
                html += "<li><a href=\"\(s.key)/index.html\">\(HTML.escape(s.title))</a></li>\n"
            }
            html += "</ul>\n"
        }
        return Page(path: Self.notFoundPath, title: "Page not found", template: "page",
                    model: ContentPageModel(content: html, summary: "", source: ""), bodyClass: "not-found")
    }
}
