import Foundation
@testable import Escaping
import Render
import Testing
@testable import DossierKit

/// The built-in layout, content-page and home templates are written by code (``CompiledLayout``)
/// while a project leaves them alone; these tests hold that code to the Mustache render of
/// the same templates (the twin, kept for overridden templates), byte for byte, on
/// generated models: empty and full navigation with current and in-section entries,
/// breadcrumbs with and without links, contents lists of every length, styles and
/// scripts, the home page, texts with `<>&"'`, control characters and non-ASCII, an
/// empty description. A change to `Templates/layout.mustache`, `page.mustache` or
/// `home.mustache` that the code does not follow (or the other way round) fails here.
@Suite struct CompiledLayoutTests {
    static let texts = ["", "Plain", "Site & co", "<b>", "a > b", "\"q\"", "'s", "&amp;", "\u{1}", "\u{7F}",
                        "\u{85}", "\u{9F}", "\t", "\n", "\r\n", "é", "e\u{301}", "日本", "👍🏽", " ", "·", "{{x}}",
                        "\u{FFFD}", "\u{C2}"]
    static let html = ["<h1>T</h1>", "<h1 id=\"t\">", "</h1>", "<div class=\"x\">", "</div>", "<p>", "</p>", "text",
                       "<h2 id=\"a\">A &amp; B</h2>", "<h3 id=\"b\">B</h3>", "<br>", "<!-- c -->", "\n", "\u{1}",
                       "\u{85}", "\u{7F}", "é", "\u{301}", "<script>a<b</script>", "<table><tr><td>1</td></tr></table>",
                       "<article class=\"content-page\">", "</article>", "<a href=\"x.html\">x</a>", "'\"<>&"]

    static func text(_ r: inout SeededNumbers) -> String { r.soup(texts, fewerThan: 5) }

    static func site(_ r: inout SeededNumbers) -> SiteModel {
        SiteModel(title: text(&r), description: r.next() % 3 == 0 ? "" : text(&r), baseURL: text(&r),
                  version: r.next() % 2 == 0 ? "0.9.0" : text(&r))
    }

    static func toc(_ r: inout SeededNumbers) -> [TOCEntry] {
        (0..<(r.next() % 5)).map { _ in TOCEntry(level: 1 + r.next() % 4, text: text(&r), anchor: text(&r)) }
    }

    /// A random layout model; its head and body split as the renderer splits them.
    static func model(_ r: inout SeededNumbers) -> LayoutModel {
        let content = r.soup(html, fewerThan: 14)
        return LayoutModel(
            title: text(&r), isHome: r.next() % 4 == 0, site: site(&r), root: ["", "../", "../../"][r.next() % 3],
            content: content,
            nav: (0..<(r.next() % 5)).map { _ in
                .init(title: text(&r), href: text(&r), current: r.next() % 3 == 0, inSection: r.next() % 3 == 0)
            },
            crumbs: (0..<(r.next() % 4)).map { _ in .init(title: text(&r), href: r.next() % 3 == 0 ? nil : text(&r)) },
            toc: toc(&r).map(LayoutModel.TOCLine.init),
            styles: (0..<(r.next() % 3)).map { _ in text(&r) }, scripts: (0..<(r.next() % 3)).map { _ in text(&r) },
            bodyClass: text(&r), headAndBody: TitleSplit.split(content))
    }

    @Test func compiledLayoutWritesWhatTheMustacheLayoutWrites() throws {
        let templates = try PageTemplateFieldsTests.builtIn()
        var r = SeededNumbers(state: 4545)
        var shapes: Set<String> = []
        for k in 0..<4000 {
            var m = Self.model(&r)
            // Every combination of the shapes below, in turn: k picks which are empty.
            if k % 3 < 2 { m.toc = Array(m.toc.prefix(k % 3)) }
            if k / 3 % 2 == 0 { m.nav = [] }
            if k / 6 % 2 == 0 { m.crumbs = [] }
            m.isHome = k / 12 % 2 == 0
            if k / 24 % 2 == 0 { m.site.description = "" }
            if k / 48 % 2 == 0 { m.styles = [] }
            let mustache = try templates.render("layout", m), compiled = CompiledLayout.render(m)
            // (Bytes, not `==`: Strings compare by canonical equivalence.)
            #expect(Array(compiled.utf8) == Array(mustache.utf8),
                    "\(compiled.debugDescription)\n\(mustache.debugDescription)")
            shapes.insert("toc\(min(m.toc.count, 2)) nav\(min(m.nav.count, 1)) crumbs\(min(m.crumbs.count, 1))"
                + " home\(m.isHome) described\(!m.site.description.isEmpty) styled\(!m.styles.isEmpty)")
        }
        #expect(shapes.count == 96)   // every combination of the shapes above
    }

    @Test func compiledContentPageWritesWhatThePageTemplateWrites() throws {
        let templates = try PageTemplateFieldsTests.builtIn()
        var r = SeededNumbers(state: 46)
        for _ in 0..<1000 {
            let content = r.soup(Self.html, fewerThan: 14)
            let model = ContentPageModel(content: content, summary: Self.text(&r), source: "a.md")
            let mustache = try templates.render(
                "page", PageContext(model: model, root: "../", site: Self.site(&r), title: Self.text(&r)))
            #expect(Array(CompiledLayout.contentPage(content).utf8) == Array(mustache.utf8))
        }
    }

    static func home(_ r: inout SeededNumbers, intro: String?) -> HomeModel {
        HomeModel(intro: intro, description: r.next() % 3 == 0 ? "" : text(&r),
                  sections: (0..<(r.next() % 4)).map { _ in .init(title: text(&r), href: text(&r), blurb: text(&r)) },
                  pages: (0..<(r.next() % 5)).map { _ in .init(title: text(&r), href: text(&r), summary: text(&r)) })
    }

    @Test func compiledHomeWritesWhatTheHomeTemplateWrites() throws {
        let templates = try PageTemplateFieldsTests.builtIn()
        var r = SeededNumbers(state: 49)
        var shapes: Set<String> = []
        for _ in 0..<2000 {
            let model = Self.home(&r, intro: r.next() % 2 == 0 ? nil : r.soup(Self.html, fewerThan: 8))
            let root = ["", "../"][r.next() % 2], site = Self.site(&r)
            let mustache = try templates.render(
                "home", PageContext(model: model, root: root, site: site, title: Self.text(&r)))
            let compiled = CompiledLayout.home(model, root: root, site: site)
            #expect(Array(compiled.utf8) == Array(mustache.utf8),
                    "\(compiled.debugDescription)\n\(mustache.debugDescription)")
            shapes.insert("\(model.intro == nil) \(model.sections.isEmpty) \(model.pages.isEmpty)")
        }
        #expect(shapes.count == 8)
    }

    /// Whole pages through ``SiteRenderer/render(_:)``, once compiled and once through
    /// Mustache: content pages and home pages (whose contents list the renderer finds),
    /// on pages that are and are not in the navigation, with control characters in the
    /// content and the titles (replaced in the finished page either way).
    @Test func siteRendererGivesTheSamePagesEitherWay() throws {
        let folder = try TestProject(files: ["dossier.yml": "title: T\n"])
        defer { folder.remove() }
        var project = try Project.load(folder.root)
        let templates = try PageTemplateFieldsTests.builtIn()
        var r = SeededNumbers(state: 47)
        let paths = ["index.html", "a.html", "methods/index.html", "recall/index.html", "recall/p1/index.html",
                     "recall/p2/index.html", "b/c.html"]
        var compared = 0
        for _ in 0..<300 {
            project.title = Self.text(&r)
            project.description = r.next() % 2 == 0 ? "" : Self.text(&r)
            let nav = (0..<(r.next() % 5)).map { _ in
                NavItem(title: Self.text(&r), path: paths[r.next() % paths.count],
                        kind: ["home", "page", "recall", "methods", "b"][r.next() % 5])
            }
            let compiled = SiteRenderer(templates: templates, project: project, nav: nav)
            #expect(compiled.compiledLayout && compiled.compiledContentPage && compiled.compiledHome)
            let mustache = SiteRenderer(templates: templates, project: project, nav: nav, compiling: false)
            #expect(!mustache.compiledLayout && !mustache.compiledContentPage && !mustache.compiledHome)
            for _ in 0..<10 {
                let content = r.soup(Self.html, fewerThan: 14)
                let page: Page
                if r.next() % 3 == 0 {
                    let home = Self.home(&r, intro: r.next() % 4 == 0 ? nil : content)
                    page = Page(path: paths[r.next() % paths.count], title: Self.text(&r), template: "home",
                                model: home, toc: Self.toc(&r), bodyClass: "home")
                } else {
                    page = Page(path: paths[r.next() % paths.count], title: Self.text(&r), template: "page",
                                model: ContentPageModel(content: content, summary: "", source: "a.md"),
                                styles: r.next() % 2 == 0 ? [] : ["assets/x.css"], toc: Self.toc(&r),
                                bodyClass: "content")
                }
                let a = try compiled.render(page), b = try mustache.render(page)
                #expect(Array(a.utf8) == Array(b.utf8), "\(page.path): \(a.debugDescription)")
                #expect(Array(ControlCharacters.display(a).utf8) == Array(a.utf8))
                compared += 1
            }
        }
        #expect(compared == 3000)
    }

    /// The escaper's byte mask (``XMLText/isEscaped(_:)``) against the five bytes it
    /// stands for, for every byte; and ``XMLText/escape(_:)`` against the byte-by-byte
    /// replacement on generated texts.
    @Test func escapedBytesAreTheFiveMustacheEscapes() {
        for c in 0...255 {
            #expect(XMLText.isEscaped(UInt8(c)) == [0x22, 0x26, 0x27, 0x3C, 0x3E].contains(c), "\(c)")
        }
        var r = SeededNumbers(state: 48)
        for _ in 0..<2000 {
            let t = r.soup(Self.texts + ["<", ">", "&", "\"", "'", "@", "\u{3C}\u{301}"], fewerThan: 12)
            var plain = ""
            for u in t.unicodeScalars {
                switch u {
                case "<": plain += "&lt;"
                case ">": plain += "&gt;"
                case "&": plain += "&amp;"
                case "\"": plain += "&quot;"
                case "'": plain += "&#39;"
                default: plain.unicodeScalars.append(u)
                }
            }
            #expect(Array(XMLText.escape(t).utf8) == Array(plain.utf8), "\(t.debugDescription)")
            var bytes: [UInt8] = [0x41]
            XMLText.append(t, to: &bytes)
            #expect(bytes == [0x41] + Array(plain.utf8), "\(t.debugDescription)")
        }
    }

    /// A project's own `layout.mustache` (and `page.mustache`) renders through Mustache:
    /// the override's text is in the page. The same text as the built-in one keeps the
    /// compiled layout.
    @Test func aProjectsOwnLayoutRendersThroughMustache() throws {
        let folder = try TestProject(files: [
            "dossier.yml": "title: T\n",
            "templates/layout.mustache": "<!-- my layout -->{{title}}|{{{content}}}|{{#hasTOC}}toc{{/hasTOC}}\n",
            "templates/page.mustache": "<article class=\"mine\">{{{content}}}</article>",
        ])
        defer { folder.remove() }
        let project = try Project.load(folder.root)
        let own = try PageTemplateFieldsTests.builtIn(overrides: folder.root.appendingPathComponent("templates"))
        let renderer = SiteRenderer(templates: own, project: project, nav: [])
        #expect(!renderer.compiledLayout && !renderer.compiledContentPage && renderer.compiledHome)
        let page = Page(path: "a.html", title: "A & B", template: "page",
                        model: ContentPageModel(content: "<p>x</p>", summary: "", source: "a.md"))
        #expect(try renderer.render(page)
                == "<!-- my layout -->A &amp; B|<article class=\"mine\"><p>x</p></article>|\n")

        // The built-in texts copied into the project: still compiled.
        let same = try TestProject(files: [
            "templates/layout.mustache": try #require(try PageTemplateFieldsTests.builtIn().text(of: "layout")),
        ])
        defer { same.remove() }
        let copied = try PageTemplateFieldsTests.builtIn(overrides: same.root.appendingPathComponent("templates"))
        #expect(copied.overridden == ["layout"])
        #expect(SiteRenderer(templates: copied, project: project, nav: []).compiledLayout)
    }
}
