#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// Paths inside a generated site. Every link Dossier writes is relative, so a site
/// works from `file://` as well as from a server.
public enum SitePaths {
    /// `recall/p1/index.html` → `../../`; `index.html` → `` (empty).
    public static func root(from pagePath: String) -> String {
        let depth = (components(asciiPath: pagePath)?.count ?? rootByCharacter(pagePath)) - 1
        return depth <= 0 ? "" : String(repeating: "../", count: depth)
    }

    /// The number of non-empty components of `pagePath` split at `/` Characters (the
    /// plain twin of the byte count in ``root(from:)``).
    static func rootByCharacter(_ pagePath: String) -> Int {
        pagePath.split(separator: "/", omittingEmptySubsequences: true).count
    }

    /// The number of non-empty components of an ASCII `path` and the first of them
    /// (empty when there is none), counted over bytes; nil for a path holding a non-ASCII
    /// byte, where `/` may be part of a larger Character and only a split over Characters
    /// decides. A split of every page's path over Characters, three times per page, was
    /// 2 % of a page build.
    public static func components(asciiPath path: String) -> (count: Int, first: String)? {
        var text = path
        return text.withUTF8 { b -> (Int, String)? in
            var n = 0, len = 0
            var first = 0..<0
            for k in b.indices {
                let c = b[k]
                if c >= 0x80 { return nil }
                if c == 0x2F {
                    if len > 0 { if n == 0 { first = (k - len)..<k }; n += 1 }
                    len = 0
                } else {
                    len += 1
                }
            }
            if len > 0 { if n == 0 { first = (b.count - len)..<b.count }; n += 1 }
            return (n, String(decoding: UnsafeBufferPointer(rebasing: b[first]), as: UTF8.self))
        }
    }

    /// A path for messages: relative to the current folder when inside it.
    public static func display(_ url: URL) -> String {
        display(url, cwd: FileManager.default.currentDirectoryPath)
    }

    /// ``display(_:)`` with the current folder given (read once for many files: it is a
    /// `getcwd` each time). A path without `.` components or `//` is its own
    /// standardized form, so it needs no second URL (`PageReadFastPathTests`).
    public static func display(_ url: URL, cwd: String) -> String {
        let given = url.path
        let p = holdsDotOrEmptyComponent(given) ? url.standardizedFileURL.path : given
        if p.hasPrefix(cwd + "/") { return String(p.dropFirst(cwd.count + 1)) }
        return p
    }

    /// `path.contains("/.") || path.contains("//")`: over bytes, which decide for ASCII
    /// text and whenever neither pair of bytes occurs; otherwise the Character search
    /// decides (`.` followed by a combining mark is another Character). The standard
    /// library's search compares Characters: 23,000 instructions for a 60-byte path,
    /// twice per content page (`PageReadFastPathTests` compares the two).
    public static func holdsDotOrEmptyComponent(_ path: String) -> Bool {
        var text = path
        let bytes: Bool? = text.withUTF8 { b in
            var found = false, ascii = true
            for k in b.indices {
                if b[k] >= 0x80 { ascii = false }
                if b[k] == 0x2F, k + 1 < b.count, b[k + 1] == 0x2E || b[k + 1] == 0x2F { found = true }
            }
            return found && !ascii ? nil : found
        }
        return bytes ?? (path.contains("/.") || path.contains("//"))
    }

    /// Resolves `link` (relative or site-absolute) found on `pagePath` to a site path,
    /// dropping query and fragment; `nil` for external links (with a scheme or `//`).
    /// A path ending in `/` means its `index.html`.
    public static func resolve(_ link: String, from pagePath: String) -> String? {
        // Nearly every link of a site is ASCII without `%`; there a Character is a byte
        // and the byte walk below gives the same answer without String slicing (this
        // runs for every link of every page: 90,000 at 10,000 pages).
        if let fast = resolveASCII(link, from: pagePath) { return fast }
        return resolveByCharacter(link, from: pagePath)
    }

    /// ``resolve(_:from:)`` over UTF-8 bytes: `.some(answer)` when `link` and
    /// `pagePath` are ASCII and `link` holds no `%`, else nil (not decided).
    ///
    /// One pass over the link finds its end (`#`, `?`), a scheme and any byte that stops
    /// the walk; the answer is written straight into the String's storage: the page's
    /// folder copied whole when the page's path has no empty component (every generated
    /// page), else component by component, then each component of the link after a `/`,
    /// `..` cutting back to the last `/` (no list of components, no second array).
    static func resolveASCII(_ link: String, from pagePath: String) -> String?? {
        var link = link, pagePath = pagePath
        return link.withUTF8 { l -> String?? in
            pagePath.withUTF8 { page -> String?? in
                var end = -1, colon = -1, slash = -1
                for k in l.indices {
                    let b = l[k]
                    if b >= 0x80 || b == 0x25 { return nil }                                 // non-ASCII, "%"
                    if end < 0 {
                        if b == 0x23 || b == 0x3F { end = k }                                // "#" "?"
                        else if b == 0x2F { if slash < 0 { slash = k } }
                        else if b == 0x3A, colon < 0, slash < 0 { colon = k }                // ":" before any "/"
                    }
                }
                // The page: ASCII; its folder ends at its last `/`; plain when it has no
                // empty component (no `/` first or last, no `//`).
                var lastSlash = -1, plainPage = page.count > 0 && page[0] != 0x2F && page[page.count - 1] != 0x2F
                for k in page.indices {
                    let b = page[k]
                    if b >= 0x80 { return nil }
                    if b == 0x2F { if lastSlash == k - 1 { plainPage = false }; lastSlash = k }
                }
                if end < 0 { end = l.count }
                if end == 0 { return .some(nil) }
                if end >= 2, l[0] == 0x2F, l[1] == 0x2F { return .some(nil) }                  // "//"
                if colon >= 0 && colon < end { return .some(nil) }                           // scheme
                let capacity = page.count + end + 12
                var escaped = false
                let text = String(unsafeUninitializedCapacity: capacity) { out -> Int in
                    guard let o = out.baseAddress else { return 0 }
                    var n = 0
                    func push(_ from: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) {
                        if n > 0 { o[n] = 0x2F; n += 1 }
                        (o + n).update(from: from.baseAddress! + r.lowerBound, count: r.count)
                        n += r.count
                    }
                    func pop() { while n > 0 { n -= 1; if o[n] == 0x2F { return } } }
                    if l[0] != 0x2F {
                        if plainPage {
                            if lastSlash > 0 { o.update(from: page.baseAddress!, count: lastSlash); n = lastSlash }
                        } else {
                            var s = 0
                            for k in 0...page.count where k == page.count || page[k] == 0x2F {
                                if k > s { push(page, s..<k) }
                                s = k + 1
                            }
                            pop()
                        }
                    }
                    var s = 0
                    for k in 0...end where k == end || l[k] == 0x2F {
                        let len = k - s
                        if len == 1 && l[s] == 0x2E {
                        } else if len == 2 && l[s] == 0x2E && l[s + 1] == 0x2E {
                            if n == 0 { escaped = true; return 0 }
                            pop()
                        } else if len > 0 {
                            push(l, s..<k)
                        }
                        s = k + 1
                    }
                    if l[end - 1] == 0x2F || n == 0 {
                        for b in (n == 0 ? "index.html" : "/index.html").utf8 { o[n] = b; n += 1 }
                    }
                    return n
                }
                return .some(escaped ? "../" : text)
            }
        }
    }

    /// ``resolve(_:from:)`` for any text, Character by Character.
    static func resolveByCharacter(_ link: String, from pagePath: String) -> String? {
        var l = link
        if let i = l.firstIndex(where: { $0 == "#" || $0 == "?" }) { l = String(l[..<i]) }
        if l.isEmpty { return nil }
        if l.hasPrefix("//") { return nil }
        if let colon = l.firstIndex(of: ":"), !l[..<colon].contains("/") { return nil }  // scheme
        // Foundation's decoder bridges every link; one without `%` decodes to itself.
        if l.utf8.contains(0x25) { l = l.percentDecoded() ?? l }
        var parts: [Substring]
        if l.hasPrefix("/") {
            parts = []
        } else {
            parts = pagePath.split(separator: "/")
            if !parts.isEmpty { parts.removeLast() }                 // the page's folder ("" or "/": none)
        }
        for comp in l.split(separator: "/", omittingEmptySubsequences: true) {
            if comp == "." { continue }
            if comp == ".." { if parts.isEmpty { return "../" } else { parts.removeLast() }; continue }
            parts.append(comp)
        }
        var out = parts.joined(separator: "/")
        if l.hasSuffix("/") || out.isEmpty { out += out.isEmpty ? "index.html" : "/index.html" }
        return out
    }
}
