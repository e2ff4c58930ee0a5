import Foundation
import Testing
@testable import Vault

@Suite struct VaultFileTests {
    let password: Secret = "correct horse battery staple"

    func small(_ url: URL? = nil) throws -> Vault {
        var v = try Vault.create(url: url, password: password, kdf: .weakForTesting(), allowWeakKDF: true)
        v.upsert(
            .entry(
                title: "Mail", username: "jo@example.com", password: "s3cret-mail", website: "https://mail.example.com",
                at: Date(timeIntervalSince1970: 1_700_000_000)))
        v.upsert(.note(title: "Wifi", text: "wifi-key-42", at: Date(timeIntervalSince1970: 1_700_000_100)))
        return v
    }

    @Test func roundTripKeepsEveryItem() throws {
        let dir = tempDir()
        let url = dir.appendingPathComponent("v.dvault")
        let v = try small(url)
        try v.save()
        let w = try Vault.open(url: url, password: password)
        #expect(w.allItems == v.allItems)
        #expect(w.header == v.header)
        #expect(w.entries.first?.password.reveal == "s3cret-mail")
        #expect(w.notes.first?.text.reveal == "wifi-key-42")
        // nothing left behind but the vault
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["v.dvault"])
    }

    @Test func standardKDFMeetsOWASPAndWeakIsRefused() throws {
        #expect(KDFParameters.standard().meetsMinimum)
        #expect(KDFParameters.pbkdf2().meetsMinimum)
        #expect(!KDFParameters.weakForTesting().meetsMinimum)
        #expect(throws: VaultError.self) { try Vault.create(url: nil, password: "x", kdf: .weakForTesting()) }
    }

    @Test func wrongPasswordIsAClearError() throws {
        let data = try small().encoded()
        do {
            _ = try Vault.open(data: data, password: "Correct horse battery staple")
            Issue.record("opened with a wrong password")
        } catch let e as VaultError {
            #expect(e.kind == .wrongPassword)
            #expect(!e.description.contains("orse"))
        }
    }

    @Test func everySingleByteTamperIsDetected() throws {
        let data = try small().encoded()
        #expect(data.count < 2000)
        for k in 0..<data.count {
            var t = data
            t[k] ^= 0x01
            #expect(throws: VaultError.self, "byte \(k)") { try Vault.open(data: t, password: password) }
        }
    }

    @Test func everyTruncationIsDetected() throws {
        let data = try small().encoded()
        for n in 0..<data.count {
            #expect(throws: VaultError.self, "length \(n)") { try Vault.open(data: data.prefix(n), password: password) }
        }
        var extra = data
        extra.append(0)
        #expect(throws: VaultError.self) { try Vault.open(data: extra, password: password) }
    }

    @Test func pbkdf2VaultsOpen() throws {
        var v = try Vault.create(url: nil, password: password, kdf: .pbkdf2())
        v.upsert(.note(title: "n", text: "t"))
        let w = try Vault.open(data: try v.encoded(), password: password)
        #expect(w.allItems == v.allItems)
        #expect(w.header.kdf.algorithm == .pbkdf2Sha256)
    }

    @Test func mergeOfDivergedCopiesKeepsEveryChange() throws {
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        var base = try Vault.create(url: nil, password: password, kdf: .weakForTesting(), allowWeakKDF: true)
        let a1 = VaultItem.entry(title: "A", password: "pa", at: t0)
        let b1 = VaultItem.entry(title: "B", password: "pb", at: t0)
        let c1 = VaultItem.entry(title: "C", password: "pc", at: t0)
        let d1 = VaultItem.note(title: "D", text: "td", at: t0)
        for i in [a1, b1, c1, d1] { base.upsert(i) }
        let bytes = try base.encoded()
        var left = try Vault.open(data: bytes, password: password)
        var right = try Vault.open(data: bytes, password: password)
        // left: edits A, deletes C, adds E; right: edits B, edits D later than anything, adds F
        try left.update(a1.id, at: t0 + 10) { $0.password = "pa2" }
        try left.delete(c1.id, at: t0 + 20)
        let e = VaultItem.entry(title: "E", password: "pe", at: t0 + 30)
        left.upsert(e)
        try right.update(b1.id, at: t0 + 15) { $0.username = "bob" }
        try right.update(d1.id, at: t0 + 40) { $0.text = "td2" }
        let f = VaultItem.note(title: "F", text: "tf", at: t0 + 50)
        right.upsert(f)

        var l = left, r = right
        let reportL = try l.merge(right)
        try r.merge(left)
        #expect(l.allItems == r.allItems, "merge is symmetric")
        #expect(l.item(a1.id)?.password.reveal == "pa2")
        #expect(l.item(b1.id)?.username == "bob")
        #expect(l.item(c1.id)?.deleted == true)
        #expect(l.item(d1.id)?.text.reveal == "td2")
        #expect(l.item(e.id) != nil && l.item(f.id) != nil)
        #expect(l.items.map(\.title).sorted() == ["A", "B", "D", "E", "F"])
        #expect(Set(reportL.added) == [f.id])
        #expect(Set(reportL.updated) == [b1.id, d1.id])
        // merging again changes nothing
        #expect(!(try l.merge(r)).changed)
    }

    @Test func concurrentEditsOfOneItemKeepTheLaterAndTombstoneWinsATie() throws {
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        var a = try Vault.create(url: nil, password: password, kdf: .weakForTesting(), allowWeakKDF: true)
        let x = VaultItem.entry(title: "X", password: "p", at: t0)
        a.upsert(x)
        var b = try Vault.open(data: try a.encoded(), password: password)
        var c = b
        try a.update(x.id, at: t0 + 5) { $0.title = "older edit" }
        try b.update(x.id, at: t0 + 9) { $0.title = "newer edit" }
        try c.delete(x.id, at: t0 + 9)
        try a.merge(b)
        #expect(a.item(x.id)?.title == "newer edit")
        try a.merge(c)
        #expect(a.item(x.id)?.deleted == true)
    }

    @Test func sealedItemsRoundTripAndRejectTampering() throws {
        let v = try small()
        let other = try Vault.open(header: v.headerData, password: password)
        for item in v.allItems {
            let blob = try v.sealedItem(item.id)
            #expect(try other.open(sealed: blob) == item)
            #expect(!String(decoding: blob, as: UTF8.self).contains("s3cret"))
            for k in stride(from: 0, to: blob.count, by: 3) {
                var t = blob
                t[k] ^= 0x80
                #expect(throws: VaultError.self) { try other.open(sealed: t) }
            }
        }
        #expect(throws: VaultError.self) { try Vault.open(header: v.headerData, password: "nope") }
    }

    @Test func secretsNeverPrint() throws {
        let v = try small()
        let item = v.entries[0]
        let printed = "\(item) \(String(describing: item)) \(String(reflecting: item)) \(v)"
        #expect(!printed.contains("s3cret-mail"))
        #expect(Secret("abc").description == "•••")
        #expect("\(password)" == "•••")
    }

    @Test func saveReplacesAtomicallyAndKeepsTheOldFileOnFailure() throws {
        let dir = tempDir()
        let url = dir.appendingPathComponent("v.dvault")
        var v = try small(url)
        try v.save()
        let before = try Data(contentsOf: url)
        v.url = dir.appendingPathComponent("missing-folder/v.dvault")
        #expect(throws: VaultError.self) { try v.save() }
        #expect(try Data(contentsOf: url) == before)
        v.url = url
        v.upsert(.note(title: "more", text: "x"))
        try v.save()
        #expect(try Vault.open(url: url, password: password).allItems.count == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["v.dvault"])
    }
}
