#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - The privacy budget of one release (docs/game-privacy.md, "Budget")

/// Hands out parts of a release's ε under basic composition: the parts spent add up,
/// and spending past the total is refused (a programming error in the release plan).
public struct Accountant: Sendable {
    public struct Spend: Sendable, Hashable {
        public var label: String
        public var epsilon: Rational
        public init(label: String, epsilon: Rational) { self.label = label; self.epsilon = epsilon }
    }
    public let total: Rational
    public private(set) var spent: [Spend] = []

    public init(total: Rational) { self.total = total }

    /// What has been spent so far (Σ ε, basic composition).
    public var used: Rational { spent.reduce(Rational(0)) { $0 + $1.epsilon } }

    /// Spends `share` of the total on `label` and returns that ε.
    public mutating func spend(_ label: String, share: Rational) -> Rational {
        let eps = total * share
        precondition(used + eps <= total, "privacy budget exceeded by \(label)")
        spent.append(Spend(label: label, epsilon: eps))
        return eps
    }
}

/// A decimal ε or δ as written in configuration and ledgers, kept exact in thousandths
/// (ε) or as a decimal string (δ).
public enum PrivacyNumber {
    /// "4", "0.25", "1.5" → thousandths; nil for anything else (negative, more than three
    /// decimals, not a number).
    public static func milli(_ text: String) -> Int? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = Int(parts[0]), whole >= 0, whole < 1_000_000,
              parts[0].allSatisfy(\.isASCIIDigitChar) else { return nil }
        var frac = 0
        if parts.count == 2 {
            let f = parts[1]
            guard (1...3).contains(f.count), f.allSatisfy(\.isASCIIDigitChar), let v = Int(f) else { return nil }
            frac = v * [100, 10, 1][f.count - 1]
        }
        return whole * 1000 + frac
    }

    /// Thousandths written back as the shortest decimal ("4", "0.25").
    public static func text(milli: Int) -> String {
        let w = milli / 1000, f = milli % 1000
        if f == 0 { return "\(w)" }
        var s = cFormat("%03d", f)
        while s.hasSuffix("0") { s.removeLast() }
        return "\(w).\(s)"
    }
}

extension Character {
    var isASCIIDigitChar: Bool { isASCII && isNumber }
}
