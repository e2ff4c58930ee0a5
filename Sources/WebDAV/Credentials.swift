#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

/// A user name and password for HTTP Basic authentication.
///
/// `description` never shows the password, so a `Credentials` value printed by accident
/// (in a log line, an error, a debugger) leaks nothing.
public struct Credentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let user: String
    let password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The `Authorization` header value (`Basic base64(user:password)`).
    var authorizationHeader: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    public var description: String { "Credentials(user: \(user), password: <redacted>)" }
    public var debugDescription: String { description }
}

/// A netrc-style credentials file (`~/.netrc` format):
///
/// ```
/// machine dav.example.org login alice password s3cret
/// default login bob password other
/// ```
///
/// Tokens are separated by any white space (new lines included); `machine` starts an
/// entry, `default` is the entry for any host, `login`/`password` fill the current entry,
/// `account` and `macdef` are skipped (a `macdef` runs to the next empty line).
/// Quoting with `"…"` keeps spaces inside a token.
public struct NetrcFile: Sendable {
    public struct Entry: Sendable {
        public var machine: String?   // nil for `default`
        public var login: String?
        var password: String?
    }
    public private(set) var entries: [Entry] = []

    public init(text: String) {
        var tokens: [String] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
        var inMacro = false
        while let line = lines.next() {
            if inMacro { if line.trimmingWhitespace().isEmpty { inMacro = false }; continue }
            let lineTokens = NetrcFile.tokenize(String(line))
            if let i = lineTokens.firstIndex(of: "macdef") {
                tokens += lineTokens[..<i]
                inMacro = true
                continue
            }
            tokens += lineTokens
        }
        var current: Entry? = nil
        var i = 0
        func flush() { if let c = current { entries.append(c) }; current = nil }
        while i < tokens.count {
            let t = tokens[i]
            switch t {
            case "machine":
                flush()
                current = Entry(machine: i + 1 < tokens.count ? tokens[i + 1] : nil)
                i += 2
            case "default":
                flush()
                current = Entry(machine: nil)
                i += 1
            case "login", "password", "account":
                let value = i + 1 < tokens.count ? tokens[i + 1] : nil
                if t == "login" { current?.login = value }
                if t == "password" { current?.password = value }
                i += 2
            default:
                i += 1
            }
        }
        flush()
    }

    static func tokenize(_ line: String) -> [String] {
        var out: [String] = []
        var cur = ""
        var quoted = false
        var has = false
        for ch in line {
            if quoted {
                if ch == "\"" { quoted = false } else { cur.append(ch) }
            } else if ch == "\"" {
                quoted = true; has = true
            } else if ch == " " || ch == "\t" || ch == "\r" {
                if has || !cur.isEmpty { out.append(cur) }
                cur = ""; has = false
            } else if ch == "#" && cur.isEmpty && !has {
                break
            } else {
                cur.append(ch)
            }
        }
        if has || !cur.isEmpty { out.append(cur) }
        return out
    }

    /// The credentials for `host` (an exact `machine` entry first, then `default`), or nil.
    /// When `user` is given, only an entry with that login (or none) matches.
    public func credentials(host: String, user: String? = nil) -> Credentials? {
        let host = host.lowercased()
        let candidates = entries.filter { $0.machine?.lowercased() == host } + entries.filter { $0.machine == nil }
        for e in candidates {
            guard let pw = e.password else { continue }
            if let user, let login = e.login, login != user { continue }
            guard let login = e.login ?? user else { continue }
            return Credentials(user: login, password: pw)
        }
        return nil
    }
    /// The `login` of the entry for `host` (an exact `machine` entry first, then
    /// `default`), or nil: the user when the password comes from elsewhere.
    public func login(host: String) -> String? {
        let host = host.lowercased()
        let candidates = entries.filter { $0.machine?.lowercased() == host } + entries.filter { $0.machine == nil }
        return candidates.lazy.compactMap(\.login).first
    }
}
