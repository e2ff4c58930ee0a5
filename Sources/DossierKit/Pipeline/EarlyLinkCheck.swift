#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
#if canImport(Glibc)
import Glibc
#endif

/// A failing build that stops writing: while content pages are rendered, each page's
/// links are looked at before it is written, and the first link the link check is
/// certain to report (``certainlyDangling(_:on:tree:)``) stops the writing of files
/// (``OutputTree/stopWriting()``). The remaining pages are still rendered, so the link
/// check reports every bad link as before; the build fails without writing the rest of
/// a site it would have had to delete (docs/output-manifest.md, "A failing build").
struct EarlyLinkCheck: Sendable {
    /// Site paths that may still become files after this point of the build: every
    /// content page's and the home and 404 pages (section pages are in the tree already).
    let later: Set<String>
    /// The project's `static/` folder: its files are copied into the site after the pages.
    let staticFolder: String

    /// What the link check will make of a link, as far as this point of the build can tell.
    enum Verdict: Equatable {
        /// The link check cannot report it: it leaves the site's files through a scheme
        /// or `//` (``SitePaths/resolve(_:from:)`` gives nil), or it opens a file that is in
        /// the tree now or a page still to come (every such page is a file of the site by
        /// the time the link check runs, or the build has failed before it).
        case fine
        /// The link check will report it whatever is written after this point.
        case dangling
        /// Only the link check can tell (`assets/` and `static/` are copied later).
        case inDoubt
    }

    /// The verdict on `link` (found on `page`): ``Verdict/dangling`` when it leaves the
    /// site's files in a way no file can satisfy (a folder or a site-absolute path), or
    /// resolves to a path that is not a file of the site now, not a page still to come,
    /// not under `assets/` and not a file or folder under `static/`; in doubt whenever
    /// the file system cannot say.
    func verdict(_ link: String, on page: String, tree: OutputTree) -> Verdict {
        guard let target = SitePaths.resolve(link, from: page) else { return .fine }
        if !LinkChecker.opensFromDisk(link) { return .dangling }
        // (The tree last: it takes a lock, and most links go to pages still to come.)
        // (In the same bytes, as the link check looks: a canonically equivalent name is
        // another file on disk, and only the static folder could still hold it.)
        if SiteFiles.holds(later, exactly: target) || tree.containsExactly(target) { return .fine }
        if target.hasPrefix("assets/") { return .inDoubt }
        if access(staticFolder + "/" + target, F_OK) == 0 { return .inDoubt }
        return errno == ENOENT || errno == ENOTDIR ? .dangling : .inDoubt
    }

    /// Whether the link check will report `link` on `page` whatever is written after
    /// this point (``verdict(_:on:tree:)`` is ``Verdict/dangling``). False whenever in doubt.
    func certainlyDangling(_ link: String, on page: String, tree: OutputTree) -> Bool {
        verdict(link, on: page, tree: tree) == .dangling
    }
}

extension BuildContext {
    /// Looks at the links found on `page` while content pages are written: stops the
    /// writing of files when one is certain to be reported, and returns the links the link
    /// check must still resolve (those not ``EarlyLinkCheck/Verdict/fine``, in page order),
    /// so each link of a content page is resolved once when it opens a page of the site.
    /// Nil outside content pages or once writing has stopped: then the link check takes
    /// every link of the page.
    func linksLeftAfterEarlyCheck(_ links: [String], on page: String) -> [String]? {
        guard let early = earlyLinkCheck, let tree, !tree.stoppedWriting else { return nil }
        var left: [String] = []
        var certain = false
        // A link equal to the one before it (the layout writes the home page's link three
        // or four times in a row) takes that one's verdict: a verdict can only move from
        // in doubt to fine as files are written, and an in-doubt link is checked again.
        // Equal means the same bytes (lengths first: `==` compared the bytes of texts of
        // different lengths, and held canonically equivalent file names equal).
        var previous: (link: String, verdict: EarlyLinkCheck.Verdict)? = nil
        for link in links {
            let verdict = previous.flatMap { BuildContext.sameBytes($0.link, link) ? $0.verdict : nil }
                ?? early.verdict(link, on: page, tree: tree)
            previous = (link, verdict)
            switch verdict {
            case .fine: continue
            case .dangling: certain = true; left.append(link)
            case .inDoubt: left.append(link)
            }
        }
        if certain { tree.stopWriting() }
        return left
    }
}
