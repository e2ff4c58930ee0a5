import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// Finding and reading every content page of a project (``ContentPage/loadAll(in:includeDrafts:confinement:)``)
/// and the checks of content file names.
extension ContentPage {
    /// Every `*.md` / `*.markdown` under `folder`, sorted by path.
    public static func loadAll(
        in folder: URL, includeDrafts: Bool, confinement: Confinement? = nil
    ) throws -> [ContentPage] {
        let fm = FileManager.default
        guard fm.fileExists(atPath: folder.path),
            let walked = FolderWalk.entries(under: folder.path, skipHidden: true)
        else { return [] }
        let found = walked.map(\.path).filter(isMarkdownName)
        var pages: [ContentPage] = []
        var errors: [Diagnostic] = []
        var seen: [String: String] = [:]
        // Read and parse on every core; then check in path order, as before.
        let sorted = found.sorted()
        // Each folder resolved once (not each file: a `realpath` through Foundation's
        // URL per page was 5 % of a page build).
        var realFolders: [Substring: String] = [:]
        if confinement != nil {
            for rel in sorted {
                let dir = parentOf(rel)
                if realFolders[dir] == nil {
                    realFolders[dir] = Confinement.real(
                        dir.isEmpty ? folder : folder.appending(path: String(dir), directoryHint: .isDirectory))
                }
            }
        }
        let cwd = FileManager.default.currentDirectoryPath
        // Each folder's URL once (a page's `deletingLastPathComponent()` was 1 % of a page
        // build), and each page's path for messages from the folder's path (``shownPath``).
        var parents: [Substring: URL] = [:]
        for rel in sorted where parents[parentOf(rel)] == nil {
            parents[parentOf(rel)] =
                folder.appending(path: rel, directoryHint: .notDirectory).deletingLastPathComponent()
        }
        let folderPath = folder.path
        let loaded: [Result<ContentPage, Error>] = parallelMap(sorted) { rel in
            Result {
                let realFolder = realFolders[parentOf(rel)], parent = parents[parentOf(rel)]
                // A plain path is the folder's path and the name (``plainSourcePath``): no URL.
                if let path = plainSourcePath(folderPath: folderPath, relative: rel) {
                    return try load(
                        path: path, url: nil, relative: rel, confinement: confinement, realFolder: realFolder,
                        cwd: cwd, shown: shown(plainPath: path, cwd: cwd), parent: parent)
                }
                let url = folder.appending(path: rel, directoryHint: .notDirectory)
                return try load(
                    path: url.path, url: url, relative: rel, confinement: confinement, realFolder: realFolder,
                    cwd: cwd, parent: parent)
            }
        }
        for (k, rel) in sorted.enumerated() {
            do {
                try checkName(rel, in: folder)
                let p = try loaded[k].get()
                if p.draft && !includeDrafts { continue }
                // Lower-cased: `Notes.md` and `notes.md` overwrite each other on
                // case-insensitive file systems and servers.
                let key = OutputTree.caseFolded(p.outputPath)
                if let other = seen[key] {
                    errors.append(
                        Diagnostic(
                            file: SitePaths.display(p.source), line: nil,
                            "\(rel) and \(other) both become \(p.outputPath)"
                                + (other == rel ? "" : " (names that differ only in case are one file on many systems)")
                        ))
                }
                seen[key] = rel
                pages.append(p)
            } catch {
                errors.append(contentsOf: error.diagnostics)
            }
        }
        if !errors.isEmpty { throw DossierError(errors) }
        return pages
    }
}

extension ContentPage {
    /// Whether `path` names a content page: its extension is `md` or `markdown` in any
    /// case. An ASCII path not ending in `/` is read as bytes; any other asks
    /// ``isMarkdownNameByText(_:)``, its twin (`PageReadFastPathTests`), which took
    /// 15,000 instructions a file through `PathText`.
    static func isMarkdownName(_ path: String) -> Bool {
        var text = path
        let fast: Bool? = text.withUTF8 { b in
            guard let lastByte = b.last, lastByte != 0x2F, !b.contains(where: { $0 >= 0x80 }) else { return nil }
            var start = b.count
            while start > 0 && b[start - 1] != 0x2F { start -= 1 }
            var dot = b.count - 1
            while dot > start && b[dot] != 0x2E { dot -= 1 }
            guard dot > start else { return false }                 // no dot, or only a leading one
            let ext = UnsafeBufferPointer(rebasing: b[(dot + 1)...])
            func reads(_ w: StaticString) -> Bool {
                guard ext.count == w.utf8CodeUnitCount else { return false }
                for k in 0..<ext.count where ext[k] | 0x20 != w.utf8Start[k] { return false }
                return true
            }
            return reads("md") || reads("markdown")
        }
        return fast ?? isMarkdownNameByText(path)
    }

    static func isMarkdownNameByText(_ path: String) -> Bool {
        ["md", "markdown"].contains(PathText.pathExtension(path).lowercased())
    }

    /// `SitePaths.display(folder.appending(path: rel), cwd: cwd)` for `folderPath` =
    /// `folder.path`, made from the two strings when ``plainSourcePath(folderPath:relative:)``
    /// gives the file's path (`PageReadFastPathTests` compares the two). nil otherwise (the
    /// caller asks ``SitePaths/display(_:cwd:)``). Computing the URL's path was 3 % of a
    /// page build, for messages that are rarely shown.
    static func shownPath(folderPath: String, relative rel: String, cwd: String) -> String? {
        plainSourcePath(folderPath: folderPath, relative: rel).map { shown(plainPath: $0, cwd: cwd) }
    }

    /// `folder.appending(path: rel, directoryHint: .notDirectory).path` for `folderPath` =
    /// `folder.path`, made from the two strings: when the folder's path ends in no `/`,
    /// `rel` is ASCII without `%`, and the two joined hold no `/.` or `//` (nothing to
    /// standardize), the file's URL path is the folder's path, `/`, `rel`. nil otherwise
    /// (the caller makes the URL). Its twin, the URL's path, is compared in
    /// `ContentLoadingFastPathTests`.
    static func plainSourcePath(folderPath: String, relative rel: String) -> String? {
        guard !folderPath.isEmpty, folderPath.utf8.last != 0x2F, !rel.isEmpty, rel.utf8.last != 0x2F,
              rel.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x25 }) else { return nil }
        let path = folderPath + "/" + rel
        return SitePaths.holdsDotOrEmptyComponent(path) ? nil : path
    }

    /// A plain path (one without `.` components or `//`) as ``SitePaths/display(_:cwd:)``
    /// shows it: relative to `cwd` when inside it.
    static func shown(plainPath path: String, cwd: String) -> String {
        path.hasPrefix(cwd + "/") ? String(path.dropFirst(cwd.count + 1)) : path
    }

    /// The folder part of a path relative to `content/` (empty for a file at its top).
    static func parentOf(_ rel: String) -> Substring {
        guard let slash = rel.utf8.lastIndex(of: 0x2F) else { return "" }
        return rel[..<slash]
    }

    /// Characters a content file's path may not hold, because the path becomes a link:
    /// `:` (`javascript:x.md` would be read as a URL scheme), `?` `#` `%` (they end or
    /// re-encode a URL path), `\\`, and control characters.
    static func forbidden(_ u: Unicode.Scalar) -> Bool {
        u == ":" || u == "?" || u == "#" || u == "%" || u == "\\" || ControlCharacters.isControl(u)
    }

    /// Refuses a content path whose page path would not be a plain relative link.
    static func checkName(_ rel: String, in folder: URL) throws {
        if let bad = rel.unicodeScalars.first(where: forbidden) {
            let what = ControlCharacters.isControl(bad) ? "a control character" : "'\(bad)'"
            throw DossierError(
                file: ControlCharacters.visible(SitePaths.display(folder.appendingPathComponent(rel))),
                "content file names may not contain \(what) (the name becomes a link in the site; rename the file)")
        }
    }
}
