#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The site navigation model (docs/templates.md, "Navigation"): the home page, each
/// section, and the top-level content pages up to ``maxPages`` — lowest `weight` first,
/// then title, then path. When there are more, a last entry "All pages" links to the
/// home page's list of every page. Every page carries the navigation, so its size must
/// not grow with the number of pages: a site's size then grows linearly with its pages.
enum Navigation {
    /// Top-level content pages listed in the navigation at most.
    static let maxPages = 8
    /// Where "All pages" points: the home page's list of pages.
    static let allPagesPath = "index.html#pages-heading"

    static func items(content: [ContentPage], sections: [(key: String, title: String)]) -> [NavItem] {
        var nav: [NavItem] = [NavItem(title: "Home", path: "index.html", kind: "home")]
        let top = content.filter { !$0.isHome && $0.outputPath.split(separator: "/").count == 2 }
            .sorted { ($0.weight, $0.title, $0.relative) < ($1.weight, $1.title, $1.relative) }
        nav += top.prefix(maxPages).map { NavItem(title: $0.title, path: $0.outputPath, kind: "page") }
        nav += sections.map { NavItem(title: $0.title, path: "\($0.key)/index.html", kind: $0.key) }
        if top.count > maxPages { nav.append(NavItem(title: "All pages", path: allPagesPath, kind: "all-pages")) }
        return nav
    }
}
