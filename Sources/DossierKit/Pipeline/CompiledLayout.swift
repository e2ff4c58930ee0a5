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
        if !m.sections.isEmpty {
            out += "<section aria-labelledby=\"sections-heading\">\n  <h2 id=\"sections-heading\">Sections</h2>\n"
            out += "  <ul class=\"cards\">\n"
            for card in m.sections {
                out += "    <li class=\"card\"><h3><a href=\""
                XMLText.append(root, to: &out)
                XMLText.append(card.href, to: &out)
                out += "\">"
                XMLText.append(card.title, to: &out)
                out += "</a></h3><p>"
                XMLText.append(card.blurb, to: &out)
                out += "</p></li>\n"
            }
            out += "  </ul>\n</section>\n"
        }
        if !m.pages.isEmpty {
            out += "<section aria-labelledby=\"pages-heading\">\n  <h2 id=\"pages-heading\">Pages</h2>\n"
            out += "  <ul class=\"page-list\">\n"
            for link in m.pages {
                out += "    <li><a href=\""
                XMLText.append(root, to: &out)
                XMLText.append(link.href, to: &out)
                out += "\">"
                XMLText.append(link.title, to: &out)
                out += "</a> — "
                XMLText.append(link.summary, to: &out)
                out += "</li>\n"
            }
            out += "  </ul>\n</section>\n"
        }
        return out
    }

    /// `Templates/layout.mustache` with `m`, as the Mustache render of that template gives it.
    static func render(_ m: LayoutModel) -> String {
        var out = ""
        out.reserveCapacity(m.content.utf8.count + 4_096 + 256 * (m.nav.count * 2 + m.toc.count + m.crumbs.count))
        let hasTOC = m.toc.count >= 2
        out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
        if m.isHome {
            XMLText.append(m.site.title, to: &out)
        } else {
            XMLText.append(m.title, to: &out)
            out += " · "
            XMLText.append(m.site.title, to: &out)
        }
        // (`{{#site.description}}` renders for any text, an empty one too.)
        out += "</title>\n<meta name=\"description\" content=\""
        XMLText.append(m.site.description, to: &out)
        out += "\">\n<meta name=\"generator\" content=\"Dossier "
        XMLText.append(m.site.version, to: &out)
        out += "\">\n<link rel=\"stylesheet\" href=\""
        XMLText.append(m.root, to: &out)
        out += "assets/dossier.css\">\n"
        for href in m.styles {
            out += "<link rel=\"stylesheet\" href=\""
            XMLText.append(href, to: &out)
            out += "\">\n"
        }
        out += "</head>\n<body class=\""
        XMLText.append(m.bodyClass, to: &out)
        out += "\">\n<a class=\"skip\" href=\"#main\">Skip to content</a>\n<header class=\"site-header\">\n"
        out += "  <a class=\"site-title\" href=\""
        XMLText.append(m.root, to: &out)
        out += "index.html\">"
        XMLText.append(m.site.title, to: &out)
        out += "</a>\n  <nav class=\"site-nav\" aria-label=\"Site\">\n    <ul class=\"nav-wide\">\n"
        for entry in m.nav { appendNavEntry(entry, indent: "      ", to: &out) }
        out += "    </ul>\n    <details class=\"nav-menu\">\n      <summary>Menu</summary>\n      <ul>\n"
        for entry in m.nav { appendNavEntry(entry, indent: "        ", to: &out) }
        out += "      </ul>\n    </details>\n  </nav>\n</header>\n<div class=\"page\">\n<main id=\"main\""
        out += hasTOC ? " class=\"with-toc\">\n<div class=\"page-top\">\n" : ">\n"
        if !m.crumbs.isEmpty {
            out += "<nav class=\"breadcrumbs\" aria-label=\"Breadcrumb\"><ol>\n"
            for crumb in m.crumbs {
                if let href = crumb.href {
                    out += "<li><a href=\""
                    XMLText.append(href, to: &out)
                    out += "\">"
                    XMLText.append(crumb.title, to: &out)
                    out += "</a></li>\n"
                } else {
                    out += "<li><span aria-current=\"page\">"
                    XMLText.append(crumb.title, to: &out)
                    out += "</span></li>\n"
                }
            }
            out += "</ol></nav>\n"
        }
        if hasTOC {
            out += m.headAndBody.head
            out += "\n</div>\n<nav class=\"toc\" aria-label=\"On this page\">\n"
            out += "  <p class=\"toc-title\">On this page</p>\n  <ul>\n"
            for line in m.toc {
                out += "    <li class=\"level-"
                XMLText.append(String(line.entry.level), to: &out)
                out += "\"><a href=\"#"
                XMLText.append(line.entry.anchor, to: &out)
                out += "\">"
                XMLText.append(line.entry.text, to: &out)
                out += "</a></li>\n"
            }
            out += "  </ul>\n</nav>\n<div class=\"page-body\">\n"
            out += m.headAndBody.body
            out += "\n</div>\n"
        } else {
            out += m.content
            out += "\n"
        }
        out += "</main>\n</div>\n<footer class=\"site-footer\">\n  <p>Built with Dossier "
        XMLText.append(m.site.version, to: &out)
        out += ".</p>\n</footer>\n<script src=\""
        XMLText.append(m.root, to: &out)
        out += "assets/tables.js\" defer></script>\n"
        for src in m.scripts {
            out += "<script src=\""
            XMLText.append(src, to: &out)
            out += "\"></script>\n"
        }
        out += "</body>\n</html>\n"
        return out
    }

    /// A line of `{{#nav}}…{{/nav}}`.
    @inline(__always)
    static func appendNavEntry(_ entry: LayoutModel.NavEntry, indent: String, to out: inout String) {
        out += indent
        out += "<li><a href=\""
        XMLText.append(entry.href, to: &out)
        out += "\""
        if entry.current { out += " aria-current=\"page\"" }
        if entry.inSection { out += " class=\"current-section\"" }
        out += ">"
        XMLText.append(entry.title, to: &out)
        out += "</a></li>\n"
    }
}
