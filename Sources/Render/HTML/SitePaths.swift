import Foundation

/// Paths inside a generated site. Every link Dossier writes is relative, so a site
/// works from `file://` as well as from a server.
public enum SitePaths {
    /// `recall/p1/index.html` → `../../`; `index.html` → `` (empty).
    public static func root(from pagePath: String) -> String {
        let depth = pagePath.split(separator: "/", omittingEmptySubsequences: true).count - 1
        return depth <= 0 ? "" : String(repeating: "../", count: depth)
    }

    /// A path for messages: relative to the current folder when inside it.
    public static func display(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let p = url.standardizedFileURL.path
        if p.hasPrefix(cwd + "/") { return String(p.dropFirst(cwd.count + 1)) }
        return p
    }

    /// Resolves `link` (relative or site-absolute) found on `pagePath` to a site path,
    /// dropping query and fragment; `nil` for external links (with a scheme or `//`).
    /// A path ending in `/` means its `index.html`.
    public static func resolve(_ link: String, from pagePath: String) -> String? {
        var l = link
        if let i = l.firstIndex(where: { $0 == "#" || $0 == "?" }) { l = String(l[..<i]) }
        if l.isEmpty { return nil }
        if l.hasPrefix("//") { return nil }
        if let colon = l.firstIndex(of: ":"), !l[..<colon].contains("/") { return nil }  // scheme
        // Foundation's decoder bridges every link; one without `%` decodes to itself.
        if l.utf8.contains(0x25) { l = l.removingPercentEncoding ?? l }
        var parts: [Substring]
        if l.hasPrefix("/") {
            parts = []
        } else {
            parts = pagePath.split(separator: "/")
            parts.removeLast()
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
