#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Match

/// One pattern found in a password, covering code points `i...j` (inclusive).
struct Match: Sendable {
    enum Pattern: String, Sendable { case dictionary, spatial, `repeat`, sequence, regex, date, bruteforce }

    var pattern: Pattern
    var i: Int
    var j: Int
    /// The code points covered (part of the password: never leaves the estimator).
    var token: [UInt32]

    // dictionary
    var matchedWord: [UInt32] = []
    var rank: Int = 0
    var dictionaryName: String = ""
    var reversed = false
    var l33t = false
    /// l33t substitutions used in the token, (l33t character, letter), in table order.
    var sub: [(UInt32, UInt32)] = []
    // spatial
    var graph = ""
    var turns = 0
    var shiftedCount = 0
    // repeat
    var baseToken: [UInt32] = []
    var baseGuesses: Double = 0
    var repeatCount: Double = 0
    // sequence
    var sequenceName = ""
    var ascending = true
    // regex
    var regexName = ""
    // date
    var separator: UInt32? = nil
    var year = 0
    var month = 0
    var day = 0

    /// Filled by the scorer (``Scoring/estimateGuesses``).
    var guesses: Double = 0

    /// Number of code points covered (`token` may be left empty for brute-force parts).
    var length: Int { j - i + 1 }

    init(_ pattern: Pattern, i: Int, j: Int, token: [UInt32]) {
        self.pattern = pattern
        self.i = i
        self.j = j
        self.token = token
    }
}

// MARK: - Code point helpers

enum CP {
    static func isDigit(_ c: UInt32) -> Bool { c >= 48 && c <= 57 }
    static func isUpperASCII(_ c: UInt32) -> Bool { c >= 65 && c <= 90 }
    static func isLowerASCII(_ c: UInt32) -> Bool { c >= 97 && c <= 122 }
    static func lower(_ c: UInt32) -> UInt32 {
        if c < 128 { return isUpperASCII(c) ? c + 32 : c }
        guard let s = Unicode.Scalar(c) else { return c }
        let l = s.properties.lowercaseMapping.unicodeScalars
        return l.count == 1 ? l.first!.value : c
    }
    static func isUpper(_ c: UInt32) -> Bool {
        if c < 128 { return isUpperASCII(c) }
        return Unicode.Scalar(c)?.properties.isUppercase ?? false
    }
    static func isLower(_ c: UInt32) -> Bool {
        if c < 128 { return isLowerASCII(c) }
        return Unicode.Scalar(c)?.properties.isLowercase ?? false
    }
    static func isSpace(_ c: UInt32) -> Bool {
        (c >= 9 && c <= 13) || c == 32 || c == 0x1C || c == 0x1D || c == 0x1E || c == 0x1F || c == 0x85 || c == 0xA0
            || (c > 0xFF && (Unicode.Scalar(c)?.properties.isWhitespace ?? false))
    }
}

/// Stable sort by (i, j): the order matches are considered in, which only breaks ties.
func sortedByPosition(_ ms: [Match]) -> [Match] {
    ms.enumerated().sorted { a, b in
        if a.element.i != b.element.i { return a.element.i < b.element.i }
        if a.element.j != b.element.j { return a.element.j < b.element.j }
        return a.offset < b.offset
    }.map(\.element)
}
