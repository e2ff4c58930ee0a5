#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Paths of the hrefs a server lists

extension WebDAVClient {
    /// The decoded base path (`/dav/site/`).
    var basePath: String {
        let p = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "/"
        return p.percentDecoded() ?? p
    }

    /// Turns an `href` from a multistatus answer into a path relative to `baseURL`.
    func relativePath(href: String) -> String {
        relativePathBelowBase(href: href) ?? decodedPath(href).split(separator: "/").joined(separator: "/")
    }

    /// The path of `href` relative to `baseURL` ("" for the base itself), or nil when the
    /// href is not below the base or has a `.` or `..` segment once decoded: a listing
    /// never names a file outside the folder it was asked about (a server that does so is
    /// not followed, so nothing outside is ever fetched or deleted by its word).
    func relativePathBelowBase(href: String) -> String? {
        var p = decodedPath(href)
        let base = basePath
        if p.hasPrefix(base) { p.removeFirst(base.count) }
        else if p + "/" == base { p = "" }
        else { return nil }
        let segments = p.split(separator: "/")
        if segments.contains(where: { $0 == "." || $0 == ".." }) { return nil }
        return segments.joined(separator: "/")
    }

    func decodedPath(_ href: String) -> String {
        var raw = href
        if raw.lowercased().hasPrefix("http://") || raw.lowercased().hasPrefix("https://") {
            raw = URLComponents(string: raw)?.percentEncodedPath ?? raw
        }
        return raw.percentDecoded() ?? raw
    }
}
