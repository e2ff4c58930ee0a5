import Foundation
import Testing
@testable import Vault

/// The extended item model: compatible encoding (vaults written by earlier code open),
/// round trips through both exporters, sync blobs, tombstones and history on update.
@Suite struct ItemModelTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// Built once: item ids are random.
    static let richItems = makeRich()
    static func rich() -> [VaultItem] { richItems }

    static func makeRich() -> [VaultItem] {
        var e = VaultItem.entry(
            title: "Mail", username: "jo@example.com", password: "now-Pw-1", website: "https://mail.example.com",
            details: "desc", at: t0)
        e.folder = "Work/Mail"
        e.totp = "otpauth://totp/m?secret=RICHTOTP"
        e.fields = [CustomField(name: "PIN", value: "4711", hidden: true), CustomField(name: "Plan", value: "gold"),
                    CustomField(name: "otp", value: "looks like totp"), CustomField(name: "", value: "unnamed")]
        e.uris = ["https://webmail.example.com", "https://m.example.com"]
        e.history = [PasswordHistoryEntry(password: "old-1", changed: t0.addingTimeInterval(-86400 * 30)),
                     PasswordHistoryEntry(password: "old-2", changed: t0.addingTimeInterval(-86400))]
        e.tags = ["mail", "work"]
        e.expires = t0.addingTimeInterval(86400 * 90)
        e.favorite = true; e.reprompt = true; e.excludeFromReports = true
        e.passwordChanged = t0.addingTimeInterval(-3600)
        var n = VaultItem.note(title: "Door", text: "1234", at: t0)
        n.fields = [CustomField(name: "where", value: "back")]
        n.favorite = true
        return [e, n, .entry(title: "Plain", username: "p", password: "plain-Pw", at: t0)]
    }

    func roundTrip(_ format: Exporter.Format) throws -> [VaultItem] {
        let data = try Exporter.export(Self.rich(), as: format)
        return try Importer.read(data: data, now: Self.t0).items.sorted { $0.title < $1.title }
    }

    @Test func keepassXMLRoundTripKeepsEveryField() throws {
        let back = try roundTrip(.keepassXML)
        let want = Self.rich().sorted { $0.title < $1.title }
        #expect(back.count == 3)
        for (b, w) in zip(back, want) {
            var w = w
            // KeePass has no note type, and names its reserved keys: the exporter's renames
            if w.kind == .note { w.kind = .entry; w.details = w.text; w.text = "" }
            w.fields = w.fields.enumerated().map { k, f in
                var f = f
                if f.name == "otp" { f.name = "Field otp" } else if f.name.isEmpty { f.name = "Field \(k + 1)" }
                return f
            }
            w.passwordChanged = w.modified   // KeePass XML has no password-change time
            #expect(b == w)
        }
    }

    @Test func bitwardenJSONRoundTripKeepsEveryFieldItCarries() throws {
        let back = try roundTrip(.bitwardenJSON)
        let want = Self.rich().sorted { $0.title < $1.title }
        for (b, w) in zip(back, want) {
            var w = w
            w.tags = []; w.expires = nil; w.excludeFromReports = false   // Bitwarden has no place for them …
            #expect(b == w)
        }
        // … and says so
        #expect(
            Exporter.notWritten(Self.rich(), as: .bitwardenJSON) == [
                "tags": 1, "expiry date": 1, "exclude-from-reports flag": 1
            ])
        #expect(Exporter.notWritten(Self.rich(), as: .keepassXML).isEmpty)
    }

    @Test func itemsWithoutNewDataEncodeAsBefore() throws {
        let plain = VaultItem.entry(title: "A", username: "u", password: "p", at: Self.t0)
        let json = try #require(String(data: try Canonical.encode(plain), encoding: .utf8))
        for key in [
            "totp", "fields", "uris", "history", "tags", "expires", "favorite", "reprompt", "excludeFromReports"
        ] {
            #expect(!json.contains("\"\(key)\""))
        }
        let rich = try Canonical.decoder().decode(VaultItem.self, from: try Canonical.encode(Self.rich()[0]))
        #expect(rich == Self.rich()[0])
    }

    @Test func aVaultWrittenByEarlierCodeOpensAndKeepsEveryItem() throws {
        let url = fixture("legacy/legacy-v1.dvault")
        let pw: Secret = "legacy fixture: correct horse battery staple"
        var v = try Vault.open(url: url, password: pw)
        #expect(v.items.map(\.title).sorted() == ["Legacy import", "Legacy mail", "Legacy note"])
        #expect(v.allItems.count == 4 && v.allItems.filter(\.deleted).count == 1)
        let imported = try v.find("Legacy import")
        #expect(
            imported.password.reveal == "legacy-Pass-3" && imported.details.reveal == "legacy details"
                && imported.folder == "Work")
        #expect(
            imported.totp.isEmpty && imported.fields.isEmpty && imported.history.isEmpty && imported.expires == nil
                && !imported.favorite)
        #expect(try v.find("Legacy note").text.reveal == "legacy note text")
        // unchanged items re-encode to the same JSON, and new data saves and reopens
        let before = try v.allItems.map { try Canonical.encode($0) }
        let dir = tempDir()
        v.url = dir.appendingPathComponent("copy.dvault")
        try v.update(imported.id, at: Self.t0) { $0.totp = "NEWTOTP"; $0.tags = ["t"] }
        try v.save()
        let again = try Vault.open(url: v.url!, password: pw)
        #expect(try again.find("Legacy import").totp.reveal == "NEWTOTP")
        #expect(
            try again.allItems.filter { $0.id != imported.id }.map { try Canonical.encode($0) }
                == before.enumerated()
                .filter { v.allItems[$0.offset].id != imported.id }.map(\.element))
    }

    @Test func sealedSyncBlobsCarryTheNewFields() throws {
        var v = try Vault.create(url: nil, password: "pw", kdf: .weakForTesting(), allowWeakKDF: true)
        for i in Self.rich() { v.upsert(i) }
        let other = try Vault.open(header: v.headerData, password: "pw")
        for i in v.allItems {
            #expect(try other.open(sealed: v.sealedItem(i.id)) == i)
            #expect(try other.open(sealed: v.sealedItemForSync(i.id)) == i)
        }
    }

    @Test func tombstonesWipeTheNewFieldsAndUpdatesKeepHistory() throws {
        var v = try Vault.create(url: nil, password: "pw", kdf: .weakForTesting(), allowWeakKDF: true)
        let e = Self.rich()[0]
        v.upsert(e)
        try v.update(e.id, at: Self.t0.addingTimeInterval(60)) { $0.password = "now-Pw-2" }
        let h = try #require(v.item(e.id)).history
        #expect(h.map(\.password.reveal) == ["old-1", "old-2", "now-Pw-1"])
        #expect(h.last?.changed == Self.t0.addingTimeInterval(60))
        try v.delete(e.id, at: Self.t0.addingTimeInterval(120))
        let t = try #require(v.item(e.id))
        #expect(
            t.deleted && t.totp.isEmpty && t.fields.isEmpty && t.uris.isEmpty && t.history.isEmpty && t.tags.isEmpty)
        #expect(t.expires == nil && !t.favorite && !t.reprompt && !t.excludeFromReports)
    }
}
