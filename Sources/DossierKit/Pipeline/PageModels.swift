import Render

// The models of the site's own templates (docs/manifest.md, "Templates"): each field a
// template can use is listed once, here, with the value the renderer sees.

/// `site.*` in every template.
struct SiteModel: TemplateRecord {
    var title, description, baseURL, version: String

    static let fields = TemplateFields<Self>([
        .text("title") { $0.title },
        .text("description") { $0.description },
        .text("baseURL") { $0.baseURL }.forOwnTemplates(),
        .text("version") { $0.version },
    ])
}

/// `layout`: the page around every template's output.
struct LayoutModel: TemplateRecord {
    var title: String
    var isHome: Bool
    var site: SiteModel
    var root: String
    /// The page template's HTML (after ``TableMarkup``).
    var content: String
    var nav: [NavEntry]
    var crumbs: [Crumb]
    /// Headings of level 2 and 3; shown when there are at least two.
    var toc: [TOCLine]
    /// Site-rooted stylesheet and script paths.
    var styles: [String]
    var scripts: [String]
    var bodyClass: String

    static let fields = TemplateFields<Self>([
        .text("title") { $0.title },
        .bool("isHome") { $0.isHome },
        .object("site", SiteModel.self) { $0.site },
        .text("root") { $0.root },
        .text("content") { $0.content },
        .text("contentHead") { String($0.headAndBody.head) },
        .text("contentBody") { String($0.headAndBody.body) },
        .list("nav", NavEntry.self) { $0.nav },
        .list("crumbs", Crumb.self) { $0.crumbs },
        .bool("hasCrumbs") { !$0.crumbs.isEmpty },
        .list("toc", TOCLine.self) { $0.toc },
        .bool("hasTOC") { $0.toc.count >= 2 },
        .list("styles", Stylesheet.self) { $0.styles.map(Stylesheet.init) },
        .list("scripts", Script.self) { $0.scripts.map(Script.init) },
        .text("bodyClass") { $0.bodyClass },
    ])

    /// The content split after its title (``TitleSplit``): the title goes above "On this
    /// page" (phones show the table of contents between them, docs/design-system.md).
    /// Split once, when the model is made (`contentHead` and `contentBody` each split
    /// the page again: 5 % of a page build).
    var headAndBody: (head: Substring, body: Substring)

    /// `nav[]`: an entry of the site navigation.
    struct NavEntry: TemplateRecord {
        var title, href: String
        /// This entry is the page being rendered.
        var current: Bool
        /// The page is inside this entry's section.
        var inSection: Bool

        static let fields = TemplateFields<Self>([
            .text("title") { $0.title },
            .text("href") { $0.href },
            .bool("current") { $0.current },
            .bool("inSection") { $0.inSection },
        ])
    }

    /// `crumbs[]`: a step of the breadcrumb trail; the last (the page itself) has no `href`.
    struct Crumb: TemplateRecord {
        var title: String
        var href: String?

        static let fields = TemplateFields<Self>([
            .text("title") { $0.title },
            .maybeText("href") { $0.href },
        ])
    }

    /// `toc[]`: a heading; `sub` for level 3.
    struct TOCLine: TemplateRecord {
        var entry: TOCEntry

        static let fields = TemplateFields<Self>([
            .text("text") { $0.entry.text },
            .text("anchor") { $0.entry.anchor },
            .int("level") { $0.entry.level },
            .bool("sub") { $0.entry.level > 2 }.forOwnTemplates(),
        ])
    }

    /// `styles[]`: a stylesheet's path.
    struct Stylesheet: TemplateRecord {
        var href: String
        static let fields = TemplateFields<Self>([.text("href") { $0.href }])
    }

    /// `scripts[]`: a script's path.
    struct Script: TemplateRecord {
        var src: String
        static let fields = TemplateFields<Self>([.text("src") { $0.src }])
    }
}

/// What a page's own template sees: the page's model, with `root` and `site` on top and
/// the page's title when the model has none.
struct PageContext: TemplateModel {
    var model: any TemplateModel
    var root: String
    var site: SiteModel
    var title: String

    func value(_ name: String) -> TemplateValue? {
        switch name {
        case "root": .text(root)
        case "site": .object(site)
        default: model.value(name) ?? (name == "title" ? .text(title) : nil)
        }
    }

    func value(id: Int, name: String) -> TemplateValue? {
        switch name {
        case "root": .text(root)
        case "site": .object(site)
        default: model.value(id: id, name: name) ?? (name == "title" ? .text(title) : nil)
        }
    }

    /// The fields every page template sees besides its model's (for ``TemplateFieldCheck``).
    static let frame = TemplateSchema(type: "page", fields: [
        .init(name: "root", kind: .text),
        .init(name: "site", kind: .object { SiteModel.schema }),
        .init(name: "title", kind: .text, forOwnTemplates: true),
    ])
}

/// `page`: a content page (`content/*.md`).
struct ContentPageModel: TemplateRecord {
    /// The rendered Markdown.
    var content: String
    var summary: String
    /// Path under `content/`.
    var source: String

    static let fields = TemplateFields<Self>([
        .text("content") { $0.content },
        .text("summary") { $0.summary }.forOwnTemplates(),
        .text("source") { $0.source }.forOwnTemplates(),
    ])
}

/// `home`: the site's front page.
struct HomeModel: TemplateRecord {
    /// HTML of `content/index.md`, if there is one.
    var intro: String?
    var description: String
    var sections: [SectionCard]
    var pages: [PageLink]

    static let fields = TemplateFields<Self>([
        .text("intro") { $0.intro ?? "" },
        .bool("hasIntro") { $0.intro != nil },
        .text("description") { $0.description },
        .list("sections", SectionCard.self) { $0.sections },
        .bool("hasSections") { !$0.sections.isEmpty },
        .list("pages", PageLink.self) { $0.pages },
        .bool("hasPages") { !$0.pages.isEmpty },
    ])

    /// `sections[]`: a section's card.
    struct SectionCard: TemplateRecord {
        var title, href, blurb: String

        static let fields = TemplateFields<Self>([
            .text("title") { $0.title },
            .text("href") { $0.href },
            .text("blurb") { $0.blurb },
        ])
    }

    /// `pages[]`: a content page, in weight then title order.
    struct PageLink: TemplateRecord {
        var title, href, summary: String

        static let fields = TemplateFields<Self>([
            .text("title") { $0.title },
            .text("href") { $0.href },
            .text("summary") { $0.summary },
        ])
    }
}
