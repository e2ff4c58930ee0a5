#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Phone punctuation → GSM

/// Maps the punctuation phones and word processors put in text — curly quotes, dashes,
/// the ellipsis, non-breaking and thin spaces — to GSM 03.38 characters
/// (`dossier sms encrypt --normalize`). Nothing else is changed.
public enum GSMNormalize {
    /// Each replaced scalar and what it becomes.
    public static let table: [Unicode.Scalar: String] = {
        var m: [Unicode.Scalar: String] = [:]
        for s in ["\u{2018}", "\u{2019}", "\u{201A}", "\u{201B}", "\u{2032}"] as [Unicode.Scalar] { m[s] = "'" }
        for s in ["\u{201C}", "\u{201D}", "\u{201E}", "\u{201F}", "\u{2033}", "\u{00AB}", "\u{00BB}"]
            as [Unicode.Scalar]
        { m[s] = "\"" }
        for s in ["\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2015}", "\u{2212}"]
            as [Unicode.Scalar]
        { m[s] = "-" }
        m["\u{2026}"] = "..."
        for s in ["\u{00A0}", "\u{2007}", "\u{2009}", "\u{202F}"] as [Unicode.Scalar] { m[s] = " " }
        return m
    }()

    /// One kind of replacement and how often it was made.
    public struct Change: Sendable, Equatable {
        public var from: Unicode.Scalar
        public var to: String
        public var count: Int
        /// `2 × ’ (U+2019) → '`
        public var summary: String {
            "\(count) × \(Character(from)) (U+\(cFormat("%04X", from.value))) → \(to == " " ? "space" : to)"
        }
    }

    /// The text with every table entry replaced, and the replacements made (in order of
    /// first appearance).
    public static func apply(_ text: String) -> (text: String, changes: [Change]) {
        var out = String.UnicodeScalarView()
        var changes: [Change] = []
        for s in text.unicodeScalars {
            guard let to = table[s] else { out.append(s); continue }
            out.append(contentsOf: to.unicodeScalars)
            if let i = changes.firstIndex(where: { $0.from == s }) { changes[i].count += 1 } else {
                changes.append(Change(from: s, to: to, count: 1))
            }
        }
        return (String(out), changes)
    }
}
