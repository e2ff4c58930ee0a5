#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - The host a browser visits

/// The scheme, host, port and path of a URL as a browser finds them: the WHATWG URL
/// Standard's basic URL parser with no base URL, cut down to what a report shows
/// (docs/vault-report.md, "Redaction"). The points where it differs from RFC 3986 are
/// the ones an attacker uses: for the special schemes (`http`, `https`, `ws`, `wss`,
/// `ftp`, `file`) a `\` ends the host like `/` does, any number of `/` and `\` may follow
/// `scheme:`, and user-info runs to the *last* `@` before the host ends — so
/// `https://bank.example.com\@evil.example.com/` visits `bank.example.com`.
struct BrowserURL: Equatable {
    var scheme: String
    /// Lower-case (ASCII letters), percent-decoded; never empty.
    var host: String
    /// The port's digits without leading zeros; nil when absent or the scheme's default.
    var port: String?
    /// From the first `/` (or `\`, read as `/`) after the host up to `?` or `#`; `/` when empty.
    var path: String

    static let specialSchemes: [String: String?] = [
        "http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21", "file": nil
    ]

    /// nil when the text has no scheme, no host, or a host or port a browser refuses.
    init?(_ input: String) {
        // Leading and trailing C0 controls and spaces go; tabs and newlines anywhere go.
        var s = Substring(input)
        while let f = s.unicodeScalars.first, f.value <= 0x20 { s = s.dropFirst() }
        while let l = s.unicodeScalars.last, l.value <= 0x20 { s = s.dropLast() }
        let text = String(s.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }.map(Character.init))
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon]
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
            name.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
            })
        else { return nil }
        scheme = name.lowercased()
        let special = Self.specialSchemes[scheme] != nil
        var rest = text[text.index(after: colon)...]
        if special {
            rest = rest.drop { $0 == "/" || $0 == "\\" }
        } else {
            guard rest.hasPrefix("//") else { return nil }
            rest = rest.dropFirst(2)
        }
        let ends: Set<Character> = special ? ["/", "\\", "?", "#"] : ["/", "?", "#"]
        let authorityEnd = rest.firstIndex(where: ends.contains) ?? rest.endIndex
        var hostPort = rest[..<authorityEnd]
        if let at = hostPort.lastIndex(of: "@") { hostPort = hostPort[hostPort.index(after: at)...] }
        // The port: after the last `:` that is not inside `[…]` (an IPv6 address).
        var hostText = hostPort
        port = nil
        if let c = hostPort.lastIndex(of: ":"), !hostPort[c...].contains("]") {
            hostText = hostPort[..<c]
            let digits = hostPort[hostPort.index(after: c)...]
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            if !digits.isEmpty {
                let significant = digits.drop { $0 == "0" }
                guard significant.count <= 5, let n = significant.isEmpty ? 0 : Int(significant), n <= 65_535 else {
                    return nil
                }
                let value = String(n)
                port = Self.specialSchemes[scheme].map { $0 == value } == true ? nil : value
            }
        }
        guard let decoded = String(hostText).percentDecoded(), !decoded.isEmpty else { return nil }
        let forbidden = Set(" #%/:<>?@[\\]^|".unicodeScalars)
        let isIPv6 = decoded.hasPrefix("[") && decoded.hasSuffix("]")
        guard
            isIPv6
                || !decoded.unicodeScalars.contains(where: {
                    $0.value < 0x20 || $0.value == 0x7F || forbidden.contains($0)
                })
        else { return nil }
        host = decoded.lowercased()
        var p = rest[authorityEnd...]
        if let q = p.firstIndex(where: { $0 == "?" || $0 == "#" }) { p = p[..<q] }
        let written = special ? String(p).replacingAll("\\", with: "/") : String(p)
        path = written.isEmpty ? "/" : written
    }

    /// The path with the WHATWG path percent-encode set encoded (controls, space, `"`,
    /// `#`, `<`, `>`, `?`, `` ` ``, `{`, `}`, and every non-ASCII byte of its UTF-8).
    var encodedPath: String {
        var out = ""
        for b in path.utf8 {
            if b <= 0x20 || b >= 0x7F || "\"#<>?`{}".utf8.contains(b) { out += cFormat("%%%02X", b) }
            else { out.unicodeScalars.append(Unicode.Scalar(b)) }
        }
        return out
    }
}
