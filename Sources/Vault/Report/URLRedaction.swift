#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Text derived from URLs

/// The one place that turns a URL (or text that may hold one) into something safe to
/// show: user-info (`user:pass@`), query strings and fragments — which carry credentials
/// and tokens — never survive. Every report, page, side output, cache record and
/// non-`--reveal` CLI line goes through these (docs/vault-report.md, "Redaction").
public enum URLRedaction {
    /// The website as shown: scheme, host, port and path only.
    ///
    /// A URL that parses with a scheme and host gives `scheme://host[:port]/path`. Anything
    /// else (no scheme, spaces, bad percent-escapes) keeps only the text after its last
    /// `@`, and of that only what comes before its first `?` or `#`.
    ///
    /// The host is always the one a browser visits (``BrowserURL``, the WHATWG URL
    /// parser): when RFC 3986 parsing (URLComponents) finds another host or none, as for
    /// `https://bank.example.com\@evil.example.com/`, the browser's reading is shown.
    public static func website(_ url: String) -> String {
        let trimmed = url.trimmingWhitespaceAndNewlines()
        let browser = BrowserURL(trimmed)
        if let c = URLComponents(string: trimmed), let h = c.host, !h.isEmpty, let scheme = c.scheme,
           browser == nil || browser!.host == h.lowercased() {
            var out = scheme.lowercased() + "://" + h.lowercased()
            // The port as a browser writes it: no leading zeros, the scheme's default none
            // (`https://h:0443/x` and `https://h/x` are one website).
            if let port = c.port.map(String.init), BrowserURL.specialSchemes[scheme.lowercased()] ?? nil != port {
                out += ":" + port
            }
            return out + c.percentEncodedPath
        }
        if let b = browser { return b.scheme + "://" + b.host + (b.port.map { ":" + $0 } ?? "") + b.encodedPath }
        return stripped(Substring(trimmed))
    }

    /// The host of a URL, lower-cased, or "" when none can be found. Text that
    /// does not parse as a URL is cut like ``website(_:)`` and then at the first `/` and
    /// the last `:` (a port), so no user-info, path, query or fragment remains.
    /// The host is the browser's (``BrowserURL``) whenever one parses.
    public static func host(_ url: String) -> String {
        let trimmed = url.trimmingWhitespaceAndNewlines()
        let browser = BrowserURL(trimmed)
        if let h = URLComponents(string: trimmed)?.host, !h.isEmpty, browser == nil || browser!.host == h.lowercased() {
            return h.lowercased()
        }
        if let b = browser { return b.host }
        if !trimmed.contains("://") {
            let guess = "https://" + trimmed, browserGuess = BrowserURL(guess)
            if let h = URLComponents(string: guess)?.host, !h.isEmpty,
               browserGuess == nil || browserGuess!.host == h.lowercased() { return h.lowercased() }
            if let b = browserGuess { return b.host }
        }
        var s = Substring(stripped(Substring(trimmed)))
        if let scheme = s.textRange(of: "://") { s = s[scheme.upperBound...] }
        if let slash = s.firstIndex(of: "/") { s = s[..<slash] }
        if let colon = s.lastIndex(of: ":") { s = s[..<colon] }
        return s.trimmingWhitespace().lowercased()
    }

    /// Free text (a title) with every URL-like word replaced by ``website(_:)`` of it.
    /// A word (split at white space) is URL-like when it contains `://`, starts with
    /// `www.`, holds user-info (`…:…@…` before any `/`), or is a dotted host followed by
    /// `/`, `?` or `#`. Other words are kept as written.
    public static func text(_ s: String) -> String {
        guard s.contains(where: { "@?#/".contains($0) }) else { return s }
        var out = ""
        var word = ""
        func flush() {
            out += isURLLike(word) ? website(word) : word
            word = ""
        }
        for ch in s {
            if ch.isWhitespace { flush(); out.append(ch) } else { word.append(ch) }
        }
        flush()
        return out
    }

    static func isURLLike(_ w: String) -> Bool {
        if w.contains("://") || w.lowercased().hasPrefix("www.") { return true }
        let head = w.prefix { $0 != "/" }
        if let at = head.lastIndex(of: "@"), head[..<at].contains(":") { return true }
        guard let cut = w.firstIndex(where: { "/?#".contains($0) }) else { return false }
        let host = w[..<cut]
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2
            && labels.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }
    }

    /// Text after the last `@`, then before the first `?` or `#` (in that order, so a
    /// `?` or `#` inside a password never shortens the cut).
    static func stripped(_ t: Substring) -> String {
        var s = t
        if let at = s.lastIndex(of: "@") { s = s[s.index(after: at)...] }
        if let q = s.firstIndex(where: { $0 == "?" || $0 == "#" }) { s = s[..<q] }
        return String(s)
    }
}
