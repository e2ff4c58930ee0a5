import Foundation
import Testing
@testable import Vault

@Suite struct HealthReportTests {
    let asOf = Date(timeIntervalSince1970: 1_750_000_000)   // 2025-06-15
    var old: Date { asOf.addingTimeInterval(-400 * 86400) }
    var recent: Date { asOf.addingTimeInterval(-10 * 86400) }

    func items() -> [VaultItem] {
        [
            .entry(title: "Mail", username: "jo@example.com", password: "Shared-CANARY-pw-1!", website: "https://mail.example.com", at: recent),
            .entry(title: "Forum", username: "jodoe", password: "Shared-CANARY-pw-1!", website: "http://forum.example.org", at: recent),
            .entry(title: "Bank", username: "jo@example.com", password: "password1", website: "https://bank.example.com", at: old),
            .entry(title: "Bank again", username: "JO@example.com", password: "x9$Lq2!vR7#tW4pZ", website: "https://bank.example.com/login", at: recent),
            .note(title: "Note", text: "note-CANARY-text", at: recent),
        ]
    }

    @Test func findsEveryKindOfProblem() {
        let r = HealthCheck.report(items: items(), asOf: asOf)
        #expect(r.counts.entries == 4)
        #expect(r.counts.notes == 1)
        #expect(r.counts.websites == 3)
        #expect(r.counts.usernames == 2)
        #expect(r.reused.map(\.title).sorted() == ["Forum", "Mail"])
        #expect(r.counts.reuseGroups == 1)
        #expect(Set(r.reused.map(\.group)).count == 1)
        #expect(r.insecure.map(\.title) == ["Forum"])
        #expect(r.stale.map(\.title) == ["Bank"])
        #expect(r.duplicates.map(\.title).sorted() == ["Bank", "Bank again"])
        #expect(r.weak.map(\.title).contains("Bank"))
        #expect(!r.weak.map(\.title).contains("Bank again"))
        #expect(r.scoreDistribution.reduce(0, +) == 4)
        let lengths = [19, 19, 9, 16]
        #expect(abs(r.averageLength - Double(lengths.reduce(0, +)) / 4) <= 0.05 + 1e-9)
        #expect(r.entries.first { $0.title == "Mail" }?.username == "j•••@example.com")
    }

    @Test func reuseGroupIdsAreFreshForEachReport() {
        let a = HealthCheck.report(items: items(), asOf: asOf).reused[0].group
        let b = HealthCheck.report(items: items(), asOf: asOf).reused[0].group
        #expect(a != b)
        #expect(a.hasPrefix("g-"))
    }

    @Test func reportCarriesNoSecret() throws {
        let r = HealthCheck.report(items: items(), asOf: asOf)
        let json = String(decoding: try JSONEncoder().encode(r), as: UTF8.self)
        #expect(!json.contains("CANARY"))
        #expect(!json.contains("password1"))
        #expect(!json.contains("jodoe"))
        // the model itself has no field of a secret type
        func hasSecret(_ v: Any) -> Bool {
            Mirror(reflecting: v).children.contains { $0.value is Secret || hasSecret($0.value) }
        }
        #expect(!hasSecret(r))
    }

    @Test func websitesLoseCredentialsAndQueries() {
        #expect(HealthCheck.safeWebsite("https://bob:CANARY-pw@example.com:8443/a/b?token=CANARY-t#x") == "https://example.com:8443/a/b")
        #expect(HealthCheck.safeWebsite("http://forum.example.org") == "http://forum.example.org")
        #expect(HealthCheck.safeWebsite("bob:CANARY@example.com/login?k=CANARY") == "example.com/login")
        let e = VaultItem.entry(title: "t", password: "p", website: "https://u:CANARY-pw@h.example.com/?s=CANARY-q")
        let json = String(decoding: try! JSONEncoder().encode(HealthCheck.report(items: [e], asOf: asOf)), as: UTF8.self)
        #expect(!json.contains("CANARY"))
    }

    @Test func masksUsernames() {
        #expect(HealthCheck.mask("jo@example.com") == "j•••@example.com")
        #expect(HealthCheck.mask("admin") == "a•••")
        #expect(HealthCheck.mask("") == "")
        #expect(HealthCheck.mask("@x") == "@•••")
    }
}
