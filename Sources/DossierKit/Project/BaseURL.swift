import Escaping
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The manifest's `base_url`: empty, or an absolute `http:`/`https:` URL with a host
/// (docs/manifest.md). Anything else — `javascript:`, `file:`, `data:`, a relative path,
/// spaces or control characters — is an error at its `dossier.yml` line, because the
/// value is written into `sitemap.xml` and must never become a script link.
public enum BaseURL {
    /// The checked value with a trailing `/` added, or "" when `text` is empty.
    public static func check(_ text: String, file: String, line: Int) throws -> String {
        if text.isEmpty { return "" }
        let shown = ControlCharacters.visible(text)
        func refuse() -> DossierError {
            DossierError(
                file: file, line: line,
                "base_url must be an http: or https: URL such as https://example.org/site/, not '\(shown)'")
        }
        if text.unicodeScalars.contains(where: { ControlCharacters.isControl($0) || $0 == " " }) { throw refuse() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, text.lowercased().hasPrefix(scheme + "://") else { throw refuse() }
        if url.user != nil || url.password != nil {
            throw DossierError(file: file, line: line, "base_url must not carry a user name or password")
        }
        return text.hasSuffix("/") ? text : text + "/"
    }
}
