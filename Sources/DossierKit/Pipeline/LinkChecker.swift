import Foundation
import Render

/// Finds the internal links and asset references of an HTML page and checks them
/// against the set of files in the site.
public enum LinkChecker {
    /// Every `href="…"` and `src="…"` value (double- or single-quoted) in `html`,
    /// HTML entities `&amp;` decoded, that points inside the site (no scheme, not `#…`).
    public static func links(in html: String) -> [String] {
        var html = html
        return html.withUTF8 { links(in: $0) }
    }

    static func links(in bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var out: [String] = []
        let n = bytes.count
        var i = 0
        // Scan for ` href=` / ` src=` (preceded by whitespace, so data-src etc. are skipped).
        while i < n {
            let c = bytes[i]
            if (c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D) && i + 5 < n {
                var j = i + 1
                var matched = false
                if bytes[j] == 0x68, j + 5 < n, bytes[j+1] == 0x72, bytes[j+2] == 0x65, bytes[j+3] == 0x66, bytes[j+4] == 0x3D { j += 5; matched = true }  // href=
                else if bytes[j] == 0x73, j + 4 < n, bytes[j+1] == 0x72, bytes[j+2] == 0x63, bytes[j+3] == 0x3D { j += 4; matched = true }  // src=
                if matched, j < n, bytes[j] == 0x22 || bytes[j] == 0x27 {
                    let q = bytes[j]
                    var k = j + 1
                    var amp = false
                    while k < n && bytes[k] != q { if bytes[k] == 0x26 { amp = true }; k += 1 }
                    let raw = UnsafeBufferPointer(rebasing: bytes[(j + 1)..<k])
                    // Skip empty, `#…`, `data:` and `mailto:` values without making a String.
                    if !raw.isEmpty, raw[0] != 0x23, !hasPrefix(raw, "data:"), !hasPrefix(raw, "mailto:") {
                        let value = String(decoding: raw, as: UTF8.self)
                        out.append(amp ? value.replacingOccurrences(of: "&amp;", with: "&") : value)
                    }
                    i = k
                    continue
                }
            }
            i += 1
        }
        return out
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
            guard u.isASCII, u.properties.isAlphabetic || (!s.isEmpty && (u == "+" || u == "-" || u == "." || (u.value >= 0x30 && u.value <= 0x39))) else { return nil }
            s.unicodeScalars.append(u)
        }
        return nil
    }

    /// The links of `links` whose scheme runs script or opens local files
    /// (``unsafeSchemes``): a generated page never holds one.
    public static func unsafe(_ links: [String]) -> [String] {
        links.filter { scheme($0).map(unsafeSchemes.contains) ?? false }
    }

    /// The links of `links` (found on `page`) whose target is not in `files`.
    public static func dangling(_ links: [String], on page: String, files: Set<String>) -> [String] {
        links.filter { link in
            guard let target = SitePaths.resolve(link, from: page) else { return false }
            if files.contains(target) { return false }
            // `dir` without slash → `dir/index.html`
            if files.contains(target + "/index.html") { return false }
            return true
        }
    }
}
