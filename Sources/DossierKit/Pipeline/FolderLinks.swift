#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Escaping
import Render
import TextBasics

/// Links to folders in Markdown content, the way sites made with Hugo or Jekyll write
/// them (`[blog](../blog/)`, `[x](dir)`, `[up](..)`): rewritten to the folder's
/// `index.html`, so the page still opens from `file://` and inside a bag (a folder link
/// there opens a folder listing). A folder with no `index.html` is then a dangling link,
/// reported by the link check with the file and line (docs/manifest.md, "Links").
struct FolderLinks: Sendable {
    /// The path of `base_url` (`https://e.org/docs/` → `/docs/`), nil without one: only
    /// then does a site-absolute link say which file of the site it means.
    var basePath: String?
    /// Site paths of static files whose last segment has no `.` (`CNAME`, `LICENSE`): a
    /// link to one names that file, not a folder.
    var extensionlessFiles: Set<String> = []

    init(baseURL: String, extensionlessFiles: Set<String> = []) {
        self.basePath = Self.basePath(of: baseURL)
        self.extensionlessFiles = extensionlessFiles
    }

    /// `https://e.org/docs/` → `/docs/`, `https://e.org/` → `/`; nil for "".
    static func basePath(of baseURL: String) -> String? {
        guard let scheme = baseURL.textRange(of: "://") else { return nil }
        let rest = baseURL[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "/" }
        let path = String(rest[slash...])
        return path.hasSuffix("/") ? path : path + "/"
    }

    /// The link `link` on the page at site path `page` should be, or nil when it stays
    /// as written: a site-absolute link under `basePath` becomes relative to the page
    /// (as Hugo's `relativeURLs`); then a path ending in `/`, `.` or `..`, or whose last
    /// segment has no `.` and is not an ``extensionlessFiles`` file, gets `index.html`.
    /// Query and fragment are kept.
    func target(_ link: String, on page: String) -> String? {
        let cut = link.firstIndex { $0 == "#" || $0 == "?" } ?? link.endIndex
        var path = String(link[..<cut])
        let tail = link[cut...]
        if path.isEmpty || path.hasPrefix("//") { return nil }
        if let colon = path.firstIndex(of: ":"), !path[..<colon].contains("/") { return nil }   // a scheme
        var changed = false
        if path.hasPrefix("/") {
            guard let base = basePath, (path + "/").hasPrefix(base) else { return nil }
            path = SitePaths.root(from: page) + path.dropFirst(min(base.count, path.count))
            if path.isEmpty { path = "./" }
            changed = true
        }
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        if path.hasSuffix("/") {
            path += "index.html"
        } else if last == "." || last == ".." {
            path += "/index.html"
        } else if !last.contains("."), let site = SitePaths.resolve(path, from: page),
                  !extensionlessFiles.contains(site) {
            path += "/index.html"
        } else if !changed {
            return nil
        }
        return path + tail
    }

    /// ``target(_:on:)`` of an `href` value as cmark wrote it in a page (`&` as `&amp;`,
    /// `'` as `&#x27;`), the answer escaped the same way; nil when it stays.
    func target(escaped raw: UnsafeBufferPointer<UInt8>, on page: String) -> String? {
        guard raw.contains(0x26) else {                                             // no entity
            guard Self.mayBeFolder(raw) else { return nil }
            return target(String(decoding: raw, as: UTF8.self), on: page)
        }
        var value = LinkChecker.decodeAttribute(String(decoding: raw, as: UTF8.self))
        guard value.withUTF8({ Self.mayBeFolder($0) }), let t = target(value, on: page) else { return nil }
        return XMLText.escapeAsCmarkAttribute(t)
    }

    /// Whether the bytes of an `href` value may be a folder or site-absolute link
    /// (so ``target(_:on:)`` is worth asking): not `#…`, and its path (before `?`/`#`)
    /// starts with `/`, ends with `/`, or its last segment is all dots or has no dot.
    /// An ASCII value with a scheme or starting `//` is not asked either (``isExternalASCII(_:end:)``):
    /// every page's external links (`https://e.org/996`) took the walk over Characters.
    static func mayBeFolder(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        let end = value.firstIndex { $0 == 0x23 || $0 == 0x3F } ?? value.count
        guard end > 0, !isExternalASCII(value, end: end) else { return false }
        if value[0] == 0x2F || value[end - 1] == 0x2F { return true }
        var k = end
        var dots = 0
        while k > 0 && value[k - 1] != 0x2F { if value[k - 1] == 0x2E { dots += 1 }; k -= 1 }
        return dots == 0 || dots == end - k
    }

    /// Whether an ASCII `value` whose path ends at `end` is one ``target(_:on:)`` leaves
    /// alone before looking at it: its path starts with `//` or has a `:` with no `/`
    /// before it (a scheme). False for any other, and for a non-ASCII value (a `:` or `/`
    /// may there begin a larger Character, and only the Character walk decides).
    static func isExternalASCII(_ value: UnsafeBufferPointer<UInt8>, end: Int) -> Bool {
        guard !value.contains(where: { $0 >= 0x80 }) else { return false }
        if end >= 2 && value[0] == 0x2F && value[1] == 0x2F { return true }               // "//"
        for k in 0..<end {
            if value[k] == 0x2F { return false }                                          // "/"
            if value[k] == 0x3A { return true }                                           // ":"
        }
        return false
    }

    /// The site paths of the extensionless regular files under `folder` (the project's
    /// `static/`), hidden files skipped as the copy skips them.
    static func extensionlessFiles(under folder: URL) -> Set<String> {
        guard let files = FolderWalk.regularFiles(under: folder.path, skipHidden: true) else { return [] }
        return Set(files.filter { !PathText.lastComponent($0).contains(".") })
    }
}
