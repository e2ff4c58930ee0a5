import Foundation

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
        /// Group id for reused passwords / duplicates (random per report), or "".
        public var group: String
        /// Date the password last changed (YYYY-MM-DD, UTC).
        public var changed: String
    }

    public var asOf: String
    public var counts: Counts
    /// Entries per score 0…4.
    public var scoreDistribution: [Int]
    /// Mean password length in characters (0 with no entries).
    public var averageLength: Double
    /// Every entry with at least one problem, sorted by title.
    public var problems: [Row]
    public var weak: [Row]
    public var reused: [Row]
    public var insecure: [Row]
    public var stale: [Row]
    public var duplicates: [Row]
    /// Every entry (no problems filtered), sorted by title.
    public var entries: [Row]

    /// Fields of a row, in CSV column order.
    public static let csvColumns = ["title", "website", "username", "score", "reason", "group", "changed"]
}

// MARK: - Building the report

public enum HealthCheck {
    /// Entries whose password is older than this are "stale".
    public static let staleDays = 365
    /// Scores at or below this are "weak".
    public static let weakScore = 2

    /// Builds the report from live items as of `asOf`. Reuse groups get random ids from
    /// the CSPRNG (fresh for every report; never derived from the password).
    public static func report(items: [VaultItem], asOf: Date) -> HealthReport {
        let live = items.filter { !$0.deleted }
        let entries = live.filter { $0.kind == .entry }.sorted { ($0.title.lowercased(), $0.id.uuidString) < ($1.title.lowercased(), $1.id.uuidString) }
        let random = SecureRandom()
        func groupID() -> String {
            let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
            return "g-" + String((0..<6).map { _ in alphabet[random.below(alphabet.count)] })
        }

        // reuse: group by the password in memory only
        var byPassword: [String: [Int]] = [:]
        for (k, e) in entries.enumerated() where !e.password.isEmpty { byPassword[e.password.reveal, default: []].append(k) }
        var reuseGroup = [String](repeating: "", count: entries.count)
        var groups = 0
        for idxs in byPassword.values.sorted(by: { $0[0] < $1[0] }) where idxs.count > 1 {
            let g = groupID()
            groups += 1
            for k in idxs { reuseGroup[k] = g }
        }
        // duplicates: same host + username (case-insensitive)
        var byLogin: [String: [Int]] = [:]
        for (k, e) in entries.enumerated() {
            let key = host(e.website).lowercased() + "\u{0}" + e.username.lowercased()
            if host(e.website).isEmpty && e.username.isEmpty { continue }
            byLogin[key, default: []].append(k)
        }
        var dupGroup = [String](repeating: "", count: entries.count)
        for idxs in byLogin.values.sorted(by: { $0[0] < $1[0] }) where idxs.count > 1 {
            let g = groupID()
            for k in idxs { dupGroup[k] = g }
        }

        var rows: [HealthReport.Row] = []
        var distribution = [Int](repeating: 0, count: 5)
        var totalLength = 0
        var weak: [HealthReport.Row] = [], reused: [HealthReport.Row] = [], insecure: [HealthReport.Row] = []
        var stale: [HealthReport.Row] = [], dups: [HealthReport.Row] = [], problems: [HealthReport.Row] = []
        let staleLimit = asOf.addingTimeInterval(-Double(staleDays) * 86400)
        for (k, e) in entries.enumerated() {
            let est = Strength.estimate(e.password.reveal, userInputs: userInputs(for: e))
            distribution[est.score] += 1
            totalLength += e.password.reveal.count
            var reasons: [String] = []
            let isWeak = est.score <= weakScore
            let isReused = !reuseGroup[k].isEmpty
            let isInsecure = e.website.lowercased().hasPrefix("http://")
            let isStale = e.passwordChanged < staleLimit
            let isDup = !dupGroup[k].isEmpty
            if isWeak { reasons.append(e.password.isEmpty ? "empty password" : "weak") }
            if isReused { reasons.append("reused") }
            if isInsecure { reasons.append("http") }
            if isStale { reasons.append("not changed in over a year") }
            if isDup { reasons.append("duplicate") }
            let row = HealthReport.Row(title: e.title, website: safeWebsite(e.website), username: mask(e.username), score: est.score,
                                       reason: reasons.joined(separator: ", "),
                                       group: [reuseGroup[k], dupGroup[k]].filter { !$0.isEmpty }.joined(separator: " "),
                                       changed: day(e.passwordChanged))
            rows.append(row)
            if isWeak { weak.append(row) }
            if isReused { reused.append(row) }
            if isInsecure { insecure.append(row) }
            if isStale { stale.append(row) }
            if isDup { dups.append(row) }
            if !reasons.isEmpty { problems.append(row) }
        }
        reused.sort { ($0.group, $0.title.lowercased()) < ($1.group, $1.title.lowercased()) }
        dups.sort { ($0.group, $0.title.lowercased()) < ($1.group, $1.title.lowercased()) }
        let hosts = Set(entries.map { host($0.website).lowercased() }.filter { !$0.isEmpty })
        let users = Set(entries.map { $0.username.lowercased() }.filter { !$0.isEmpty })
        let counts = HealthReport.Counts(entries: entries.count, notes: live.filter { $0.kind == .note }.count,
                                         websites: hosts.count, usernames: users.count, weak: weak.count,
                                         reusedEntries: reused.count, reuseGroups: groups, insecureWebsites: insecure.count,
                                         stale: stale.count, duplicates: dups.count)
        let avg = entries.isEmpty ? 0 : (Double(totalLength) / Double(entries.count) * 10).rounded() / 10
        return HealthReport(asOf: day(asOf), counts: counts, scoreDistribution: distribution, averageLength: avg,
                            problems: problems, weak: weak, reused: reused, insecure: insecure, stale: stale,
                            duplicates: dups, entries: rows)
    }

    /// Words an attacker would try for this entry: title words, username parts, host labels.
    public static func userInputs(for e: VaultItem) -> [String] {
        let separators = CharacterSet.alphanumerics.inverted
        var words = e.title.components(separatedBy: separators)
        words += e.username.components(separatedBy: separators)
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

    /// The website as shown in reports: scheme, host, port and path only — credentials
    /// (`user:pass@`), query strings and fragments (which often carry tokens) are dropped.
    public static func safeWebsite(_ url: String) -> String {
        let trimmed = url.trimmingCharacters(in: .whitespacesAndNewlines)
        if let c = URLComponents(string: trimmed), let h = c.host, !h.isEmpty, let scheme = c.scheme {
            var out = scheme + "://" + h
            if let port = c.port { out += ":\(port)" }
            return out + c.percentEncodedPath
        }
        // not a URL with a scheme: keep what follows any '@', up to '?' or '#'
        var s = Substring(trimmed)
        if let at = s.lastIndex(of: "@") { s = s[s.index(after: at)...] }
        if let q = s.firstIndex(where: { $0 == "?" || $0 == "#" }) { s = s[..<q] }
        return String(s)
    }

    static func host(_ url: String) -> String {
        if let h = URLComponents(string: url)?.host, !h.isEmpty { return h }
        if let h = URLComponents(string: "https://" + url)?.host, !url.contains("://") { return h }
        return ""
    }

    static func day(_ d: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: d)
    }
}
