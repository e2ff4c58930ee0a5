import Foundation
import Testing
@testable import Vault

@Suite struct HealthReportTests {
    let asOf = Date(timeIntervalSince1970: 1_750_000_000)   // 2025-06-15
    var old: Date { asOf.addingTimeInterval(-400 * 86400) }
    var recent: Date { asOf.addingTimeInterval(-10 * 86400) }

    func items() -> [VaultItem] {
        [
            .entry(
                title: "Mail", username: "jo@example.com", password: "Shared-CANARY-pw-1!",
                website: "https://mail.example.com", at: recent),
            .entry(
                title: "Forum", username: "jodoe", password: "Shared-CANARY-pw-1!", website: "http://forum.example.org",
                at: recent),
            .entry(
                title: "Bank", username: "jo@example.com", password: "password1", website: "https://bank.example.com",
                at: old),
            .entry(
                title: "Bank again", username: "JO@example.com", password: "x9$Lq2!vR7#tW4pZ",
                website: "https://bank.example.com/login", at: recent),
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

    @Test func groupIdsAreOrdinalAndTheSameInEveryReport() throws {
        let a = HealthCheck.report(items: items(), asOf: asOf)
        let b = HealthCheck.report(items: items().reversed(), asOf: asOf)
        #expect(a.reused.map(\.group) == ["R1", "R1"])
        #expect(a.duplicates.map(\.group).allSatisfy { $0.contains("D1") })
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        let ja = String(decoding: try enc.encode(a), as: UTF8.self),
            jb = String(decoding: try enc.encode(b), as: UTF8.self)
        #expect(ja == jb)
        // a second reuse group, first in title order, takes R1
        var more = items()
        more.append(.entry(title: "Aardvark", password: "zz-Other-Shared-77", at: recent))
        more.append(.entry(title: "Zebra", password: "zz-Other-Shared-77", at: recent))
        let c = HealthCheck.report(items: more, asOf: asOf)
        #expect(c.reused.map(\.title) == ["Aardvark", "Zebra", "Forum", "Mail"])
        #expect(c.reused.map(\.group) == ["R1", "R1", "R2", "R2"])
    }

    @Test func problemsAreSortedBySeverity() {
        let r = HealthCheck.report(items: items(), asOf: asOf)
        let ranks = r.problems.map { Severity(rawValue: $0.severity)!.rank }
        #expect(ranks == ranks.sorted())
        #expect(r.problems.first?.severity == "critical")
        #expect(r.entries.first { $0.title == "Bank" }?.severity == "high")
        #expect(r.counts.critical == 2)
        #expect(r.counts.critical + r.counts.high + r.counts.medium + r.counts.low + r.counts.ok == r.counts.entries)
    }

    @Test func staleAgeIsConfigurable() {
        let r = HealthCheck.report(items: items(), asOf: asOf, staleDays: 5)
        #expect(r.stale.count == 4)
        #expect(r.stale[0].reason.contains("not changed in over 5 days"))
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
        #expect(
            HealthCheck.safeWebsite("https://bob:CANARY-pw@example.com:8443/a/b?token=CANARY-t#x")
                == "https://example.com:8443/a/b")
        #expect(HealthCheck.safeWebsite("http://forum.example.org") == "http://forum.example.org")
        #expect(HealthCheck.safeWebsite("bob:CANARY@example.com/login?k=CANARY") == "example.com/login")
        let e = VaultItem.entry(title: "t", password: "p", website: "https://u:CANARY-pw@h.example.com/?s=CANARY-q")
        let json = String(
            decoding: try! JSONEncoder().encode(HealthCheck.report(items: [e], asOf: asOf)), as: UTF8.self)
        #expect(!json.contains("CANARY"))
    }

    @Test func noTextDerivedFromAURLKeepsUserInfoQueryOrFragment() throws {
        let bad = ["https://u:CANARY-a@exa mple.com/x?t=CANARY-b#CANARY-c", "u:CANARY-a@host.example/p?CANARY-b",
                   "https://u:CANARY-a@h.example.com/?q=CANARY-b#CANARY-c", "h.example.com/a?CANARY-b#CANARY-c",
                   "ftp://CANARY-a@h.example.com#CANARY-c", "u:p?CANARY@h.example.com"]
        for url in bad {
            #expect(!URLRedaction.website(url).contains("CANARY"), "\(url)")
            #expect(!URLRedaction.host(url).contains("CANARY"), "\(url)")
            #expect(!URLRedaction.text("Login " + url + " now").contains("CANARY"), "\(url)")
        }
        #expect(URLRedaction.host("https://u:CANARY@exa mple.com/x") == "exa mple.com")
        #expect(
            URLRedaction.text("Mail at https://u:CANARY@mail.example.com/?t=1 (work)")
                == "Mail at https://mail.example.com/ (work)")
        #expect(URLRedaction.text("What? Why #1 / jo@example.com") == "What? Why #1 / jo@example.com")
        // a title holding a URL and an untitled import of an unparsable URL
        let e = VaultItem.entry(title: "see https://u:CANARY-t@h.example.com/?k=CANARY-q#CANARY-f", password: "p",
                                website: "https://u:CANARY-w@exa mple.com/?CANARY-q")
        let r = HealthCheck.report(items: [e], asOf: asOf)
        #expect(!String(decoding: try JSONEncoder().encode(r), as: UTF8.self).contains("CANARY"))
        let csv =
            "name,url,username,password\n,https://u:CANARY-pw@exa mple.com/login?token=CANARY-tok#CANARY-f,jo,pw\n"
        let imported = try Importer.read(data: Data(csv.utf8)).items
        #expect(imported[0].title == "exa mple.com")
    }

    /// Both readings of a URL write its port as a browser does: `https://h:0443/x` went
    /// through URLComponents as `https://h:443/x`, while a URL only the browser parser
    /// takes dropped the default port: one website shown two ways.
    @Test func aWebsitesPortIsWrittenAsTheBrowserWritesIt() {
        let same = ["https://h.example/x", "https://h.example:443/x", "https://h.example:0443/x",
                    "HTTPS://H.example:443/x"]
        for url in same {
            #expect(URLRedaction.website(url) == "https://h.example/x", "\(url)")
        }
        #expect(URLRedaction.website("http://h.example:80/") == "http://h.example/")
        #expect(URLRedaction.website("http://h.example:443/") == "http://h.example:443/")
        #expect(URLRedaction.website("https://h.example:08443/a") == "https://h.example:8443/a")
        #expect(URLRedaction.website("ftp://h.example:21/f") == "ftp://h.example/f")
        #expect(URLRedaction.website("gopher://h.example:70/") == "gopher://h.example:70/")
        // the browser-only reading (a backslash) agrees
        #expect(URLRedaction.website("https:\\\\h.example:0443\\x") == "https://h.example/x")
    }

    @Test func masksUsernames() {
        #expect(HealthCheck.mask("jo@example.com") == "j•••@example.com")
        #expect(HealthCheck.mask("admin") == "a•••")
        #expect(HealthCheck.mask("") == "")
        #expect(HealthCheck.mask("@x") == "@•••")
    }
}
