import Escaping
import Render

/// The built-in `Templates/layout.mustache`, `page.mustache` and `home.mustache` written
/// by code: each piece of the template's text appended as it stands, each `{{x}}` through
/// the escaper Mustache uses (``XMLText/append(_:to:)``) straight from the model's fields,
/// each `{{{x}}}` appended as it is, into one String reserved at the page's size. No
/// ``TemplateValue``s, no field look-ups by name, no copy of the content or of its head
/// and body (the Mustache render was about a tenth of a page build's instructions,
/// docs/perf-pages.md).
///
/// **Keep it in step with the templates.** ``SiteRenderer`` uses this code only while the
/// template (`layout`, `page`, `home`) is byte for byte the built-in one (no project
/// override, no `$DOSSIER_RESOURCES` change); any other text goes through Mustache. What
/// keeps this code equal to the template text is `CompiledLayoutTests`: it renders
/// generated models through both this code and the Mustache engine with the built-in
/// templates and requires the same bytes. Changing one of the three templates without
/// changing this code (or the other way round) fails that test; `TemplateFieldCheck`
/// still checks the templates' names against their models.
enum CompiledLayout {
    /// `Templates/page.mustache` with a content page's HTML.
    static func contentPage(_ content: String) -> String {
        var out = ""
        out.reserveCapacity(content.utf8.count + 48)
        out += "<article class=\"content-page\">\n"
        out += content
        out += "\n</article>\n"
        return out
    }

    /// A home page list (`{{#sections}}`, `{{#pages}}`): a section titled by its `h2`
    /// holding a `ul` of `items`, each written by `item`; nothing when there are none.
    private static func list<T>(_ items: [T], id: String, heading: String, listClass: String, into out: inout String,
                                item: (T, inout String) -> Void) {
        guard !items.isEmpty else { return }
        out += "<section aria-labelledby=\"\(id)\">\n  <h2 id=\"\(id)\">\(heading)</h2>\n"
        out += "  <ul class=\"\(listClass)\">\n"
        for x in items { item(x, &out) }
        out += "  </ul>\n</section>\n"
    }

    /// One item of a home page list: `markup[0]`, the escaped `href`, `">`, the escaped
    /// `title`, `markup[1]`, the escaped `text`, `markup[2]`.
    private static func item(_ markup: [StaticString], _ href: String, _ title: String, _ text: String,
                             into out: inout String) {
        out += markup[0].description
        XMLText.append(href, to: &out)
        out += "\">"
        XMLText.append(title, to: &out)
        out += markup[1].description
        XMLText.append(text, to: &out)
        out += markup[2].description
    }

    /// `Templates/home.mustache` with the home page's model, inside the page context
    /// (`root`, `site`) every page template sees. (`{{#description}}`, `{{#blurb}}` and
    /// `{{#summary}}` render for any text, an empty one too.)
    static func home(_ m: HomeModel, root: String, site: SiteModel) -> String {
        var out = ""
        out.reserveCapacity((m.intro?.utf8.count ?? 0) + 512 + 160 * (m.sections.count + m.pages.count))
        out += "<section class=\"home-intro\">\n"
        if let intro = m.intro {
            out += intro
            out += "\n\n"
        } else {
            out += "\n<h1>"
            XMLText.append(site.title, to: &out)
            out += "</h1>\n<p class=\"lead\">"
            XMLText.append(m.description, to: &out)
            out += "</p>\n"
        }
        out += "</section>\n"
        list(m.sections, id: "sections-heading", heading: "Sections", listClass: "cards", into: &out) { card, out in
            item(["    <li class=\"card\"><h3><a href=\"", "</a></h3><p>", "</p></li>\n"],
                 root + card.href, card.title, card.blurb, into: &out)
        }
        list(m.pages, id: "pages-heading", heading: "Pages", listClass: "page-list", into: &out) { link, out in
            item(["    <li><a href=\"", "</a> — ", "</li>\n"], root + link.href, link.title, link.summary, into: &out)
        }
        return out
    }

    /// `Templates/layout.mustache` with `m`, as the Mustache render of that template gives it.
    static func render(_ m: LayoutModel) -> String {
        var w = PageWriter(capacity: m.content.utf8.count + 4_096
                           + 256 * (m.nav.count * 2 + m.toc.count + m.crumbs.count))
        let hasTOC = m.toc.count >= 2
        w.text("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        w.text("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
        if m.isHome {
            w.escaped(m.site.title)
        } else {
            w.escaped(m.title)
            w.raw(" · ")
            w.escaped(m.site.title)
        }
        // (`{{#site.description}}` renders for any text, an empty one too.)
        w.text("</title>\n<meta name=\"description\" content=\"")
        w.escaped(m.site.description)
        w.text("\">\n<meta name=\"generator\" content=\"Dossier ")
        w.escaped(m.site.version)
        w.text("\">\n<link rel=\"stylesheet\" href=\"")
        w.escaped(m.root)
        w.text("assets/dossier.css\">\n")
        w.each(m.styles, "<link rel=\"stylesheet\" href=\"", "\">\n")
        w.text("</head>\n<body class=\"")
        w.escaped(m.bodyClass)
        w.text("\">\n<a class=\"skip\" href=\"#main\">Skip to content</a>\n<header class=\"site-header\">\n")
        w.text("  <a class=\"site-title\" href=\"")
        w.escaped(m.root)
        w.text("index.html\">")
        w.escaped(m.site.title)
        w.text("</a>\n  <nav class=\"site-nav\" aria-label=\"Site\">\n    <ul class=\"nav-wide\">\n")
        for entry in m.nav { writeNavEntry(entry, indent: "      ", to: &w) }
        w.text("    </ul>\n    <details class=\"nav-menu\">\n      <summary>Menu</summary>\n      <ul>\n")
        for entry in m.nav { writeNavEntry(entry, indent: "        ", to: &w) }
        w.text("      </ul>\n    </details>\n  </nav>\n</header>\n<div class=\"page\">\n<main id=\"main\"")
        w.text(hasTOC ? " class=\"with-toc\">\n<div class=\"page-top\">\n" : ">\n")
        if !m.crumbs.isEmpty {
            w.text("<nav class=\"breadcrumbs\" aria-label=\"Breadcrumb\"><ol>\n")
            for crumb in m.crumbs {
                if let href = crumb.href {
                    w.text("<li><a href=\"")
                    w.escaped(href)
                    w.text("\">")
                    w.escaped(crumb.title)
                    w.text("</a></li>\n")
                } else {
                    w.text("<li><span aria-current=\"page\">")
                    w.escaped(crumb.title)
                    w.text("</span></li>\n")
                }
            }
            w.text("</ol></nav>\n")
        }
        if hasTOC {
            w.raw(m.headAndBody.head)
            w.text("\n</div>\n<nav class=\"toc\" aria-label=\"On this page\">\n")
            w.text("  <p class=\"toc-title\">On this page</p>\n  <ul>\n")
            for line in m.toc {
                w.text("    <li class=\"level-")
                w.escaped(String(line.entry.level))
                w.text("\"><a href=\"#")
                w.escaped(line.entry.anchor)
                w.text("\">")
                w.escaped(line.entry.text)
                w.text("</a></li>\n")
            }
            w.text("  </ul>\n</nav>\n<div class=\"page-body\">\n")
            w.raw(m.headAndBody.body)
            w.text("\n</div>\n")
        } else {
            w.raw(m.content[...])
            w.text("\n")
        }
        w.text("</main>\n</div>\n<footer class=\"site-footer\">\n  <p>Built with Dossier ")
        w.escaped(m.site.version)
        w.text(".</p>\n</footer>\n<script src=\"")
        w.escaped(m.root)
        w.text("assets/tables.js\" defer></script>\n")
        w.each(m.scripts, "<script src=\"", "\"></script>\n")
        w.text("</body>\n</html>\n")
        return w.finish()
    }

    /// A line of `{{#nav}}…{{/nav}}`.
    @inline(__always)
    static func writeNavEntry(_ entry: LayoutModel.NavEntry, indent: StaticString, to w: inout PageWriter) {
        w.text(indent)
        w.text("<li><a href=\"")
        w.escaped(entry.href)
        w.text("\"")
        if entry.current { w.text(" aria-current=\"page\"") }
        if entry.inSection { w.text(" class=\"current-section\"") }
        w.text(">")
        w.escaped(entry.title)
        w.text("</a></li>\n")
    }
}

/// The page the compiled layout writes: runs of ASCII text (the template's own text and
/// the escaped values that are ASCII) gathered as bytes and appended to the page as one
/// String each, when a non-ASCII or a large piece (the content) comes or at the end. A
/// String append costs about 340 instructions whatever its length, and the layout has
/// some 80 pieces; a run of ASCII bytes is made a String by one word-at-a-time check.
/// (The whole page as bytes would be checked as UTF-8 at about 9 instructions a byte once
/// it holds one non-ASCII character: every page's title holds a `·`.)
struct PageWriter {
    private var out = ""
    private var run: [UInt8] = []

    init(capacity: Int) {
        out.reserveCapacity(capacity)
        run.reserveCapacity(2_048)
    }

    /// ASCII template text.
    @inline(__always)
    mutating func text(_ s: StaticString) {
        assert(s.isASCII)
        run.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// `{{x}}`: `s` through ``XMLText/append(_:to:)`` (the escaper Mustache uses).
    @inline(__always)
    /// `before`, the escaped value, `after`, for each of `values` (`{{#styles}}`, `{{#scripts}}`).
    mutating func each(_ values: [String], _ before: StaticString, _ after: StaticString) {
        for v in values {
            text(before)
            escaped(v)
            text(after)
        }
    }

    mutating func escaped(_ s: String) {
        if Self.isASCII(s) {
            XMLText.append(s, to: &run)
        } else {
            flush()
            XMLText.append(s, to: &out)
        }
    }

    /// `{{{x}}}`, and template text that is not ASCII: appended as it is.
    mutating func raw(_ s: Substring) {
        flush()
        out += s
    }

    mutating func raw(_ s: String) {
        flush()
        out += s
    }

    mutating func finish() -> String {
        flush()
        return out
    }

    private mutating func flush() {
        guard !run.isEmpty else { return }
        out += String(decoding: run, as: UTF8.self)
        run.removeAll(keepingCapacity: true)
    }

    static func isASCII(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } } ?? s.utf8.allSatisfy { $0 < 0x80 }
    }
}
