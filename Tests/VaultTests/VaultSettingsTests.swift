import Crypto
import Foundation
import Testing
@testable import Vault

/// Server settings sealed in the vault body (payload format 2), and compatibility with
/// format-1 vaults that have none.
@Suite struct VaultSettingsTests {
    let password: Secret = "correct horse battery staple"
    let davPassword = "dav-canary-Pw-7731"

    func vault(_ url: URL? = nil) throws -> Vault {
        var v = try Vault.create(url: url, password: password, kdf: .weakForTesting(), allowWeakKDF: true)
        v.upsert(.entry(title: "Mail", username: "jo", password: "s3cret-mail", website: "https://mail.example.com",
                        at: Date(timeIntervalSince1970: 1_700_000_000)))
        return v
    }

    func settings(auto: Bool = true) -> VaultSettings {
        VaultSettings(webdavURL: "https://dav.example.org/v/", webdavUser: "al", webdavPassword: Secret(davPassword),
                      autoSync: auto, modified: Date(timeIntervalSince1970: 1_700_000_500))
    }

    /// Decrypts a vault file's body by the documented layout (docs/vault-format.md).
    func plaintextBody(_ data: Data, kdf: KDFParameters) throws -> [String: Any] {
        let keys = VaultKeys(master: try kdf.deriveMasterKey(password))
        let len = data[8..<12].reduce(0) { $0 << 8 | Int($1) }
        let aad = data.prefix(12 + len + 32)
        let plain = try AES.GCM.open(
            try AES.GCM.SealedBox(combined: data.dropFirst(12 + len + 32)), using: keys.body, authenticating: aad)
        return try JSONSerialization.jsonObject(with: plain) as! [String: Any]
    }

    /// A vault file built by hand with the given payload JSON (the format-1 writer's layout).
    func handMade(payload: String, like v: Vault) throws -> Data {
        let keys = VaultKeys(master: try v.header.kdf.deriveMasterKey(password))
        var out = v.headerData
        out.append(try AES.GCM.seal(Data(payload.utf8), using: keys.body, authenticating: out).combined!)
        return out
    }

    @Test func settingsRoundTripSealedAndNeverAsItems() throws {
        let dir = tempDir()
        let url = dir.appendingPathComponent("v.dvault")
        var v = try vault(url)
        v.settings = settings()
        try v.save()
        let raw = try Data(contentsOf: url)
        // Sealed: neither the password nor the URL nor the user is readable in the file.
        for s in [davPassword, "dav.example.org", "\"al\""] { #expect(raw.range(of: Data(s.utf8)) == nil) }
        let w = try Vault.open(url: url, password: password)
        #expect(w.settings == v.settings)
        #expect(w.settings?.webdavPassword.reveal == davPassword)
        #expect(w.settings?.autoSync == true)
        // Not an item: not listed, not merged, not in the report, no sealed blob for it.
        #expect(w.items.count == 1 && w.allItems.count == 1)
        #expect(w.items.allSatisfy { $0.title == "Mail" })
        let report = HealthCheck.report(items: w.items, asOf: Date(timeIntervalSince1970: 1_700_100_000))
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(!json.contains(davPassword) && !json.contains("dav.example.org"))
        // Descriptions never show the password.
        #expect(!String(describing: w.settings!).contains(davPassword))
        #expect(!String(reflecting: w.settings!).contains(davPassword))
    }

    @Test func payloadIsFormat2OnlyWithSettings() throws {
        var v = try vault()
        let plain = try plaintextBody(try v.encoded(), kdf: v.header.kdf)
        #expect(plain["format"] as? Int == 1)
        #expect(plain["settings"] == nil)
        v.settings = settings(auto: false)
        let with = try plaintextBody(try v.encoded(), kdf: v.header.kdf)
        #expect(with["format"] as? Int == 2)
        let s = try #require(with["settings"] as? [String: Any])
        #expect(s["webdavURL"] as? String == "https://dav.example.org/v/")
        #expect(s["webdavUser"] as? String == "al")
        #expect(s["webdavPassword"] as? String == davPassword)
        #expect(s["autoSync"] as? Bool == false)
        #expect(s["modified"] as? Int == 1_700_000_500_000)
        // Removing the settings goes back to format 1.
        v.settings = nil
        #expect(try plaintextBody(try v.encoded(), kdf: v.header.kdf)["format"] as? Int == 1)
    }

    @Test func oldFormat1VaultWithoutSettingsStillOpens() throws {
        let v = try vault()
        let data = try handMade(payload: #"{"format":1,"items":[]}"#, like: v)
        let w = try Vault.open(data: data, password: password)
        #expect(w.settings == nil)
        #expect(w.items.isEmpty)
        #expect(w.header == v.header)
    }

    @Test func unknownPayloadFormatIsRefused() throws {
        let v = try vault()
        let data = try handMade(payload: #"{"format":3,"items":[]}"#, like: v)
        do {
            _ = try Vault.open(data: data, password: password)
            Issue.record("format 3 opened")
        } catch let e as VaultError {
            #expect(e.kind == .unsupported)
        }
    }

    @Test func mergeAndSealedItemsLeaveSettingsAlone() throws {
        var a = try vault()
        a.settings = settings()
        var b = try Vault.open(data: try a.encoded(), password: password)
        b.settings = nil
        b.upsert(.note(title: "N", text: "t", at: Date(timeIntervalSince1970: 1_700_000_900)))
        try a.merge(b)
        #expect(a.settings == settings())
        try b.merge(a)
        #expect(b.settings == nil)
        for item in a.allItems {
            let blob = try a.sealedItem(item.id)
            #expect(try b.open(sealed: blob) == item)
        }
    }
}
