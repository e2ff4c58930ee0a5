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
        var firstLine: [String: (line: Int, index: Int)] = [:]   // release → where it was first listed
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
            guard isPublishedTime(fields["published"]!) else {
                throw LedgerError(line: i + 1, message: "published '\(fields["published"]!)' is not a UTC time "
                                  + "written YYYY-MM-DDTHH:MM:SSZ")
            }
            let entry = Entry(release: fields["release"]!, epsilonMilli: eps, delta: fields["delta"]!,
                              section: fields["section"]!, published: fields["published"]!)
            // One release is one spend: a line repeated (a merge that kept both copies) counts
            // once; the same release with another ε, δ or section is a contradiction.
            if let first = firstLine[entry.release] {
                let kept = ledger.entries[first.index]
                guard kept.epsilonMilli == eps, kept.delta == entry.delta, kept.section == entry.section else {
                    throw LedgerError(line: i + 1, message: "release \(entry.release) is listed again with another "
                                      + "epsilon, delta or section (first at line \(first.line))")
                }
                continue
            }
            firstLine[entry.release] = (i + 1, ledger.entries.count)
            ledger.entries.append(entry)
        }
        return ledger
    }
}

extension Ledger {
    /// `YYYY-MM-DDTHH:MM:SSZ`, a real date and time of day (as `publish` writes it).
    static func isPublishedTime(_ t: String) -> Bool {
        let b = Array(t.utf8)
        guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x5A
        else { return false }
        func number(_ from: Int, _ count: Int) -> Int? {
            var n = 0
            for c in b[from..<from + count] {
                guard c >= 0x30 && c <= 0x39 else { return nil }
                n = n * 10 + Int(c - 0x30)
            }
            return n
        }
        guard let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2), let h = number(11, 2),
              let mi = number(14, 2), let s = number(17, 2), (1...12).contains(mo), h < 24, mi < 60, s < 60 else {
            return false
        }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
        return (1...days).contains(d)
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
