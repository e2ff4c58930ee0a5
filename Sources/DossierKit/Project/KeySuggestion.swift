#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// "Did you mean …?" for a misspelt key of `dossier.yml` or of a page's front matter,
/// at every level (docs/manifest.md, "Mistyped keys").
///
/// A known key is suggested when its Damerau–Levenshtein distance (insert, delete,
/// substitute, or swap two neighbours, each 1) to the typed key is at most
/// `max(1, min(3, typed.count / 3))`, or one is a prefix of the other and the shorter
/// has at least 3 characters; the closest (ties in the order given) come first, at most
/// three. The same rule as the command line's suggestions for commands and options.
public enum KeySuggestion {
    /// `unknown key 'titel'; did you mean 'title'? (known: a, b, c)`.
    public static func unknownKey(_ typed: String, known: [String]) -> String {
        var message = "unknown key '\(typed)'"
        let close = closest(to: typed, in: known)
        if !close.isEmpty { message += "; did you mean \(close.map { "'\($0)'" }.joined(separator: " or "))?" }
        if !known.isEmpty { message += " (known: \(known.joined(separator: ", ")))" }
        return message
    }

    /// The candidates close to `typed`, closest first, at most three.
    public static func closest(to typed: String, in candidates: [String]) -> [String] {
        let limit = max(1, min(3, typed.count / 3))
        var scored: [(Int, Int, String)] = []
        for (i, c) in candidates.enumerated() where c != typed {
            let d = distance(typed, c)
            let (short, long) = typed.count <= c.count ? (typed, c) : (c, typed)
            let prefix = short.count >= 3 && long.hasPrefix(short)
            if d <= limit || prefix { scored.append((prefix ? min(d, limit) : d, i, c)) }
        }
        return scored.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.prefix(3).map { $0.2 }
    }

    /// Damerau–Levenshtein (optimal string alignment) distance.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }

    /// The line of the second `key:` of a mapping whose first `key` is at
    /// (`line`, `column`) (1-based, as Yams marks them): the next line holding `key:` at
    /// the same column with only spaces or `- ` before it, or a second `key:` on the
    /// same line (a flow mapping). Nil when not found.
    static func duplicateLine(in text: String, key: String, line: Int, column: Int) -> Int? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return nil }
        func keyAt(_ l: Substring, _ col: Int) -> Bool {
            let chars = Array(l)
            guard col >= 1, col - 1 < chars.count else { return false }
            let rest = String(chars[(col - 1)...])
            let bare = rest.hasPrefix(key + ":") || rest.hasPrefix("\"\(key)\":") || rest.hasPrefix("'\(key)':")
            return bare || (rest.hasPrefix(key) && rest.dropFirst(key.count).drop { $0 == " " }.hasPrefix(":"))
        }
        let first = lines[line - 1]
        if let r = first.textRange(of: key + ":",
                                   from: first.index(first.startIndex, offsetBy: min(first.count, column))),
           r.lowerBound > first.startIndex {
            return line
        }
        for i in line..<lines.count {
            let l = lines[i]
            let before = l.prefix(max(0, column - 1))
            if before.allSatisfy({ $0 == " " || $0 == "-" }) && keyAt(l, column) { return i + 1 }
        }
        return nil
    }
}
