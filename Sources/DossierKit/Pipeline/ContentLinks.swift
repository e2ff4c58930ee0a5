#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render

/// Lets authors link content pages by their source file: `[Methods](methods.md)` or
/// `[x](../a/b.md#part)` becomes a relative link to that page's HTML; a link to a folder
/// becomes one to its `index.html` (``FolderLinks``). Other links are left alone.
enum ContentLinks {
    /// Source path → output path of every page; built once per build (building it per
    /// page made a site whose pages link each other by `.md` quadratic).
    static func map(_ all: [ContentPage]) -> [String: String] {
        Dictionary(all.map { ($0.relative, $0.outputPath) }, uniquingKeysWith: { a, _ in a })
    }

    static func rewrite(_ html: String, from page: ContentPage, map byRelative: [String: String],
                        folders: FolderLinks? = nil) -> String {
        rewrite(html, relative: page.relative, outputPath: page.outputPath, map: byRelative, folders: folders)
    }

    /// ``rewrite(_:from:map:folders:)`` of the page whose source is `relative` and output
    /// `outputPath` (a build passes the two fields, not a copy of the page).
    static func rewrite(_ html: String, relative: String, outputPath: String, map byRelative: [String: String],
                        folders: FolderLinks? = nil) -> String {
        // A byte scan for `href="…"` values ending in `.md`/`.markdown` (before any `#`)
        // or naming a folder; pages without one are returned as they are, without a copy.
        var html = html
        return html.withUTF8 { bytes -> String? in
            let n = bytes.count
            var out: [UInt8] = []
            var copied = 0
            var i = 0
            while let at = nextHref(in: bytes, from: i) {
                i = at
                let start = i + 6
                var end = start
                var hash = -1
                while end < n && bytes[end] != 0x22 {                                   // '#' or '?'
                    if hash < 0 && (bytes[end] == 0x23 || bytes[end] == 0x3F) { hash = end }
                    end += 1
                }
                guard end < n else { break }
                i = end
                let pathEnd = hash < 0 ? end : hash
                let path = UnsafeBufferPointer(rebasing: bytes[start..<pathEnd])
                let t: String
                if endsWith(path, ".md") || endsWith(path, ".markdown") {
                    let value = String(decoding: bytes[start..<end], as: UTF8.self)
                    guard let md = target(value, relative: relative, outputPath: outputPath, map: byRelative)
                    else { continue }
                    t = md
                } else if let folders,
                          let folder = folders.target(escaped: UnsafeBufferPointer(rebasing: bytes[start..<end]),
                                                      on: outputPath) {
                    t = folder
                } else { continue }
                if out.isEmpty { out.reserveCapacity(n + 256) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<start]))
                out.append(contentsOf: t.utf8)
                copied = end
            }
            if copied == 0 { return nil }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<n]))
            return String(decoding: out, as: UTF8.self)
        } ?? html
    }

    /// Where the next `href="` at `from` or later starts, found from one `=` after an `f`
    /// or a `c` to the next (``ByteSearch/nextLinkEquals(in:from:)``, 16 bytes at a time):
    /// a memchr to every `h` of the page (seventy a page) was most of this pass.
    static func nextHref(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var p = from + 3
        while p < bytes.count, let eq = ByteSearch.nextLinkEquals(in: bytes, from: p) {
            let h = eq - 4
            if h >= from, eq + 1 < bytes.count, bytes[h] == 0x68, bytes[h + 1] == 0x72, bytes[h + 2] == 0x65,
               bytes[h + 3] == 0x66, bytes[eq + 1] == 0x22 { return h }                      // href="
            p = eq + 1
        }
        return nil
    }

    /// ``nextHref(in:from:)`` by a memchr to each `h`: its plain twin (`ContentLinksTests`).
    static func nextHrefByMemchr(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        let n = bytes.count
        var i = from
        while i + 6 <= n, let hit = memchr(bytes.baseAddress! + i, 0x68, n - i) {   // "h"
            i = bytes.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if i + 6 <= n, bytes[i + 1] == 0x72, bytes[i + 2] == 0x65, bytes[i + 3] == 0x66,
               bytes[i + 4] == 0x3D, bytes[i + 5] == 0x22 { return i }                        // href="
            i += 1
        }
        return nil
    }

    private static func endsWith(_ bytes: UnsafeBufferPointer<UInt8>, _ suffix: StaticString) -> Bool {
        let s = UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
        guard bytes.count >= s.count else { return false }
        let off = bytes.count - s.count
        for i in 0..<s.count where bytes[off + i] != s[i] { return false }
        return true
    }

    static func target(_ link: String, page: ContentPage, map: [String: String]) -> String? {
        target(link, relative: page.relative, outputPath: page.outputPath, map: map)
    }

    static func target(_ link: String, relative: String, outputPath: String, map: [String: String]) -> String? {
        var path = link
        var fragment = ""       // and query: `x.md?v=1#f` keeps `?v=1#f`, as folder links do
        if let i = path.firstIndex(where: { $0 == "#" || $0 == "?" }) {
            fragment = String(path[i...])
            path = String(path[..<i])
        }
        guard path.hasSuffix(".md") || path.hasSuffix(".markdown"), !path.contains(":") else { return nil }
        // Resolve the link relative to the source file inside content/.
        var parts = relative.split(separator: "/").map(String.init)
        parts.removeLast()
        if path.hasPrefix("/") { parts = [] }
        for comp in path.split(separator: "/") {
            if comp == "." { continue }
            if comp == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(String(comp))
        }
        // cmark percent-encodes a destination's non-ASCII bytes (`café.md` is written
        // `caf%C3%A9.md`): a source name is looked up decoded. The page's own output path
        // replaces the link, so its bytes are the file's (docs/manifest.md, "Links").
        var source = parts.joined(separator: "/")
        if source.utf8.contains(0x25), let decoded = source.percentDecoded() { source = decoded }
        guard let out = map[source] else { return nil }
        return SitePaths.root(from: outputPath) + out + fragment
    }
}
