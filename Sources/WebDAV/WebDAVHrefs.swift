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
    /// A name whose percent-decoded bytes are not UTF-8 cannot be named again without
    /// re-encoding it into another resource's name (`%FF` → `%25FF`), so it is left out too.
    func relativePathBelowBase(href: String) -> String? {
        guard var p = decodedPathIfUTF8(href) else { return nil }
        let base = basePath
        if p.hasPrefix(base) { p.removeFirst(base.count) }
        else if p + "/" == base { p = "" }
        else { return nil }
        let segments = p.split(separator: "/")
        if segments.contains(where: { $0 == "." || $0 == ".." }) { return nil }
        return segments.joined(separator: "/")
    }

    func decodedPath(_ href: String) -> String {
        decodedPathIfUTF8(href) ?? href
    }

    /// The href's path percent-decoded, or nil when the decoded bytes are not UTF-8.
    func decodedPathIfUTF8(_ href: String) -> String? {
        var raw = href
        if raw.lowercased().hasPrefix("http://") || raw.lowercased().hasPrefix("https://") {
            raw = URLComponents(string: raw)?.percentEncodedPath ?? raw
        }
        return raw.percentDecoded()
    }

    // MARK: - User information in the base URL

    /// Throws `WebDAVError.insecure` for a URL with a password in it.
    public static func refusePassword(in url: URL) throws {
        guard url.password != nil else { return }
        throw WebDAVError.insecure(
            "\(WebDAVClient.redacted(url)): never put a password in the URL (it shows in `ps` and shell history); "
                + "use the DOSSIER_WEBDAV_PASSWORD variable, a netrc file or the prompt"
        )
    }

    static func withoutUserInfo(_ url: URL) -> URL {
        guard url.user != nil, var c = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        c.user = nil
        c.password = nil
        return c.url ?? url
    }
}
