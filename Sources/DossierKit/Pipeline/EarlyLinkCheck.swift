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

    /// Whether the link check will report `link` on `page` whatever is written after
    /// this point: it leaves the site's files in a way no file can satisfy (a folder or a
    /// site-absolute path), or it resolves to a path that is not a file of the site now,
    /// not a page still to come, not under `assets/` (copied later), and not a file or
    /// folder under `static/` (copied later). False whenever in doubt.
    func certainlyDangling(_ link: String, on page: String, tree: OutputTree) -> Bool {
        guard let target = SitePaths.resolve(link, from: page) else { return false }
        if !LinkChecker.opensFromDisk(link) { return true }
        // (The tree last: it takes a lock, and most links go to pages still to come.)
        if later.contains(target) || target.hasPrefix("assets/") || tree.contains(target) { return false }
        if access(staticFolder + "/" + target, F_OK) == 0 { return false }
        return errno == ENOENT || errno == ENOTDIR
    }
}

extension BuildContext {
    /// Stops the writing of files when `links` (found on `page`) hold one the link check
    /// is certain to report; a no-op outside content pages or once stopped.
    func stopWritingIfCertainToFail(_ links: [String], on page: String) {
        guard let early = earlyLinkCheck, let tree, !tree.stoppedWriting else { return }
        if links.contains(where: { early.certainlyDangling($0, on: page, tree: tree) }) { tree.stopWriting() }
    }
}
