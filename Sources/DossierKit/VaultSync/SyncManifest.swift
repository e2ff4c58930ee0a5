#if DOMAIN_VAULT
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Vault
import TextBasics

/// The server's `manifest.json` for vault sync: which blob holds each item's current
/// version, authenticated with a key only the master password gives, and a version
/// number that only grows (docs/vault-sync.md, "Manifest").
///
/// ```
/// {"format":2,"items":{"<ID>":"<rev>",…},"mac":"<64 hex>","vaultID":"<UUID>","version":7}
/// ```
/// `mac` = hex HMAC-SHA256(sync-manifest key, `"dossier-vault-sync-manifest\n"` ‖ the same
/// JSON without the `mac` member: sorted keys, no whitespace, no escaped `/`). Format 1
/// (no `version`, no `mac`) is what earlier versions wrote; it is read only by a device
/// that has never seen a format 2 manifest from this server, and replaced by format 2.
struct SyncManifest: Equatable {
    static let macContext = Data("dossier-vault-sync-manifest\n".utf8)

    var vaultID: UUID
    var items: [String: String]
    var version: Int
    /// False for a format 1 manifest (no MAC).
    var authenticated: Bool

    private struct Wire: Codable {
        var format: Int
        var items: [String: String]
        var mac: String?
        var vaultID: UUID
        var version: Int?
    }

    static func empty(_ vaultID: UUID) -> SyncManifest {
        SyncManifest(vaultID: vaultID, items: [:], version: 0, authenticated: true)
    }

    private static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    /// The bytes to PUT: format 2 with its MAC.
    func encoded(with vault: Vault) throws -> Data {
        var wire = Wire(format: 2, items: items, mac: nil, vaultID: vaultID, version: version)
        let body = try Self.encoder().encode(wire)
        wire.mac = vault.syncManifestMAC(Self.macContext + body).hexString
        return try Self.encoder().encode(wire)
    }

    enum ReadError: Error { case notAManifest, otherVault, badMAC, unsupported(Int) }

    /// Parses and authenticates manifest bytes with `vault`'s key.
    static func decode(_ data: Data, vault: Vault) throws -> SyncManifest {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: data) else { throw ReadError.notAManifest }
        guard wire.vaultID == vault.header.vaultID else { throw ReadError.otherVault }
        switch wire.format {
        case 1:
            return SyncManifest(vaultID: wire.vaultID, items: wire.items, version: 0, authenticated: false)
        case 2:
            guard let mac = wire.mac, let version = wire.version, version >= 1 else { throw ReadError.badMAC }
            var bare = wire
            bare.mac = nil
            let body = try encoder().encode(bare)
            let expected = vault.syncManifestMAC(macContext + body).hexString
            // Constant-time enough for a public MAC check: compare all bytes.
            guard mac.utf8.count == expected.utf8.count,
                  zip(mac.utf8, expected.utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else { throw ReadError.badMAC }
            return SyncManifest(vaultID: wire.vaultID, items: wire.items, version: version, authenticated: true)
        default:
            throw ReadError.unsupported(wire.format)
        }
    }
}
#endif
