import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Sealing for item-by-item sync (docs/vault-sync.md, "Blobs" and "Manifest").
///
/// ``sealedItemForSync(_:)`` makes the same `DOSVITEM` blob as ``Vault/sealedItem(_:)``
/// (so ``Vault/open(sealed:)`` opens both) with two differences:
/// - the plaintext (the item's canonical JSON) is padded with trailing spaces — JSON
///   whitespace, ignored by the decoder — to the next size bucket (``paddedLength(_:)``),
///   so a blob's size tells only the bucket, not field lengths or whether it is a
///   tombstone;
/// - the 12-byte nonce is synthetic: the first 12 bytes of
///   HMAC-SHA256(nonce key, 40-byte blob prefix ‖ padded plaintext). The same item
///   version always seals to the same bytes, so its blob name (a hash of the bytes) is
///   the same in a sync resumed after a crash and no orphan is left behind. A nonce
///   repeats only for an identical plaintext, which reveals only that equality.
///
/// ``syncManifestMAC(_:)`` authenticates a sync manifest with a key derived from the
/// master key, so a server cannot forge or alter one.
extension Vault {
    /// Smallest padded plaintext, in bytes.
    public static let syncPaddingMinimum = 512

    /// The padded plaintext length for `length` bytes: 512, then the next power of two
    /// up to 64 KiB, then the next multiple of 64 KiB.
    public static func paddedLength(_ length: Int) -> Int {
        if length <= syncPaddingMinimum { return syncPaddingMinimum }
        if length <= 65_536 {
            var b = syncPaddingMinimum
            while b < length { b *= 2 }
            return b
        }
        return (length + 65_535) / 65_536 * 65_536
    }

    private func syncKey(_ label: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: keys.item, info: Data("dossier-vault/\(label)/v1".utf8), outputByteCount: 32)
    }

    private var syncKeys: (nonce: SymmetricKey, manifest: SymmetricKey) {
        (syncKey("sync-nonce"), syncKey("sync-manifest"))
    }

    /// The id of the copy that keeps the losing version of a sync conflict: the first 16
    /// bytes of HMAC-SHA256(K_copy, `"conflict-copy\n"` ‖ item id ‖ `"\n"` ‖ the losing
    /// version's canonical JSON), K_copy = HKDF(item key, `dossier-vault/conflict-copy/v1`),
    /// as a version 5 UUID. Keyed, because the version holds its password: an unkeyed hash
    /// shown as an id would let anyone who knows the other fields test password guesses.
    /// The same on every device of the vault, and again after a crash.
    public func conflictCopyID(of loser: VaultItem) throws -> UUID {
        let seed = Data("conflict-copy\n\(loser.id.uuidString)\n".utf8) + (try Canonical.encode(loser))
        var b = Array(Data(HMAC<SHA256>.authenticationCode(for: seed, using: syncKey("conflict-copy"))).prefix(16))
        b[6] = (b[6] & 0x0F) | 0x50   // version 5 (name-based, SHA)
        b[8] = (b[8] & 0x3F) | 0x80   // RFC 4122 variant
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                           b[14], b[15]))
    }

    /// One item (or tombstone) sealed for sync: padded, deterministic (see above).
    public func sealedItemForSync(_ id: UUID) throws -> Data {
        guard let item = item(id) else { throw VaultError(.invalidInput, "no item with id \(id.uuidString)") }
        var out = Self.itemMagic
        out.append(Self.bytes(header.vaultID))
        out.append(Self.bytes(id))
        var plain = try Canonical.encode(item)
        plain.append(Data(repeating: 0x20, count: Self.paddedLength(plain.count) - plain.count))
        let mac = HMAC<SHA256>.authenticationCode(for: out + plain, using: syncKeys.nonce)
        let nonce = try AES.GCM.Nonce(data: Data(mac).prefix(12))
        let box = try AES.GCM.seal(plain, using: keys.item, nonce: nonce, authenticating: out)
        out.append(box.combined!)
        return out
    }

    /// HMAC-SHA256 of `data` with the vault's sync-manifest key (32 bytes).
    public func syncManifestMAC(_ data: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: data, using: syncKeys.manifest))
    }
}
