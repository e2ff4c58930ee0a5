import Foundation
import Testing
@testable import Vault

/// Expired / expiring, missing TOTP, exclude-from-reports and the severity order of the
/// newer checks (docs/vault-report.md, "Checks").
@Suite struct HealthChecksTests {
    static let asOf = ISODate.parse("2026-01-01")!
    static let day = 86400.0

    func entry(_ title: String, password: String = "Unique-\(UUID().uuidString)", user: String = "", site: String = "",
               expires: Double? = nil, totp: Secret = "", excluded: Bool = false) -> VaultItem {
        var e = VaultItem.entry(
            title: title, username: user, password: Secret(password), website: site,
            at: Self.asOf.addingTimeInterval(-10 * Self.day))
        e.expires = expires.map { Self.asOf.addingTimeInterval($0 * Self.day) }
        e.totp = totp
        e.excludeFromReports = excluded
        return e
    }

    func row(_ r: HealthReport, _ title: String) throws -> HealthReport.Row {
        try #require(r.entries.first { $0.title == title })
    }

    @Test func expiredIsHighAndExpiringIsMediumWithinTheConfiguredDays() throws {
        let items = [
            entry("Past", expires: -1), entry("Now", expires: 0), entry("Soon", expires: 10),
            entry("Later", expires: 31), entry("Never")
        ]
        let r = HealthCheck.report(items: items, asOf: Self.asOf, options: .init(expiringDays: 30, missingTOTP: false))
        #expect(r.counts.expired == 2 && r.counts.expiring == 1)
        #expect(
            try row(r, "Past").severity == "high" && row(r, "Past").reason == "expired"
                && row(r, "Past").expires == "2025-12-31")
        #expect(try row(r, "Now").reason == "expired")
        #expect(try row(r, "Soon").severity == "medium" && row(r, "Soon").reason == "expires within 30 days")
        #expect(try row(r, "Later").reason == "" && row(r, "Never").expires == "")
        let narrow = HealthCheck.report(
            items: items, asOf: Self.asOf, options: .init(expiringDays: 5, missingTOTP: false))
        #expect(narrow.counts.expiring == 0 && narrow.expiring.isEmpty)
        #expect(narrow.expired.map(\.title) == ["Now", "Past"])
    }

    @Test func missingTOTPFlagsLoginsWithAUsernameAndAWebsiteOnly() throws {
        let items = [
            entry("Login", user: "jo", site: "https://a.example.com"),
            entry("With", user: "jo", site: "https://b.example.com", totp: "JBSWY3DP"),
            entry("No site", user: "jo"), entry("No user", site: "https://c.example.com")
        ]
        let r = HealthCheck.report(items: items, asOf: Self.asOf, options: .init())
        #expect(r.missingTOTP.map(\.title) == ["Login"] && r.counts.missingTOTP == 1)
        #expect(try row(r, "Login").severity == "low" && row(r, "Login").reason == "no TOTP")
        #expect(
            HealthCheck.report(items: items, asOf: Self.asOf, options: .init(missingTOTP: false)).counts.missingTOTP
                == 0)
    }

    @Test func excludedItemsAreNeitherCountedNorListedAnywhere() throws {
        var note = VaultItem.note(title: "Hidden note", text: "x", at: Self.asOf)
        note.excludeFromReports = true
        let items = [
            entry("Shared A", password: "same-Passw0rd!"),
            entry(
                "Excluded", password: "same-Passw0rd!", user: "jo", site: "http://x.example.com", expires: -3,
                excluded: true),
            entry("Weak excluded", password: "1", excluded: true), note
        ]
        let r = HealthCheck.report(items: items, asOf: Self.asOf, options: .init())
        #expect(r.counts.entries == 1 && r.counts.notes == 0 && r.counts.excluded == 3)
        #expect(
            r.counts.reusedEntries == 0 && r.counts.weak == 0 && r.counts.expired == 0 && r.counts.insecureWebsites == 0
        )
        #expect(r.scoreDistribution.reduce(0, +) == 1)
        let json = String(decoding: try JSONEncoder().encode(r), as: UTF8.self)
        #expect(!json.contains("Excluded") && !json.contains("Hidden note"))
        #expect(!json.contains("Weak excluded"))
    }

    @Test func whatToFixIsSortedBySeverity() throws {
        let items = [
            entry("A low", user: "jo", site: "https://a.example.com"), entry("B medium", expires: 3),
            entry("C high", expires: -3), entry("D critical", password: "dup-Passw0rd!x"),
            entry("E critical", password: "dup-Passw0rd!x")
        ]
        let r = HealthCheck.report(items: items, asOf: Self.asOf, options: .init())
        #expect(r.problems.map(\.severity) == ["critical", "critical", "high", "medium", "low"])
        #expect(r.problems.map(\.title) == ["D critical", "E critical", "C high", "B medium", "A low"])
    }

    @Test func noNewSecretReachesTheReport() throws {
        var e = entry("Canary", user: "jo", site: "https://a.example.com", expires: 3, totp: "TOTP-CANARY-7")
        e.fields = [
            CustomField(name: "PIN", value: "FIELD-CANARY-7", hidden: true),
            CustomField(name: "Plan", value: "PLAIN-CANARY-7")
        ]
        e.history = [PasswordHistoryEntry(password: "HISTORY-CANARY-7", changed: Self.asOf)]
        let r = HealthCheck.report(items: [e], asOf: Self.asOf, options: .init())
        let json = String(decoding: try JSONEncoder().encode(r), as: UTF8.self)
        for canary in ["TOTP-CANARY-7", "FIELD-CANARY-7", "PLAIN-CANARY-7", "HISTORY-CANARY-7"] {
            #expect(!json.contains(canary))
        }
    }
}
