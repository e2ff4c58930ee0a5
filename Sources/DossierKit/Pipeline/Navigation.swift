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
        // Positions, not page values, are filtered and sorted (a page is a large value).
        // No two pages share `relative`, so the order is the same for any sort.
        let top = content.indices.filter { !content[$0].isHome && isTopLevel(content[$0].outputPath) }
            .sorted {
                (content[$0].weight, content[$0].title, content[$0].relative)
                    < (content[$1].weight, content[$1].title, content[$1].relative)
            }
        nav += top.prefix(maxPages).map {
            NavItem(title: content[$0].title, path: content[$0].outputPath, kind: "page")
        }
        nav += sections.map { NavItem(title: $0.title, path: "\($0.key)/index.html", kind: $0.key) }
        if top.count > maxPages { nav.append(NavItem(title: "All pages", path: allPagesPath, kind: "all-pages")) }
        return nav
    }

    /// Whether `path` has two components (`methods/index.html`): for an ASCII path, two
    /// runs of bytes other than `/`; any other path is split over Characters, as
    /// ``isTopLevelByCharacter(_:)`` (its twin in NavigationTests).
    static func isTopLevel(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            var runs = 0
            var inRun = false
            for b in bytes {
                if b == 0x2F { inRun = false } else if !inRun { inRun = true; runs += 1 }
            }
            return runs == 2
        } ?? isTopLevelByCharacter(path)
    }

    static func isTopLevelByCharacter(_ path: String) -> Bool { path.split(separator: "/").count == 2 }
}
