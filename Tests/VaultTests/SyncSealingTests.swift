import Foundation
import Testing
@testable import Vault

/// Sealing for sync (SyncSealing.swift): padded to size buckets, deterministic, readable
/// by the ordinary `open(sealed:)`, and a manifest MAC only the vault's key can make.
@Suite struct SyncSealingTests {
    let password: Secret = "correct horse battery staple"

    func vault() throws -> Vault {
        var v = try Vault.create(url: nil, password: password, kdf: .weakForTesting(), allowWeakKDF: true)
        v.upsert(.entry(title: "A", username: "u", password: "p", at: Date(timeIntervalSince1970: 1_700_000_000)))
        v.upsert(
            .entry(
                title: String(repeating: "long title ", count: 12), username: "someone@example.org",
                password: "a much longer password than the other", at: Date(timeIntervalSince1970: 1_700_000_001)))
        let gone = VaultItem.note(title: "Gone", text: "x", at: Date(timeIntervalSince1970: 1_700_000_002))
        v.upsert(gone)
        try v.delete(gone.id, at: Date(timeIntervalSince1970: 1_700_000_003))
        return v
    }

    @Test func paddedLengthsAreBuckets() {
        #expect(Vault.paddedLength(1) == 512)
        #expect(Vault.paddedLength(512) == 512)
        #expect(Vault.paddedLength(513) == 1024)
        #expect(Vault.paddedLength(65_536) == 65_536)
        #expect(Vault.paddedLength(65_537) == 131_072)
        #expect(Vault.paddedLength(200_000) == 262_144)
    }

    @Test func blobsOfSmallItemsAndTombstonesHaveOneSizeAndOpenAsUsual() throws {
        let v = try vault()
        let other = try Vault.open(header: v.headerData, password: password)
        var sizes = Set<Int>()
        for item in v.allItems {
            let blob = try v.sealedItemForSync(item.id)
            sizes.insert(blob.count)
            #expect(try other.open(sealed: blob) == item)
            #expect(try v.sealedItemForSync(item.id) == blob)          // deterministic
            var t = blob
            t[t.count - 1] ^= 1
            #expect(throws: VaultError.self) { try other.open(sealed: t) }
        }
        #expect(sizes == [40 + 512 + 28])
    }

    @Test func manifestMACDependsOnTheKeyAndTheBytes() throws {
        let v = try vault()
        let same = try Vault.open(header: v.headerData, password: password)
        let stranger = try Vault.create(url: nil, password: password, kdf: .weakForTesting(), allowWeakKDF: true)
        let data = Data("{\"format\":2}".utf8)
        #expect(v.syncManifestMAC(data) == same.syncManifestMAC(data))
        #expect(v.syncManifestMAC(data).count == 32)
        #expect(v.syncManifestMAC(data) != stranger.syncManifestMAC(data))
        #expect(v.syncManifestMAC(data) != v.syncManifestMAC(Data("{\"format\":3}".utf8)))
    }
}
