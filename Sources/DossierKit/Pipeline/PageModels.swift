import Render

// The models of the site's own templates (docs/manifest.md, "Templates"): each field a
// template can use is listed once, here, with the value the renderer sees.

/// `site.*` in every template.
struct SiteModel: TemplateModel {
    var title, description, baseURL, version: String

    func value(_ name: String) -> TemplateValue? {
        switch name {
        case "title": .text(title)
        case "description": .text(description)
        case "baseURL": .text(baseURL)
        case "version": .text(version)
        default: nil
        }
    }
}

/// `layout`: the page around every template's output.
struct LayoutModel: TemplateModel {
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

    func value(_ name: String) -> TemplateValue? {
        switch name {
        case "title": .text(title)
        case "isHome": .bool(isHome)
        case "site": .object(site)
        case "root": .text(root)
        case "content": .text(content)
        case "contentHead": .text(String(headAndBody.head))
        case "contentBody": .text(String(headAndBody.body))
        case "nav": .list(of: nav)
        case "crumbs": .list(of: crumbs)
        case "hasCrumbs": .bool(!crumbs.isEmpty)
        case "toc": .list(of: toc)
        case "hasTOC": .bool(toc.count >= 2)
        case "styles": .list(styles.map { .object(Link(name: "href", url: $0)) })
        case "scripts": .list(scripts.map { .object(Link(name: "src", url: $0)) })
        case "bodyClass": .text(bodyClass)
        default: nil
        }
    }

    /// The content split after its title (``TitleSplit``): the title goes above "On this
    /// page" (phones show the table of contents between them, docs/design-system.md).
    var headAndBody: (head: Substring, body: Substring) { TitleSplit.split(content) }

    /// `nav[]`: an entry of the site navigation.
    struct NavEntry: TemplateModel {
        var title, href: String
        /// This entry is the page being rendered.
        var current: Bool
        /// The page is inside this entry's section.
        var inSection: Bool

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "title": .text(title)
            case "href": .text(href)
            case "current": .bool(current)
            case "inSection": .bool(inSection)
            default: nil
            }
        }
    }

    /// `crumbs[]`: a step of the breadcrumb trail; the last (the page itself) has no `href`.
    struct Crumb: TemplateModel {
        var title: String
        var href: String?

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "title": .text(title)
            case "href": href.map { .text($0) }
            default: nil
            }
        }
    }

    /// `toc[]`: a heading; `sub` for level 3.
    struct TOCLine: TemplateModel {
        var entry: TOCEntry

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "text": .text(entry.text)
            case "anchor": .text(entry.anchor)
            case "level": .text(String(entry.level))
            case "sub": .bool(entry.level > 2)
            default: nil
            }
        }
    }

    /// `styles[] {href}`, `scripts[] {src}`.
    struct Link: TemplateModel {
        var name, url: String
        func value(_ name: String) -> TemplateValue? { name == self.name ? .text(url) : nil }
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
}

/// `page`: a content page (`content/*.md`).
struct ContentPageModel: TemplateModel {
    /// The rendered Markdown.
    var content: String
    var summary: String
    /// Path under `content/`.
    var source: String

    func value(_ name: String) -> TemplateValue? {
        switch name {
        case "content": .text(content)
        case "summary": .text(summary)
        case "source": .text(source)
        default: nil
        }
    }
}

/// `home`: the site's front page.
struct HomeModel: TemplateModel {
    /// HTML of `content/index.md`, if there is one.
    var intro: String?
    var description: String
    var sections: [SectionCard]
    var pages: [PageLink]

    func value(_ name: String) -> TemplateValue? {
        switch name {
        case "intro": .text(intro ?? "")
        case "hasIntro": .bool(intro != nil)
        case "description": .text(description)
        case "sections": .list(of: sections)
        case "hasSections": .bool(!sections.isEmpty)
        case "pages": .list(of: pages)
        case "hasPages": .bool(!pages.isEmpty)
        default: nil
        }
    }

    /// `sections[]`: a section's card.
    struct SectionCard: TemplateModel {
        var title, href, blurb: String

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "title": .text(title)
            case "href": .text(href)
            case "blurb": .text(blurb)
            default: nil
            }
        }
    }

    /// `pages[]`: a content page, in weight then title order.
    struct PageLink: TemplateModel {
        var title, href, summary: String

        func value(_ name: String) -> TemplateValue? {
            switch name {
            case "title": .text(title)
            case "href": .text(href)
            case "summary": .text(summary)
            default: nil
            }
        }
    }
}
