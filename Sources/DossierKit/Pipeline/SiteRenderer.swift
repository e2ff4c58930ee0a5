import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// An entry of the site navigation.
public struct NavItem: Sendable, Hashable {
    public var title: String
    /// Site path of the target page (e.g. `methods/index.html`).
    public var path: String
    /// Section key or `page`.
    public var kind: String
}

/// Renders pages through their template and the site layout. Safe to share between
/// tasks: it holds only immutable values. A class: every page rendered calls it, and a
/// value this size (the project, the templates, the navigation) was copied for each call
/// made through a build's variable (a few dozen reference counts a page).
public final class SiteRenderer: Sendable {
    public let templates: TemplateSet
    public let project: Project
    public let nav: [NavItem]
    /// Whether `layout` (`page`, `home`) is the built-in template, written by ``CompiledLayout``;
    /// a project's override (or a changed `$DOSSIER_RESOURCES` copy) renders through Mustache.
    let compiledLayout: Bool
    let compiledContentPage: Bool
    let compiledHome: Bool
    /// Whether the `page` template is the built-in one (its title split is made inside its
    /// article: ``TitleSplit/splitInsideArticle(_:)``), compiled or not.
    let builtInContentPage: Bool

    public convenience init(templates: TemplateSet, project: Project, nav: [NavItem]) {
        self.init(templates: templates, project: project, nav: nav, compiling: true)
    }

    /// With `compiling` false, every page renders through Mustache even where a template
    /// is the built-in one (`CompiledLayoutTests` renders each page both ways).
    init(templates: TemplateSet, project: Project, nav: [NavItem], compiling: Bool) {
        self.templates = templates
        self.project = project
        self.nav = nav
        builtInContentPage = SiteRenderer.isBuiltIn("page", in: templates)
        compiledLayout = compiling && SiteRenderer.isBuiltIn("layout", in: templates)
        compiledContentPage = compiling && builtInContentPage
        compiledHome = compiling && SiteRenderer.isBuiltIn("home", in: templates)
    }

    /// Whether the template `name` of `templates` has the text of the built-in one compiled
    /// into the binary (the text ``CompiledLayout`` is kept equal to).
    static func isBuiltIn(_ name: String, in templates: TemplateSet) -> Bool {
        guard let text = templates.text(of: name),
              let encoded = EmbeddedResources.files["Templates/\(name).mustache"],
              let data = Data(base64Encoded: encoded) else { return false }
        return text.utf8.elementsEqual(data)
    }

    /// A fingerprint of everything that shapes every page (templates, navigation,
    /// site settings), mixed into every unit's cache key.
    public var fingerprint: String {
        var h = Hashing.Key()
        h.add(DossierVersion.string)
        h.add(SiteRenderer.binaryIdentity)
        h.add(templates.fingerprint)
        h.add(project.title); h.add(project.description); h.add(project.baseURL)
        h.add(project.markdownOptions.unsafeHTML ? "unsafe" : "safe")
        h.add(project.markdownOptions.smartPunctuation ? "smart" : "plain")
        h.add(project.csvBOM ? "csv-bom" : "csv-plain")
        for n in nav { h.add(n.title); h.add(n.path); h.add(n.kind) }
        return h.finalize()
    }

    /// The running executable's size and modification time, so a rebuilt `dossier`
    /// (new code, same version number) never reuses pages the old code made.
    static let binaryIdentity: String = {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        guard let a = try? FileManager.default.attributesOfItem(atPath: exe.path) else { return "unknown" }
        let size = FolderWalk.size(atPath: exe.path) ?? 0
        let mtime = (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(exe.path)|\(size)|\(mtime)"
    }()

    var siteModel: SiteModel {
        SiteModel(title: project.title, description: project.description, baseURL: project.baseURL,
                  version: DossierVersion.string)
    }

    /// The full HTML of `page`.
    public func render(_ page: Page) throws -> String {
        let root = SitePaths.root(from: page.path)
        let site = siteModel
        let content: String
        if compiledContentPage, page.template == "page", let model = page.model as? ContentPageModel {
            content = CompiledLayout.contentPage(model.content)
        } else if compiledHome, page.template == "home", let model = page.model as? HomeModel {
            content = CompiledLayout.home(model, root: root, site: site)
        } else {
            do {
                content = try templates.render(
                    page.template, PageContext(model: page.model, root: root, site: site, title: page.title))
            } catch {
                throw DossierError("page \(page.path): \(error)")
            }
        }
        // (Over bytes for an ASCII path: ``SitePaths/components(asciiPath:)``.)
        let parts = SitePaths.components(asciiPath: page.path)
        let section = parts?.first ?? page.path.split(separator: "/").first.map(String.init) ?? ""
        let nested = parts.map { _ in page.path.utf8.contains(0x2F) } ?? page.path.contains("/")
        let navModel = nav.map { item in
            let current = item.path == page.path
            let inSection = !current && item.kind != "page" && item.kind == section && nested
            return LayoutModel.NavEntry(
                title: item.title, href: root + item.path, current: current, inSection: inSection)
        }
        var body = content, toc = page.toc
        if toc.isEmpty, page.template != "page", page.listsContents, let added = PageContents.add(to: content) {
            (body, toc) = added
        }
        let enhanced = TableMarkup.enhance(body)
        let tocLines = toc.filter { $0.level >= 2 && $0.level <= 3 }.map(LayoutModel.TOCLine.init)
        // The compiled layout reads the title split only when it shows the contents
        // (`hasTOC`); a project's layout may read `contentHead` on any page.
        let whole = (head: enhanced[enhanced.startIndex..<enhanced.startIndex], body: enhanced[...])
        // A Markdown page in the built-in page template is split inside its article.
        let headAndBody = !compiledLayout || tocLines.count >= 2
            ? (builtInContentPage && page.template == "page" ? TitleSplit.splitInsideArticle(enhanced) : nil)
                ?? TitleSplit.split(enhanced)
            : whole
        let layout = LayoutModel(
            title: page.title, isHome: page.path == "index.html", site: site, root: root,
            content: enhanced, nav: navModel, crumbs: breadcrumbs(page, root: root),
            toc: tocLines,
            styles: page.styles.map { root + $0 }, scripts: page.scripts.map { root + $0 }, bodyClass: page.bodyClass,
            headAndBody: headAndBody)
        // Display text never carries control characters (docs/json-and-csv.md): one
        // pass over the finished page replaces any a title or label brought in.
        guard !compiledLayout else { return PageControls.displayUTF8(CompiledLayout.render(layout)) }
        // The layout is its content and some navigation: room for both at once.
        return PageControls.displayUTF8(
            try templates.render("layout", layout, capacity: layout.content.utf8.count + 16_384))
    }

    /// The trail above a page below the home: Home › section (for a section's unit
    /// pages) › the page itself (last, not a link). Empty on the home page.
    func breadcrumbs(_ page: Page, root: String) -> [LayoutModel.Crumb] {
        guard page.path != "index.html" else { return [] }
        var trail = [LayoutModel.Crumb(title: "Home", href: root + "index.html")]
        let first = SitePaths.components(asciiPath: page.path)?.first
            ?? page.path.split(separator: "/").first.map(String.init) ?? ""
        if let sectionItem = nav.first(where: { $0.kind != "page" && $0.kind != "home" && $0.kind == first }),
           sectionItem.path != page.path {
            trail.append(LayoutModel.Crumb(title: sectionItem.title, href: root + sectionItem.path))
        }
        trail.append(LayoutModel.Crumb(title: page.title))
        return trail
    }
}
