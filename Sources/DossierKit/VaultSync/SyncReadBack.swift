#if DOMAIN_VAULT
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Vault
import WebDAV

/// Checking what a sync wrote (docs/vault-sync.md, "A lagging server"): a server may
/// answer a PUT and show the bytes later, or never. Every blob pushed in a round is read
/// back before the manifest names it, and the manifest after it is written; a write the
/// server does not show after the read-back's patience is made again and read back
/// again; if it still does not show, the sync stops with exit 1 (nothing saved here).
extension VaultSyncEngine {
    /// Reads back each blob of `blobs` (path → rev); sends one again (plain `PUT`: any
    /// correct copy has the same bytes) when it is missing or other bytes.
    func confirmBlobs(_ blobs: [String: Data]) async throws {
        for (path, blob) in blobs.sorted(by: { $0.key < $1.key }) {
            // Never read past the blob's size: a longer answer is other bytes.
            let most = max(blob.count, 1)
            if try await client.readBack(path, attempts: 1, maxBytes: most, accept: { $0 == blob }) != nil { continue }
            try await client.put(path, data: blob)
            if try await client.readBack(path, maxBytes: most, accept: { $0 == blob }) != nil { continue }
            throw notKept(path)
        }
    }

    /// Reads back the manifest just written (`bytes`, version `version`): our bytes, or a
    /// later version another device wrote since, are fine. Otherwise (the server dropped
    /// or has not yet shown our write) it is written again over the tag the round read
    /// (`If-Match`), once, and read back.
    func confirmManifest(_ bytes: Data, version: Int, over tag: String?, vault: Vault) async throws {
        let name = VaultSyncEngine.manifestName
        let ours: (Data) -> Bool = { there in
            there == bytes || ((try? SyncManifest.decode(there, vault: vault))?.version ?? 0) > version
        }
        if try await client.readBack(name, accept: ours) != nil { return }
        do {
            try await client.put(name, data: bytes, precondition: tag.map { .ifMatch($0) } ?? .ifNoneMatchAny,
                                 contentType: "application/json")
        } catch let e as WebDAVError where e.httpStatus == 412 {
            // Something else is there now: our write landed late, or another device wrote.
        }
        if try await client.readBack(name, accept: ours) != nil { return }
        throw notKept(name)
    }

    func notKept(_ path: String) -> DossierError {
        DossierError("\(client.url(path).absoluteString): the server answered the upload but does not hold its bytes "
            + "(it dropped the write, or shows it late); nothing was saved on this device — run `dossier vault sync` "
            + "again, and if this repeats, check the server")
    }
}
#endif
