import Escaping
#if canImport(Glibc)
import Glibc
#endif

/// `sitemap.xml` (docs/output-manifest.md): every HTML page of the site in path order but
/// those under `assets/` and the 404 page, each `<loc>` the site's `base_url` followed by
/// the page's path, a folder's `index.html` written as the folder (`a/index.html` → `a/`).
/// Without `base_url` a `<loc>` is the page's relative path, `index.html` kept (`a/index.html`,
/// and `index.html` for the home page). A path's bytes other than RFC 3986's unreserved
/// characters, sub-delims and `/` are percent-encoded (`sp ace/` → `sp%20ace/`, `ü/` → `%C3%BC/`).
enum Sitemap {
    static let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset "
        + "xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"

    /// The sitemap of a site whose files are `paths` (sorted), as UTF-8 bytes. A path of
    /// ASCII bytes none of which is escaped (every path of a usual site) is tested and
    /// appended as bytes; any other takes the String form of ``xmlByString(paths:baseURL:notFound:)``.
    /// Over Strings (a suffix and a prefix test over Characters, an interpolation and an
    /// escape a page) it was 4,700 instructions a page.
    static func xml(paths: [String], baseURL: String, notFound: String) -> [UInt8] {
        var out = Array(head.utf8)
        let base = Array(XMLText.escape(baseURL).utf8), dropIndex = !baseURL.isEmpty
        out.reserveCapacity(out.count + paths.count * (base.count + 48) + 16)
        func put(_ s: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }
        func ends(_ b: UnsafeBufferPointer<UInt8>, _ s: StaticString) -> Bool {
            b.count >= s.utf8CodeUnitCount
                && memcmp(b.baseAddress! + (b.count - s.utf8CodeUnitCount), s.utf8Start, s.utf8CodeUnitCount) == 0
        }
        for path in paths {
            var text = path
            let done: Bool = text.withUTF8 { b in
                guard !b.isEmpty, b.allSatisfy({ plain[Int($0)] }) else { return false }
                guard ends(b, ".html"), !(b.count >= 7 && memcmp(b.baseAddress!, "assets/", 7) == 0),
                      !b.elementsEqual(notFound.utf8) else { return true }
                put("  <url><loc>")
                out += base
                let end = dropIndex && ends(b, "index.html") ? b.count - 10 : b.count
                out += UnsafeBufferPointer(rebasing: b[..<end])
                put("</loc></url>\n")
                return true
            }
            if !done { out += entryByString(path, baseURL: baseURL, notFound: notFound).utf8 }
        }
        put("</urlset>\n")
        return out
    }

    /// ``xml(paths:baseURL:notFound:)`` over Strings: its plain twin (`SitemapTests`).
    static func xmlByString(paths: [String], baseURL: String, notFound: String) -> String {
        var xml = head
        for path in paths { xml += entryByString(path, baseURL: baseURL, notFound: notFound) }
        return xml + "</urlset>\n"
    }

    /// The line of `path` in the sitemap, or empty when the sitemap does not list it.
    static func entryByString(_ path: String, baseURL: String, notFound: String) -> String {
        guard path.hasSuffix(".html") && !path.hasPrefix("assets/") && path != notFound else { return "" }
        let folder = !baseURL.isEmpty && path.hasSuffix("index.html")
        let shown = folder ? String(path.dropLast("index.html".count)) : path
        return "  <url><loc>\(XMLText.escape(baseURL + percentEncoded(shown)))</loc></url>\n"
    }

    /// Whether a byte stands for itself in a `<loc>` path: RFC 3986's unreserved characters,
    /// sub-delims and `/`, less `&` and `'` (which XML escapes; they take the String path).
    static let plain: [Bool] = (0..<256).map { b in
        guard b < 0x80 else { return false }
        let c = Character(Unicode.Scalar(UInt8(b)))
        return c.isASCII && (c.isLetter || c.isNumber || "-._~!$()*+,;=/".contains(c))
    }

    /// `path` with every byte that is not unreserved, a sub-delim or `/` written `%XX`.
    static func percentEncoded(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in path.utf8 {
            if plain[Int(b)] || b == 0x26 || b == 0x27 {
                out.append(b)
            } else {
                out += [0x25, hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
