#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Render
import TextBasics

/// Finds the internal links and asset references of an HTML page and checks them
/// against the set of files in the site.
public enum LinkChecker {
    /// Every `href="…"` and `src="…"` value (double- or single-quoted) in `html`,
    /// HTML entities decoded (``decodeAttribute(_:)``), that points inside the site (no scheme, not `#…`).
    public static func links(in html: String) -> [String] {
        var html = html
        return html.withUTF8 { links(in: $0) }
    }

    /// Finds each `=` after an `f` or a `c` (``ByteSearch/nextLinkEquals(in:from:)``, 16
    /// bytes at a time) and looks back for ` href` / ` src` (preceded by whitespace, so
    /// data-src etc. are skipped): a page is mostly text and markup without `=`, and a
    /// byte-by-byte walk of all 120 MB of a 10,000-page site was 2 % of its build; a
    /// memchr to every `=` (a hundred a page: class, id, align) was 1 %. A matched value is
    /// skipped whole, so a `href=` inside it is not a link (the same answers as the byte
    /// walk it replaced, kept in PageFastPathTests).
    static func links(in bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var out: [String] = []
        guard let base = bytes.baseAddress else { return out }
        out.reserveCapacity(16)
        let n = bytes.count
        var from = 0      // where the current search starts: nothing before it is looked at again
        var p = 0
        while p < n, let eq = ByteSearch.nextLinkEquals(in: bytes, from: p) {
            p = eq + 1
            let name: Int
            if eq - 5 >= from, base[eq - 4] == 0x68, base[eq - 3] == 0x72, base[eq - 2] == 0x65, base[eq - 1] == 0x66 {
                name = 5                                                          // " href="
            } else if eq - 4 >= from, base[eq - 3] == 0x73, base[eq - 2] == 0x72, base[eq - 1] == 0x63 {
                name = 4                                                          // " src="
            } else { continue }
            let ws = base[eq - name]
            guard ws == 0x20 || ws == 0x0A || ws == 0x09 || ws == 0x0D, eq + 1 < n,
                  base[eq + 1] == 0x22 || base[eq + 1] == 0x27 else { continue }
            let q = base[eq + 1]
            var k = eq + 2
            var amp = false
            while k < n && base[k] != q { if base[k] == 0x26 { amp = true }; k += 1 }
            appendLink(UnsafeBufferPointer(rebasing: bytes[(eq + 2)..<k]), amp: amp, to: &out)
            from = k + 1
            p = from
        }
        return out
    }

    /// Keeps a link value unless it is empty, `#…`, `data:` or `mailto:` (checked
    /// without making a String), with the entities an escaped attribute holds decoded:
    /// `&#x27;` / `&#39;` (cmark writes `'` so), `&quot;`, `&lt;`, `&gt;`, then `&amp;` last.
    static func appendLink(_ raw: UnsafeBufferPointer<UInt8>, amp: Bool, to out: inout [String]) {
        guard !raw.isEmpty, raw[0] != 0x23, !hasPrefix(raw, "data:"), !hasPrefix(raw, "mailto:") else { return }
        let value = String(decoding: raw, as: UTF8.self)
        out.append(amp ? decodeAttribute(value) : value)
    }

    static func decodeAttribute(_ value: String) -> String {
        value.replacingAll("&#x27;", with: "'").replacingAll("&#39;", with: "'")
            .replacingAll("&quot;", with: "\"").replacingAll("&lt;", with: "<")
            .replacingAll("&gt;", with: ">").replacingAll("&amp;", with: "&")
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let p = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard bytes.count >= p.count else { return false }
        for i in 0..<p.count where bytes[i] != p[i] { return false }
        return true
    }

    /// URL schemes that run code or reach local files when a link is followed.
    static let unsafeSchemes: Set<String> = ["javascript", "vbscript", "file", "data", "blob"]

    /// The scheme of `link` as a browser reads it (leading spaces and control characters
    /// dropped, tabs and newlines inside ignored), lower-cased; nil for a relative link.
    static func scheme(_ link: String) -> String? {
        var s = ""
        for u in link.unicodeScalars {
            if u == ":" { return s.isEmpty ? nil : s.lowercased() }
            if u.value <= 0x20 { continue }
            guard u.isASCII,
                u.properties.isAlphabetic
                    || (!s.isEmpty && (u == "+" || u == "-" || u == "." || (u.value >= 0x30 && u.value <= 0x39)))
            else { return nil }
            s.unicodeScalars.append(u)
        }
        return nil
    }

    /// The links of `links` whose scheme runs script or opens local files
    /// (``unsafeSchemes``): a generated page never holds one.
    public static func unsafe(_ links: [String]) -> [String] {
        links.filter(hasUnsafeScheme)
    }

    /// Whether ``scheme(_:)`` of `link` is one of ``unsafeSchemes``, read over its UTF-8
    /// bytes with no String made: every link of every page passes here, and the walk over
    /// Unicode scalars was 0.5 % of a pages build. A byte of 0x80 or more belongs to a
    /// scalar that is not ASCII, where the scalar walk stops with no scheme too; the
    /// longest unsafe scheme has 10 letters, so a longer one is not looked up (its twin,
    /// `scheme(_:)` and the set, is compared in PageFastPathTests).
    static func hasUnsafeScheme(_ link: String) -> Bool {
        var link = link
        return link.withUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { name in
                var count = 0
                for b in bytes {
                    if b == 0x3A { return count > 0 && count <= 10 && isUnsafeSchemeName(name, count) }   // ":"
                    if b <= 0x20 { continue }
                    let lower = b | 0x20
                    let letter = lower >= 0x61 && lower <= 0x7A
                    guard letter || (count > 0 && (b == 0x2B || b == 0x2D || b == 0x2E || (b >= 0x30 && b <= 0x39)))
                    else { return false }
                    if count < 10 { name[count] = letter ? lower : b }
                    count += 1
                }
                return false
            }
        }
    }

    /// ``unsafeSchemes`` as bytes.
    private static let unsafeSchemeNames: [StaticString] = ["javascript", "vbscript", "file", "data", "blob"]

    private static func isUnsafeSchemeName(_ name: UnsafeMutableBufferPointer<UInt8>, _ count: Int) -> Bool {
        unsafeSchemeNames.contains { c in
            c.utf8CodeUnitCount == count && (0..<count).allSatisfy { name[$0] == c.utf8Start[$0] }
        }
    }

    /// The links of `links` (found on `page`) that do not open a file of the site the
    /// way `file://` resolves them (a site opened from disk, or inside an archived bag):
    /// the target must be a file in `files`. A link to a folder (`dir/`, `dir`, `.`,
    /// `..`) opens a folder listing from disk, and a site-absolute link (`/x`) leaves
    /// the site, so both are dangling; write `dir/index.html` instead (docs/manifest.md,
    /// "Links"). The target must be a file's name in the same bytes: a server and a disk
    /// open `é` as one scalar and as `e` + U+0301 as two names.
    public static func dangling(_ links: [String], on page: String, files: Set<String>) -> [String] {
        dangling(links, on: page) { SiteFiles.holds(files, exactly: $0) }
    }

    /// ``dangling(_:on:files:)`` with the site's files as a look-up (``OutputTree/files``).
    public static func dangling(_ links: [String], on page: String, files: SiteFiles) -> [String] {
        dangling(links, on: page) { files.contains($0) }
    }

    static func dangling(_ links: [String], on page: String, isFile: (String) -> Bool) -> [String] {
        links.filter { link in
            guard let target = SitePaths.resolve(link, from: page) else { return false }
            return !opensFromDisk(link) || !isFile(target)
        }
    }

    /// Whether the path part of `link` (before `?` / `#`) can name a file from disk:
    /// not site-absolute and not ending in a folder (`/`, `.`, `..`).
    ///
    /// An ASCII link (nearly all) is read as bytes, where every byte is a Character (every
    /// link of every page passes here; over Characters it was 2.3 % of a page build);
    /// any other takes the walk over Characters, ``opensFromDiskByCharacter(_:)``
    /// (compared in PageFastPathTests).
    static func opensFromDisk(_ link: String) -> Bool {
        var text = link
        return text.withUTF8 { b in
            guard !b.contains(where: { $0 >= 0x80 }) else { return opensFromDiskByCharacter(link) }
            var end = 0
            while end < b.count && b[end] != 0x3F && b[end] != 0x23 { end += 1 }        // "?" "#"
            if end > 0 && (b[0] == 0x2F || b[end - 1] == 0x2F) { return false }        // "/"
            var start = end
            while start > 0 && b[start - 1] != 0x2F { start -= 1 }
            let last = end - start
            return !((last == 1 || last == 2) && b[start] == 0x2E && b[end - 1] == 0x2E)   // "." ".."
        }
    }

    /// Why a link ``opensFromDisk(_:)`` refuses is dangling, as a clause to append to its message.
    /// `basePath`: base_url's path, when the manifest has one.
    static func notFromDiskReason(_ link: String, basePath: String?) -> String {
        if link.hasPrefix("/"), let basePath {
            return ": a site-absolute link outside base_url's path \(basePath) leaves the site when opened from "
                + "disk; write the link relative to the page"
        } else if link.hasPrefix("/") {
            return ": a site-absolute link leaves the site when opened from disk; set base_url to where the site "
                + "lives (docs/manifest.md) or write the link relative to the page"
        }
        return ": it names a folder, which opens a folder listing from disk; name the folder's index.html"
    }

    static func opensFromDiskByCharacter(_ link: String) -> Bool {
        let path = link.prefix { $0 != "?" && $0 != "#" }
        if path.hasPrefix("/") || path.hasSuffix("/") { return false }
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        return last != "." && last != ".."
    }
}
