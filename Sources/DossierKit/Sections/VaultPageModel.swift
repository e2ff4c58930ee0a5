// Compiled only with the vault domain.
#if DOMAIN_VAULT
import Render
import Vault

/// What `vault/index` shows (the redacted health report), built by
/// ``VaultSection/summarize(records:context:)``: counts, the strength chart and the rows of
/// ``HealthReport`` (which has no field that can hold a secret).
struct VaultPageModel: TemplateRecord {
    var asOf, source, format: String
    var counts: HealthReport.Counts
    /// Present when the report checked an offline breach list: the list's name.
    var breachList: String?
    var averageLength: String
    var chart: String
    var distribution: [Distribution]
    var problems, expiry, reused: [Row]
    var expiringDays: Int
    var checksTOTP: Bool
    var notKept: [NotKept]
    var skipped: [Skipped]

    static let fields = TemplateFields<Self>([
        .text("asOf") { $0.asOf },
        .text("source") { $0.source },
        .text("format") { $0.format },
        .int("entries") { $0.counts.entries },
        .int("notes") { $0.counts.notes },
        .int("websites") { $0.counts.websites },
        .int("usernames") { $0.counts.usernames },
        .int("weakCount") { $0.counts.weak },
        .int("reusedCount") { $0.counts.reusedEntries },
        .int("reuseGroups") { $0.counts.reuseGroups },
        .list("headline", Headline.self) { $0.headline },
        .int("insecureCount") { $0.counts.insecureWebsites },
        .int("breachedCount") { $0.counts.breached },
        .bool("checksBreaches") { $0.breachList != nil },
        .text("breachList") { $0.breachList ?? "" },
        .int("staleCount") { $0.counts.stale },
        .int("duplicateCount") { $0.counts.duplicates },
        .text("averageLength") { $0.averageLength },
        .text("chart") { $0.chart },
        .list("distribution", Distribution.self) { $0.distribution },
        .list("problems", Row.self) { $0.problems },
        .bool("hasProblems") { !$0.problems.isEmpty },
        .list("reused", Row.self) { $0.reused },
        .int("expiredCount") { $0.counts.expired },
        .int("expiringCount") { $0.counts.expiring },
        .int("expiringDays") { $0.expiringDays },
        .int("missingTOTPCount") { $0.counts.missingTOTP },
        .bool("checksTOTP") { $0.checksTOTP },
        .int("excludedCount") { $0.counts.excluded },
        .bool("hasExcluded") { $0.counts.excluded > 0 },
        .list("expiry", Row.self) { $0.expiry },
        .bool("hasExpiry") { !$0.expiry.isEmpty },
        .list("notKept", NotKept.self) { $0.notKept },
        .list("skipped", Skipped.self) { $0.skipped },
    ])

    /// The tiles: entries, then the entries at each severity.
    var headline: [Headline] {
        [("entries", counts.entries), ("critical", counts.critical), ("high", counts.high),
         ("medium", counts.medium), ("low", counts.low), ("without findings", counts.ok)]
            .map { Headline(label: $0.0, value: $0.1) }
    }

    /// `headline[]`: a tile.
    struct Headline: TemplateRecord {
        var label: String
        var value: Int

        static let fields = TemplateFields<Self>([
            .text("label") { $0.label },
            .int("value") { $0.value },
        ])
    }

    /// `distribution[]`: the entries at one strength score.
    struct Distribution: TemplateRecord {
        var label: String
        var count: Int

        static let fields = TemplateFields<Self>([
            .text("label") { $0.label },
            .int("count") { $0.count },
        ])
    }

    /// `problems[]`, `expiry[]`, `reused[]`: an entry of the report (masked, redacted).
    struct Row: TemplateRecord {
        var row: HealthReport.Row

        static let fields = TemplateFields<Self>([
            .text("title") { $0.row.title },
            .text("website") { $0.row.website },
            .text("websiteHTML") { HTML.urlBreakable($0.row.website) },
            .text("username") { $0.row.username },
            .int("score") { $0.row.score },
            .text("reason") { $0.row.reason },
            .text("severity") { $0.row.severity },
            .text("group") { $0.row.group },
            .text("changed") { ValueFormat.date($0.row.changed) },
            .text("expires") { $0.row.expires.isEmpty ? "" : ValueFormat.date($0.row.expires) },
        ])
    }

    /// `notKept[]`: what the import could not keep, by kind.
    struct NotKept: TemplateRecord {
        var kind: String
        var count: Int

        static let fields = TemplateFields<Self>([
            .text("kind") { $0.kind },
            .int("count") { $0.count },
        ])
    }

    /// `skipped[]`: items not imported, by type, with the reason.
    struct Skipped: TemplateRecord {
        var type: String
        var count: Int
        var reason: String

        static let fields = TemplateFields<Self>([
            .text("type") { $0.type },
            .int("count") { $0.count },
            .text("reason") { $0.reason },
        ])
    }
}
#endif
