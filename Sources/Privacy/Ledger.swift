import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - The release ledger (docs/game-privacy.md, "The release ledger")

/// A project's record of the privacy budget its public releases spent: a plain text
/// file, one line per release, meant to be committed with the project.
///
/// ```
/// # Dossier privacy ledger (docs/game-privacy.md). One line per published release;
/// # the total spent is the sum of epsilon (basic composition).
/// release=3f9c0a7d2b41e8c6 epsilon=6 delta=0 section=game published=2026-11-27T20:01:02Z
/// ```
public struct Ledger: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var release: String
        /// ε in thousandths.
        public var epsilonMilli: Int
        public var delta: String
        public var section: String
        public var published: String
        public init(release: String, epsilonMilli: Int, delta: String, section: String, published: String) {
            self.release = release; self.epsilonMilli = epsilonMilli; self.delta = delta; self.section = section;
            self.published = published
        }
        public var line: String {
            "release=\(release) epsilon=\(PrivacyNumber.text(milli: epsilonMilli)) delta=\(delta) section=\(section) "
                + "published=\(published)"
        }
    }
    public var entries: [Entry] = []

    public init(entries: [Entry] = []) { self.entries = entries }

    public static let header = """
        # Dossier privacy ledger (docs/game-privacy.md). One line per published release;
        # the total spent is the sum of epsilon (basic composition). Commit this file.
        """

    /// Total ε spent, in thousandths.
    public var spentMilli: Int { entries.reduce(0) { $0 + $1.epsilonMilli } }

    public func contains(release: String) -> Bool { entries.contains { $0.release == release } }

    public var text: String { ([Ledger.header] + entries.map(\.line)).joined(separator: "\n") + "\n" }

    /// Parses a ledger; an error names the line and what is wrong.
    public static func parse(_ text: String) throws(LedgerError) -> Ledger {
        var ledger = Ledger()
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            var fields: [String: String] = [:]
            for part in line.split(separator: " ") {
                let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2, fields[kv[0]] == nil else {
                    throw LedgerError(line: i + 1, message: "expected key=value fields, found '\(part)'")
                }
                fields[kv[0]] = kv[1]
            }
            for k in ["release", "epsilon", "delta", "section", "published"] where fields[k] == nil {
                throw LedgerError(line: i + 1, message: "missing field '\(k)'")
            }
            guard let eps = PrivacyNumber.milli(fields["epsilon"]!) else {
                throw LedgerError(
                    line: i + 1,
                    message: "epsilon '\(fields["epsilon"]!)' is not a non-negative number with at most 3 decimals")
            }
            guard let d = Double(fields["delta"]!), d >= 0, d < 1 else {
                throw LedgerError(line: i + 1, message: "delta '\(fields["delta"]!)' is not a number in [0, 1)")
            }
            ledger.entries.append(Entry(release: fields["release"]!, epsilonMilli: eps, delta: fields["delta"]!,
                                        section: fields["section"]!, published: fields["published"]!))
        }
        return ledger
    }
}

public struct LedgerError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
}

// MARK: - The release file's seal (docs/game-privacy.md, "privacy.json")

/// A MAC of what a release file says about its spend, under the privacy key: `publish`
/// checks it with the key kept in the database, so a hand-edited `privacy.json` (a smaller
/// ε, another release id, another database) is refused rather than trusted.
public enum ReleaseSeal {
    /// hex(HMAC-SHA256(key, "dossier-release-file" ‖ the fields as `name=value` lines in
    /// this order: release, section, epsilon, delta, lifetimeEpsilon, database)).
    public static func seal(key: Data, release: String, section: String, epsilon: String, delta: String,
                            lifetimeEpsilon: String, database: String) -> String {
        let text = "dossier-release-file\nrelease=\(release)\nsection=\(section)\nepsilon=\(epsilon)\ndelta=\(delta)\n"
            + "lifetimeEpsilon=\(lifetimeEpsilon)\ndatabase=\(database)\n"
        let mac = HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: key))
        return mac.hexString
    }
}
