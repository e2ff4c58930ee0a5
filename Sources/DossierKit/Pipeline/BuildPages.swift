import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import StudyStore
import TextBasics

/// Build steps 6–8: content pages and the home page, assets, the link check.
extension BuildContext {
    // MARK: 6. Content pages and home

    func renderContent() async throws {
        let fp = renderer.fingerprint
        folderLinks = FolderLinks(baseURL: project.baseURL,
                                  extensionlessFiles: FolderLinks.extensionlessFiles(under: project.staticFolder))
        let folderKey = folderLinks.extensionlessFiles.sorted().joined(separator: "\n")
        // The pages are read in place by their positions in `content` (``withContentPages(_:)``):
        // a filtered copy of them, each task's copy and the loop's were a whole-value copy of
        // a page each (a dozen reference counts, on every core at once).
        let all = content
        let pages: [Int] = withContentPages { b in b.indices.filter { !b[$0].isHome } }
        earlyLinkCheck = EarlyLinkCheck(later: Set(withContentPages { $0.map(\.outputPath) }
                                                   + ["index.html", Self.notFoundPath]),
                                        staticFolder: project.staticFolder.path)
        defer { earlyLinkCheck = nil }
        // Room for every content page made once in the tables that keep one entry a page
        // (grown page by page, each table rehashed every path it held at each doubling).
        reserveRoom(pages: pages.count + 1)
        let results: [(String, BuildState.Unit, Bool)] = try await concurrentMap(pages) { [self, all] k in
            try all.withUnsafeBufferPointer {
                try contentUnit($0.baseAddress! + k, fingerprint: fp, folderKey: folderKey)
            }
        }
        for (k, u, reused) in results { store(k, u, reused: reused) }

        // Home: the optional content/index.md, every section and every page.
        let home = content.first { $0.isHome }
        var h = Hashing.Key()
        h.add(fp); h.add(folderKey); h.add(home?.raw ?? Data())
        for s in sectionTypes { h.add(s.key); h.add(blurbs[s.key] ?? "") }
        withContentPages { b in for k in pages { h.add(b[k].outputPath); h.add(b[k].title); h.add(b[k].summary) } }
        h.add(Self.notFoundPath)
        let hash = h.finalize()
        if let prev = reusable("#home", hash) {
            try reuse(prev, owner: "#home")
            store("#home", prev, reused: true)
        } else {
            let intro = home.map { Markdown.render($0.body, options: project.markdownOptions) }
            let model = HomeModel(
                intro: home.map { ContentLinks.rewrite(intro!.html, from: $0, map: contentMap, folders: folderLinks) },
                description: project.description,
                sections: sectionTypes.map {
                    HomeModel.SectionCard(title: $0.title, href: "\($0.key)/index.html", blurb: blurbs[$0.key] ?? "")
                },
                // (Their positions sorted, not the pages: a page is a large value, and
                // moving 10,000 of them about was 0.5 % of a pages build. The sort is stable
                // either way, so ties keep their order.)
                pages: withContentPages { c in
                    pages.sorted { a, b in (c[a].weight, c[a].title) < (c[b].weight, c[b].title) }
                        .map { HomeModel.PageLink(title: c[$0].title, href: c[$0].outputPath, summary: c[$0].summary) }
                })
            let page = Page(path: "index.html", title: home?.title ?? project.title, template: "home", model: model,
                            toc: intro?.toc ?? [], bodyClass: "home")
            store(
                "#home", try write(UnitResult(pages: [page, notFoundPage()]), hash: hash, owner: "#home"), reused: false
            )
        }
    }

    /// Calls `use` with the content pages in place (no copy of any page: see renderContent).
    func withContentPages<R>(_ use: (UnsafeBufferPointer<ContentPage>) throws -> R) rethrows -> R {
        try content.withUnsafeBufferPointer(use)
    }

    /// The unit of the content page at `page`: reused when its key is unchanged, else
    /// rendered and written. The page is read field by field where it lies (passed as a
    /// value, it was copied out of the array for each page: a dozen reference counts).
    func contentUnit(
        _ page: UnsafePointer<ContentPage>, fingerprint fp: String, folderKey: String
    ) throws -> (String, BuildState.Unit, Bool) {
        var h = Hashing.Key()
        h.add(fp); h.add(folderKey); h.add(page.pointee.relative)
        // (The digest loading took for the manifest stands for the bytes: hashing them
        // again was a second SHA-256 of every content file.)
        if page.pointee.rawDigest.isEmpty { h.add(page.pointee.raw) } else { h.add("sha256 " + page.pointee.rawDigest) }
        let key = "content/\(page.pointee.relative)"
        let hash = h.finalize()
        if let prev = reusable(key, hash) {
            try reuse(prev, owner: key)
            return (key, prev, true)
        }
        return (key, try write(UnitResult(pages: [contentPage(page)]), hash: hash, owner: key), false)
    }

    /// The page of the content page at `page`, read field by field
    /// (see ``contentUnit(_:fingerprint:folderKey:)``).
    func contentPage(_ page: UnsafePointer<ContentPage>) -> Page {
        let start = page.pointee.bodyStart
        let md = page.pointee.raw.withUnsafeBytes { all in
            Markdown.render(bytes: UnsafeRawBufferPointer(rebasing: all[min(start, all.count)...]),
                            options: project.markdownOptions)
        }
        let html = ContentLinks.rewrite(md.html, relative: page.pointee.relative, outputPath: page.pointee.outputPath,
                                        map: contentMap, folders: folderLinks)
        let showTOC = page.pointee.toc ?? (md.toc.filter { $0.level >= 2 }.count >= 2)
        let model = ContentPageModel(content: html, summary: page.pointee.summary, source: page.pointee.relative)
        return Page(path: page.pointee.outputPath, title: page.pointee.title, template: "page", model: model,
                    toc: showTOC ? md.toc : [], bodyClass: "content")
    }

    // MARK: 7. Assets

    func copyAssets() throws {
        // Site/*.css etc. always; Site/<key>/ only for sections this project uses.
        let used = Set(sectionTypes.map { $0.key })
        let known = SectionRegistry.keys
        for file in try Resources.files(in: "Site") {
            if file.path.contains("/"), case let first = String(file.path.split(separator: "/")[0]),
               known.contains(first), !used.contains(first) { continue }
            if tree!.contains("assets/" + file.path) {
                throw DossierError("\(file.origin) would overwrite the generated assets/\(file.path)")
            }
            looseFiles.append(try tree!.write(file.data, to: "assets/" + file.path, owner: "assets"))
        }
        if FileManager.default.fileExists(atPath: project.staticFolder.path) {
            try copyTree(project.staticFolder, prefix: "", owner: "static", isInput: true)
        }
    }

    func copyTree(_ folder: URL, prefix: String, owner: String, isInput: Bool = false,
                  include: (String) -> Bool = { _ in true }) throws {
        guard let found = FolderWalk.regularFiles(under: folder.path, skipHidden: true) else { return }
        let base = folder.standardizedFileURL.path
        let files = found.map { folder.appendingPathComponent($0) }
        var seen: [String: String] = [:]   // (keys compare canonically: NFC and NFD spellings meet)
        for url in files.sorted(by: { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }) {
            let rel = String(url.standardizedFileURL.path.dropFirst(base.count + 1))
            if rel.contains("/"), !include(String(rel.split(separator: "/")[0])) { continue }
            try Self.checkCopiedName(rel, seen: &seen, file: project.display(url), folder: owner)
            if tree!.contains(prefix + rel) {
                throw DossierError(file: project.display(url), "would overwrite the generated \(prefix + rel)")
            }
            // HTML is read once: its links are checked in the bytes copied, not in a second
            // read that a write in between would change (docs/manifest.md, "Links").
            let html = rel.hasSuffix(".html") ? try readWhole(url) : nil
            let entry = try html.map { try tree!.write($0, to: prefix + rel, owner: owner) }
                ?? tree!.copy(url, to: prefix + rel, owner: owner)
            looseFiles.append(entry)
            if isInput {
                lock.lock();
                inputs[relativeInputPath(url)] = ManifestFile(
                    path: relativeInputPath(url), digest: entry.digest, size: entry.size);
                lock.unlock()
            }
            PausePoint.reached("static-copied")   // (tests rewrite the file here: debug builds only)
            if let html {
                links[prefix + rel] = LinkChecker.links(in: String(decoding: html, as: UTF8.self))
                freshPages.insert(prefix + rel)
            }
        }
    }

    /// Refuses a copied file's name that a site archive (docs/archive.md) or another file
    /// system would read otherwise: a `\\` (a folder separator on Windows and in zips), or
    /// a name that differs from another's only in Unicode normalization (NFC `café`, NFD
    /// `cafe` + U+0301: one file on macOS, one name to a browser).
    static func checkCopiedName(_ rel: String, seen: inout [String: String], file: String, folder: String) throws {
        if rel.utf8.contains(0x5C) {
            throw DossierError(file: file, "\(folder) file names may not contain '\\' (a folder separator in zip "
                               + "files and on Windows: the site could not be archived); rename the file")
        }
        if let other = seen[rel], !other.utf8.elementsEqual(rel.utf8) {
            throw DossierError(file: file, "its name differs from \(folder)/\(other) only in Unicode normalization "
                               + "(NFC and NFD spellings of one name: one file on some file systems); rename one")
        }
        seen[rel] = rel
    }

    /// The whole of a file to copy, read once.
    private func readWhole(_ url: URL) throws -> Data {
        guard let input = PlainFile(forReadingAtPath: url.path) else {
            throw FileSystemErrors.unreadable(project.display(url), errno: errno)
        }
        defer { try? input.close() }
        do { return try input.read(upToCount: Int.max) ?? Data() } catch {
            throw DossierError(file: project.display(url), "cannot read file (\(error))")
        }
    }

    // MARK: 8. Links

    func checkLinks() throws {
        let files = tree!.files
        var errors: [Diagnostic] = []
        // Patching a site that lost no file: the reused pages' links resolved in the
        // previous build and every file they could point to is still there, so only
        // rebuilt pages (and copied HTML) need checking.
        let onlyFresh = tree!.patchTarget != nil && !tree!.removesLiveFiles(except: ["sitemap.xml"])
        let toCheck = onlyFresh ? links.keys.filter { freshPages.contains($0) } : Array(links.keys)
        if onlyFresh {
            log.detail("links of \(links.count - toCheck.count) unchanged pages still resolve (no file was removed)")
        }
        // Resolved on every core (90,000 links at 10,000 pages); reported in page order.
        let pages = toCheck.sorted()
        let found = parallelMap(pages) { [links, linksLeft] page in
            (
                dangling: LinkChecker.dangling(linksLeft[page] ?? links[page]!, on: page, files: files),
                unsafe: LinkChecker.unsafe(links[page]!)
            )
        }
        let bad = zip(pages, found).filter { !$0.1.dangling.isEmpty || !$0.1.unsafe.isEmpty }
        if !bad.isEmpty {
            // One index of content pages by output path, and each page's lines split once:
            // a report of any length costs about one pass over the pages that hold one.
            let byOutput = Dictionary(
                content.indices.map { (content[$0].outputPath, $0) }, uniquingKeysWith: { a, _ in a })
            for (page, links) in bad {
                var lines: [Substring]? = nil
                let source = byOutput[page].map { content[$0] }
                if let source {
                    // Split on LF bytes: "\r\n" is one Character, so a split over Characters
                    // would make a CRLF file one line.
                    lines = source.raw.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                        .map { String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self)[...] }
                }
                for link in links.dangling {
                    var d = locate(link: link, page: page, source: source, lines: lines)
                    if !LinkChecker.opensFromDisk(link) {
                        d.message += LinkChecker.notFromDiskReason(link, basePath: folderLinks.basePath)
                    } else if let target = SitePaths.resolve(link, from: page), files.containsCanonically(target) {
                        d.message = "link '\(link)' on page \(page) names \(target) in other Unicode bytes than "
                            + "the site's file (a letter such as é written as one character in one name and as "
                            + "e + U+0301 in the other): write the link as the file's name is written"
                    }
                    errors.append(d)
                }
                for link in links.unsafe {
                    var d = locate(link: link, page: page, source: source, lines: lines)
                    d.message =
                        "link '\(ControlCharacters.visible(link))' on page \(page) has a script or local-file scheme; "
                            + "pages may only link to relative paths and http(s) URLs"
                    errors.append(d)
                }
            }
        }
        if !errors.isEmpty {
            if tree!.stoppedWriting {
                log.detail("a link no later file could satisfy: the pages after it were not written")
            }
            throw DossierError(LinkReport.grouped(errors))
        }
        // (Cannot happen: writing stops only on a link reported above. Should it, the
        // site is incomplete and must not replace the live one.)
        if tree!.stoppedWriting {
            throw DossierError("internal error: files were left unwritten for a link that resolves")
        }
        log.detail("\(links.values.reduce(0) { $0 + $1.count }) links on \(links.count) pages, all resolve")
    }

    /// Where a dangling link came from: the content file (`source`, its text split in
    /// `lines`) and line that wrote it, else the page. A folder link the content wrote
    /// (`../a/`, `/docs/a`) was rewritten to its `index.html`; its line is found by the
    /// form the author wrote, and the message says the folder has no index.html.
    func locate(link: String, page: String, source: ContentPage?, lines: [Substring]?) -> Diagnostic {
        guard let source, let lines else {
            return Diagnostic(file: page, line: nil, "dangling link '\(link)' in the generated page")
        }
        // cmark percent-encodes destinations (non-ASCII, quotes, braces): look for
        // the decoded form too.
        let decoded = link.percentDecoded()
        let exact = [link, decoded].compactMap { $0 }
        let folders = folderForms(of: link, page: page)
            + (decoded.map { $0 == link ? [] : folderForms(of: $0, page: page) } ?? [])
        for (n, form) in (exact + folders).enumerated() {
            guard let i = lines.firstIndex(where: { $0.contains(form) }) else { continue }
            let message = n < exact.count ? "dangling link '\(form)' (on page \(page))"
                : "link '\(form)' names a folder with no index.html ('\(link)' on page \(page))"
            return Diagnostic(file: project.display(source.source), line: i + 1, message)
        }
        return Diagnostic(file: project.display(source.source), line: nil, "dangling link '\(link)' (on page \(page))")
    }

    /// The forms a content author may have written for `link` when ``FolderLinks``
    /// made it: `x/index.html#f` from `x/#f` or `x#f`, and site-absolute under base_url.
    func folderForms(of link: String, page: String) -> [String] {
        let cut = link.firstIndex { $0 == "#" || $0 == "?" } ?? link.endIndex
        let path = link[..<cut], tail = String(link[cut...])
        guard path.hasSuffix("index.html") else { return [] }
        let dir = String(path.dropLast("index.html".count))
        var forms = [dir + tail]
        if dir.hasSuffix("/") && dir.count > 1 { forms.append(String(dir.dropLast()) + tail) }
        if let base = folderLinks.basePath {
            let root = SitePaths.root(from: page)
            if dir.hasPrefix(root) { forms.append(base + String(dir.dropFirst(root.count)) + tail) }
        }
        return forms
    }
}
