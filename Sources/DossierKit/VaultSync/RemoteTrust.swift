#if DOMAIN_VAULT
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Vault
import WebDAV

/// Nothing on the server is trusted by its name alone (docs/vault-sync.md, "A server that
/// keeps cut uploads"). Many WebDAV servers (wsgidav among them) write a PUT body straight
/// into the final file, so an upload cut short leaves a partial file under the real name,
/// and a retried `If-None-Match: *` PUT then answers 412 as if the upload had been made.
extension VaultSyncEngine {
    /// Name of the copy of the manifest PUT just before `manifest.json` itself, so a cut
    /// manifest upload can be recovered from it.
    public static let pendingManifestName = "manifest.pending.json"

    /// PUTs an immutable blob (its name carries the first 16 hex digits of its SHA-256).
    /// A 412 (something is there already) is checked: the bytes there must hash to `rev`;
    /// anything else (a cut upload) is replaced.
    /// Returns true when the write is proven (a strong entity tag in the answer, or the
    /// blob read after a 412); false when it must be read back (docs/vault-sync.md).
    func putBlob(_ path: String, _ blob: Data, rev: String) async throws -> Bool {
        do {
            return try await client.putStrongTag(path, data: blob, precondition: .ifNoneMatchAny) != nil
        } catch let e as WebDAVError where e.httpStatus == 412 {
            if let (there, _) = try await client.getIfExists(path), FileHash.sha256(there).hasPrefix(rev) {
                return true
            }
            return try await client.putStrongTag(path, data: blob) != nil
        }
    }

    /// PUTs `vault.header` only where there is none. A 412 is checked: this header is
    /// fine; a cut one (not a whole header) is replaced; a whole header of another key is
    /// left for the manifest check to report.
    func putHeader(_ header: Data) async throws {
        let name = VaultSyncEngine.headerName
        do {
            try await client.put(name, data: header, precondition: .ifNoneMatchAny)
        } catch let e as WebDAVError where e.httpStatus == 412 {
            guard let (there, tag) = try await client.getIfExists(name), there != header else { return }
            if !VaultSyncEngine.isWholeHeader(there) {
                try await client.put(name, data: header, precondition: tag.map { .ifMatch($0) } ?? .none)
            }
        }
    }

    /// True when `data` is a complete vault header: the 8-byte magic, a 4-byte big-endian
    /// length L, L bytes of JSON and a 32-byte MAC — exactly 12 + L + 32 bytes.
    static func isWholeHeader(_ data: Data) -> Bool {
        let d = Data(data)
        guard d.count >= 12, d.prefix(8) == Vault.magic else { return false }
        let len = d[8..<12].reduce(0) { $0 << 8 | Int($1) }
        return len > 0 && d.count == 12 + len + 32
    }

    /// True when `data` could be the start of a manifest this engine wrote (the encoder
    /// sorts keys, so every manifest begins `{"format":`) but is not a whole one: empty,
    /// or not valid JSON.
    static func looksCut(_ data: Data) -> Bool {
        let head = Data(#"{"format":"#.utf8)
        guard data.count < head.count ? head.starts(with: data) : data.starts(with: head) else { return false }
        return !Publisher.isJSON(data)
    }

    /// What `manifest.json` holds, when it is whole; when it is a cut upload, the pending
    /// copy (if that is whole, authentic and not a rollback) — `repaired` then says the
    /// manifest must be written again. `lost` says neither could be read: the round then
    /// starts as if the server had lost its manifest (every item here is pushed again).
    struct ServerManifest {
        var manifest: SyncManifest
        var tag: String?
        var repaired = false
        var lost = false
    }

    func readServerManifest(vault: Vault, state: SyncState) async throws -> ServerManifest? {
        guard let (data, etag) = try await client.getIfExists(VaultSyncEngine.manifestName) else { return nil }
        do {
            return ServerManifest(manifest: try readManifest(data, vault: vault, state: state), tag: etag)
        } catch let e as ManifestMACError {
            throw try await keyMismatch(vault) ?? e.error
        } catch let e as DossierError where VaultSyncEngine.looksCut(data) {
            if let (pending, _) = try await client.getIfExists(VaultSyncEngine.pendingManifestName),
               let m = try? readManifest(pending, vault: vault, state: state) {
                return ServerManifest(manifest: m, tag: etag, repaired: true)
            }
            _ = e
            return ServerManifest(manifest: .empty(vault.header.vaultID), tag: etag, repaired: true, lost: true)
        }
    }

    /// PUTs the manifest: first its pending copy (unconditional), then `manifest.json`
    /// over the version read (`If-Match`, or `If-None-Match: *` when there was none).
    /// A 412 is re-checked: when the server holds exactly these bytes, the answer to our
    /// own PUT was lost and the write is done; otherwise it is thrown (another device).
    /// Returns true when the write is proven (a strong entity tag in the answer, or our
    /// bytes read after a 412); false when it must be read back.
    func putManifest(_ bytes: Data, over tag: String?) async throws -> Bool {
        try await client.put(VaultSyncEngine.pendingManifestName, data: bytes, contentType: "application/json")
        do {
            return try await client.putStrongTag(VaultSyncEngine.manifestName, data: bytes,
                                                 precondition: tag.map { .ifMatch($0) } ?? .ifNoneMatchAny,
                                                 contentType: "application/json") != nil
        } catch let e as WebDAVError where e.httpStatus == 412 {
            if let (there, _) = try await client.getIfExists(VaultSyncEngine.manifestName), there == bytes {
                return true
            }
            throw e
        }
    }
}
#endif
