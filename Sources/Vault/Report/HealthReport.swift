#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - Redacted health report

/// The vault's inventory and health report.
///
/// **Redaction is structural**: this model has no field that can hold a password, note
/// text, description or key — only titles, websites, masked usernames, scores, reasons,
/// counts and dates — so no template or side output built from it can leak a secret.
public struct HealthReport: Sendable, Codable, Equatable {
    public struct Counts: Sendable, Codable, Equatable {
        public var entries: Int
        public var notes: Int
        /// Distinct website hosts.
        public var websites: Int
        /// Distinct usernames (case-insensitive).
        public var usernames: Int
        public var weak: Int
        public var reusedEntries: Int
        public var reuseGroups: Int
        public var insecureWebsites: Int
        public var stale: Int
        public var duplicates: Int
        /// Entries whose password is in the offline Pwned Passwords list (0 without one).
        public var breached: Int
        /// Entries past their expiry date, and expiring within the configured days.
        public var expired: Int
        public var expiring: Int
        /// Entries with a username and a website but no TOTP secret (0 when the check is off).
        public var missingTOTP: Int
        /// Items flagged "exclude from reports": the only trace they leave (not in
        /// `entries`, `notes`, any other count, any list or the score distribution).
        public var excluded: Int
        /// Entries by their most severe finding (``Severity``); `ok` = no finding.
        public var critical: Int
        public var high: Int
        public var medium: Int
        public var low: Int
        public var ok: Int
    }

    /// One entry as a person needs it to act.
    public struct Row: Sendable, Codable, Equatable {
        public var title: String
        public var website: String
        /// Masked: `j•••@example.com`.
        public var username: String
        /// zxcvbn score 0–4.
        public var score: Int
        /// Why it is listed (weak, reused, http, stale, duplicate), comma-joined.
        public var reason: String
        /// The most severe finding's level (``Severity``): critical, high, medium, low or ok.
        public var severity: String
        /// Reuse (`R1`…) and duplicate (`D1`…) group ids, space-joined, or "".
        public var group: String
        /// Date the password last changed (YYYY-MM-DD, UTC).
        public var changed: String
        /// Expiry date (YYYY-MM-DD, UTC), "" when the entry never expires.
        public var expires: String
    }

    public var asOf: String
    public var counts: Counts
    /// Entries per score 0…4.
    public var scoreDistribution: [Int]
    /// Mean password length in characters (0 with no entries).
    public var averageLength: Double
    /// Every entry with at least one problem, most severe first, then by title.
    public var problems: [Row]
    /// Entries whose password is in the breach list, in title order.
    public var breached: [Row]
    public var weak: [Row]
    public var reused: [Row]
    public var insecure: [Row]
    public var stale: [Row]
    public var duplicates: [Row]
    public var expired: [Row]
    public var expiring: [Row]
    public var missingTOTP: [Row]
    /// Every entry (no problems filtered), sorted by title.
    public var entries: [Row]
    /// The offline breach list used, e.g. `SHA-1 ordered by hash, 1,024 lines`
    /// (``BreachListForm/summary``); absent without one.
    public var breachList: String? = nil

    /// Fields of a row, in CSV column order.
    public static let csvColumns = ["title", "website", "username", "score", "severity", "reason", "group", "changed",
                                    "expires"]
}

/// How urgent a finding is: critical (breached, reused), high (weak or empty, expired),
/// medium (http, stale, expiring), low (duplicate login, no TOTP). An entry takes its most severe finding's level.
public enum Severity: String, Sendable, Codable, CaseIterable, Comparable {
    case critical, high, medium, low, ok

    /// 0 (critical) … 4 (ok).
    public var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

// MARK: - Building the report

public enum HealthCheck {
    /// Entries whose password is older than this are "stale".
    public static let staleDays = 365
    /// Scores at or below this are "weak".
    public static let weakScore = 2
    /// Entries expiring within this many days after `asOf` are "expiring".
    public static let expiringDays = 30

    /// The configurable thresholds and switches (`dossier.yml` and `vault report` options).
    public struct Options: Sendable, Equatable {
        public var staleDays: Int
        public var expiringDays: Int
        /// Whether entries with a username and a website but no TOTP are flagged.
        public var missingTOTP: Bool
        public init(staleDays: Int = HealthCheck.staleDays, expiringDays: Int = HealthCheck.expiringDays,
                    missingTOTP: Bool = true) {
            self.staleDays = staleDays
            self.expiringDays = expiringDays
            self.missingTOTP = missingTOTP
        }
    }

    /// Builds the report from live items as of `asOf`. Reuse groups get ordinal ids
    /// `R1`, `R2`, … and duplicate groups `D1`, `D2`, … numbered in the order of each
    /// group's first entry in the title order (never derived from a password, never random),
    /// so the same vault always gives the same report.
    ///
    /// With `breaches` (an offline Pwned Passwords list), each entry whose password is in
    /// it is "breached" (critical). Lookups that fail (I/O) throw.
    public static func report(items: [VaultItem], asOf: Date, staleDays: Int = staleDays) -> HealthReport {
        report(items: items, asOf: asOf, options: Options(staleDays: staleDays))
    }

    public static func report(items: [VaultItem], asOf: Date, options: Options) -> HealthReport {
        // without a breach list no lookup can fail
        (try? report(items: items, asOf: asOf, options: options, breaches: nil))!
    }

    public static func report(items: [VaultItem], asOf: Date, staleDays: Int = staleDays,
                              breaches: BreachList?) throws -> HealthReport {
        try report(items: items, asOf: asOf, options: Options(staleDays: staleDays), breaches: breaches)
    }

    /// Entries flagged ``VaultItem/excludeFromReports`` are removed before any check: they
    /// take part in no reuse or duplicate group and are counted only in `counts.excluded`.
    public static func report(items: [VaultItem], asOf: Date, options: Options,
                              breaches: BreachList?) throws -> HealthReport {
        let staleDays = options.staleDays
        let excluded = items.filter { !$0.deleted && $0.excludeFromReports }.count
        let live = items.filter { !$0.deleted && !$0.excludeFromReports }
        let entries = live.filter { $0.kind == .entry }.sorted { ($0.title.lowercased(),
                                                                  $0.id.uuidString) < ($1.title.lowercased(),
                                                                          $1.id.uuidString) }

        // reuse: group by the password in memory only
        var byPassword: [String: [Int]] = [:]
        for (k, e) in entries.enumerated() where !e.password.isEmpty {
            byPassword[e.password.reveal, default: []].append(k)
        }
        let reuseGroup = ordinalGroups(Array(byPassword.values), count: entries.count, prefix: "R")
        let groups = Set(reuseGroup.filter { !$0.isEmpty }).count
        // duplicates: same host + username (case-insensitive)
        var byLogin: [String: [Int]] = [:]
        for (k, e) in entries.enumerated() {
            let key = host(e.website).lowercased() + "\u{0}" + e.username.lowercased()
            if host(e.website).isEmpty && e.username.isEmpty { continue }
            byLogin[key, default: []].append(k)
        }
        let dupGroup = ordinalGroups(Array(byLogin.values), count: entries.count, prefix: "D")

        var rows: [HealthReport.Row] = []
        var distribution = [Int](repeating: 0, count: 5)
        var totalLength = 0
        var weak: [HealthReport.Row] = [], reused: [HealthReport.Row] = [], insecure: [HealthReport.Row] = []
        var stale: [HealthReport.Row] = [], dups: [HealthReport.Row] = [], problems: [HealthReport.Row] = []
        var breached: [HealthReport.Row] = [], expired: [HealthReport.Row] = [], expiring: [HealthReport.Row] = []
        var noTOTP: [HealthReport.Row] = []
        let expiringLimit = asOf.addingTimeInterval(Double(max(options.expiringDays, 0)) * 86400)
        let expiringReason = "expires within \(options.expiringDays) day\(options.expiringDays == 1 ? "" : "s")"
        let staleLimit = asOf.addingTimeInterval(-Double(max(staleDays, 0)) * 86400)
        let staleReason = staleDays == 365 ? "not changed in over a year" : "not changed in over \(staleDays) days"
        var severityCounts = [Int](repeating: 0, count: Severity.allCases.count)
        for (k, e) in entries.enumerated() {
            let est = Strength.estimate(e.password.reveal, userInputs: userInputs(for: e))
            distribution[est.score] += 1
            totalLength += e.password.reveal.count
            var reasons: [String] = []
            var severity = Severity.ok
            func flag(_ on: Bool, _ reason: String, _ level: Severity) {
                guard on else { return }
                reasons.append(reason)
                severity = min(severity, level)
            }
            let isWeak = est.score <= weakScore
            let isReused = !reuseGroup[k].isEmpty
            let isInsecure = e.website.lowercased().hasPrefix("http://")
            let isStale = e.passwordChanged < staleLimit
            let isDup = !dupGroup[k].isEmpty
            let isExpired = e.expires.map { $0 <= asOf } ?? false
            let isExpiring = e.expires.map { $0 > asOf && $0 <= expiringLimit } ?? false
            let lacksTOTP = options.missingTOTP && !e.username.isEmpty && !host(e.website).isEmpty && e.totp.isEmpty
            let seen = try e.password.isEmpty ? 0 : (breaches?.count(password: e.password) ?? 0)
            flag(seen > 0, "breached (seen \(seen) times)", .critical)
            flag(isWeak, e.password.isEmpty ? "empty password" : "weak", .high)
            flag(isReused, "reused", .critical)
            flag(isInsecure, "http", .medium)
            flag(isStale, staleReason, .medium)
            flag(isExpired, "expired", .high)
            flag(isExpiring, expiringReason, .medium)
            flag(isDup, "duplicate", .low)
            flag(lacksTOTP, "no TOTP", .low)
            severityCounts[severity.rank] += 1
            let row = HealthReport.Row(title: URLRedaction.text(e.title), website: URLRedaction.website(e.website),
                                       username: mask(e.username), score: est.score,
                                       reason: reasons.joined(separator: ", "), severity: severity.rawValue,
                                       group: [reuseGroup[k],
                                               dupGroup[k]].filter { !$0.isEmpty }.joined(separator: " "),
                                       changed: day(e.passwordChanged), expires: e.expires.map(day) ?? "")
            rows.append(row)
            if seen > 0 { breached.append(row) }
            if isWeak { weak.append(row) }
            if isReused { reused.append(row) }
            if isInsecure { insecure.append(row) }
            if isStale { stale.append(row) }
            if isDup { dups.append(row) }
            if isExpired { expired.append(row) }
            if isExpiring { expiring.append(row) }
            if lacksTOTP { noTOTP.append(row) }
            if !reasons.isEmpty { problems.append(row) }
        }
        // most severe first; within a severity the title order (a stable sort keeps it)
        problems = problems.enumerated().sorted {
            (Severity(rawValue: $0.element.severity)!.rank, $0.offset) < (Severity(rawValue: $1.element.severity)!.rank,
                    $1.offset)
        }.map(\.element)
        reused.sort {
            (groupOrder($0.group, "R"), $0.title.lowercased()) < (groupOrder($1.group, "R"), $1.title.lowercased())
        }
        dups.sort {
            (groupOrder($0.group, "D"), $0.title.lowercased()) < (groupOrder($1.group, "D"), $1.title.lowercased())
        }
        let hosts = Set(entries.map { host($0.website).lowercased() }.filter { !$0.isEmpty })
        let users = Set(entries.map { $0.username.lowercased() }.filter { !$0.isEmpty })
        let counts = HealthReport.Counts(entries: entries.count, notes: live.filter { $0.kind == .note }.count,
                                         websites: hosts.count, usernames: users.count, weak: weak.count,
                                         reusedEntries: reused.count, reuseGroups: groups,
                                         insecureWebsites: insecure.count,
                                         stale: stale.count, duplicates: dups.count,
                                         breached: breached.count, expired: expired.count, expiring: expiring.count,
                                         missingTOTP: noTOTP.count, excluded: excluded, critical: severityCounts[0],
                                         high: severityCounts[1], medium: severityCounts[2], low: severityCounts[3],
                                         ok: severityCounts[4])
        let avg = entries.isEmpty ? 0 : (Double(totalLength) / Double(entries.count) * 10).rounded() / 10
        return HealthReport(asOf: day(asOf), counts: counts, scoreDistribution: distribution, averageLength: avg,
                            problems: problems, breached: breached, weak: weak, reused: reused, insecure: insecure,
                            stale: stale,
                            duplicates: dups, expired: expired, expiring: expiring, missingTOTP: noTOTP, entries: rows,
                            breachList: breaches?.form.summary)
    }

    /// Gives every index in a group of two or more an id `<prefix><n>`, n = 1, 2, … in the
    /// order of each group's smallest index; "" for the rest.
    static func ordinalGroups(_ groups: [[Int]], count: Int, prefix: String) -> [String] {
        var ids = [String](repeating: "", count: count)
        for (n, idxs) in groups.filter({ $0.count > 1 }).sorted(by: { $0.min()! < $1.min()! }).enumerated() {
            for k in idxs { ids[k] = "\(prefix)\(n + 1)" }
        }
        return ids
    }

    /// Sort key of a row's group list for the group with `prefix` (its ordinal number).
    static func groupOrder(_ group: String, _ prefix: String) -> Int {
        group.split(separator: " ").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
            ?? Int.max
    }

    /// Words an attacker would try for this entry: title words, username parts, host labels.
    public static func userInputs(for e: VaultItem) -> [String] {
        var words = e.title.alphanumericRuns()
        words += e.username.alphanumericRuns()
        words += host(e.website).components(separatedBy: ".")
        words.append(e.username)
        return words.filter { $0.count >= 2 }
    }

    /// `jo@example.com` → `j•••@example.com`; `admin` → `a•••`; "" → "".
    public static func mask(_ username: String) -> String {
        guard let first = username.first else { return "" }
        if let at = username.lastIndex(of: "@"), at != username.startIndex {
            return String(first) + "•••" + username[at...]
        }
        return String(first) + "•••"
    }

    /// The website as shown in reports (``URLRedaction/website(_:)``).
    public static func safeWebsite(_ url: String) -> String { URLRedaction.website(url) }

    static func host(_ url: String) -> String { URLRedaction.host(url) }

    static func day(_ d: Date) -> String {
        String(ISODateText.format(d).prefix(10))   // yyyy-MM-dd in UTC
    }
}
