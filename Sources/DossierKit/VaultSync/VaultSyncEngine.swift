#if DOMAIN_VAULT
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Vault
import WebDAV

/// Item-by-item sync of a vault with a WebDAV folder (see docs/vault-sync.md).
///
/// Server layout (everything but the manifest is immutable once written):
/// ```
/// <folder>/vault.header                 the vault's headerData (KDF salt, header MAC) — lets a new
///                                       device derive the keys
/// <folder>/items/<UUID>-<rev>.item      one sealed, padded item (Vault.sealedItemForSync);
///                                       rev = first 16 hex digits of SHA-256(blob)
/// <folder>/manifest.json                SyncManifest: {"format":2,"items":{…},"mac":…,"vaultID":…,"version":N}
/// ```
/// A round: GET the manifest (authenticated; a version below the one this device last
/// saw is a rollback and stops the sync); GET the blobs whose revision differs from the
/// one this device last saw; merge (per item, by modification time, tombstones
/// included); PUT blobs for items changed here (`If-None-Match: *`, never overwriting);
/// PUT the manifest with version + 1 and `If-Match` on the version read (`If-None-Match:
/// *` the first time). A 412 means another device synced in between: nothing of theirs
/// was overwritten, and the round starts again from their manifest (at most 4 rounds).
/// Then the superseded blobs are deleted.
///
/// The engine writes nothing locally: the caller saves the vault, then the returned
/// ``Report/state`` (that order makes every crash point safe; see "Commit order").
public struct VaultSyncEngine: Sendable {
    public static let manifestName = "manifest.json"
    public static let headerName = "vault.header"
    public static let maxRounds = 4
    /// Blobs in `items/` that no manifest names are deleted when older than this.
    public static let orphanAge: TimeInterval = 3600
    /// Every this many manifest versions, a sync that wrote one also sweeps orphans.
    public static let sweepEvery = 8

    public let client: WebDAVClient
    /// The local sync state file (`<vault>.sync.json`).
    public let stateURL: URL

    public init(client: WebDAVClient, stateURL: URL) {
        self.client = client
        self.stateURL = stateURL
    }

    /// One item edited on both sides since the last sync.
    public struct Conflict: Sendable {
        public var id: UUID
        /// Which version the item now holds: "this device" or "server".
        public var kept: String
        /// The id of the copy that keeps the other version (nil when the other version
        /// was a deletion, or both were equal).
        public var copy: UUID?
    }

    public struct Report: Sendable {
        public var pulled: [UUID] = []
        public var pushed: [UUID] = []
        public var conflicts: [Conflict] = []
        /// Blobs that could not be read (missing or damaged): their items were left as
        /// they are on both sides and are tried again at the next sync.
        public var skipped: [String] = []
        /// Orphan blobs deleted by the sweep.
        public var orphansRemoved = 0
        /// Rounds run (more than 1 when another device synced at the same time).
        public var rounds = 0
        public var requests = ""
        /// What to save as the state file once the vault is saved.
        public var state = SyncState(url: "")
    }

    /// Syncs `vault` with the server. Writes nothing locally: the caller saves the vault
    /// and then `report.state` (in that order).
    public func sync(_ vault: inout Vault, now: Date = Date()) async throws -> Report {
        var report = Report()
        let here = client.baseURL.absoluteString
        var state = try SyncState.load(stateURL) ?? SyncState(url: here)
        // Kept whatever the server: it is this device's trust choice, not server state.
        let rememberedCAFile = state.caFile
        if state.url != here {
            // Another server: start from nothing known.
            state = SyncState(url: here)
        }
        var uploaded: Set<String> = []
        for round in 1...VaultSyncEngine.maxRounds {
            report.rounds = round
            // 1. Read and check the server's manifest.
            var remote: SyncManifest
            var tag: String?
            var repair = false
            let read = try await readServerManifest(vault: vault, state: state)
            if let read, !read.lost {
                remote = read.manifest
                tag = read.tag
                repair = read.repaired
            } else {
                // Nothing there (a new folder, or the server lost it), or only a cut
                // upload of it: every item here is pushed again, and the version goes on
                // from the highest seen.
                remote = .empty(vault.header.vaultID)
                tag = read?.tag
                repair = read != nil
                state.items = [:]
                try await client.mkcol("")
                try await client.mkcol("items")
                try await putHeader(vault.headerData)
            }

            // 2. Pull what changed there since this device last saw it. A blob that is
            //    missing or does not open is skipped (reported), not fatal.
            var blocked = Set<String>()
            // An item the manifest does not name (the server lost it) counts as changed here.
            let localChanged = Set(vault.allItems.filter { item in
                    state.items[item.id.uuidString]?.modified != SyncState.ms(item.modified)
                        || remote.items[item.id.uuidString] == nil
            }.map(\.id))
            var remoteVersions: [UUID: VaultItem] = [:]
            for (key, rev) in remote.items.sorted(by: { $0.key < $1.key }) where state.items[key]?.rev != rev {
                guard let id = UUID(uuidString: key) else { continue }
                let path = VaultSyncEngine.blobPath(key, rev)
                guard let (blob, _) = try await client.getIfExists(path) else {
                    blocked.insert(key)
                    report.skipped.append("\(client.url(path).absoluteString): missing on the server")
                    continue
                }
                do { remoteVersions[id] = try vault.open(sealed: blob) } catch let e as VaultError {
                    blocked.insert(key)
                    report.skipped.append("\(client.url(path).absoluteString): \(e.message)")
                }
            }

            // 3. Merge: last modification wins; an item edited on both sides keeps the
            //    losing version as a copy, so no edit is lost.
            var pushIDs = localChanged.filter { !blocked.contains($0.uuidString) }
            for (id, theirs) in remoteVersions.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                let mine = vault.item(id)
                if mine == theirs { pushIDs.remove(id); continue }
                if !localChanged.contains(id) || mine == nil {
                    vault.upsert(theirs)
                    pushIDs.remove(id)
                    report.pulled.append(id)
                    continue
                }
                // Both changed.
                vault.merge(items: [theirs])
                let winner = vault.item(id)!
                let loser = winner == theirs ? mine! : theirs
                if winner == theirs { pushIDs.remove(id); report.pulled.append(id) }
                var copyID: UUID? = nil
                let handled = report.conflicts.contains { $0.id == id }   // an earlier round kept it already
                if !loser.deleted && !handled {
                    let copy = try VaultSyncEngine.conflictCopy(of: loser, in: vault)
                    if vault.item(copy.id) == nil { vault.upsert(copy) }
                    pushIDs.insert(copy.id)
                    copyID = copy.id
                }
                if !handled {
                    report.conflicts.append(
                        Conflict(id: id, kept: winner == theirs ? "server" : "this device", copy: copyID))
                }
            }

            // 4. Push: names are the blob's hash, never overwritten.
            var next = remote
            var superseded: [String] = []
            var pushed: [UUID] = []
            var sent: [String: Data] = [:]
            for id in pushIDs.sorted(by: { $0.uuidString < $1.uuidString }) {
                let blob = try vault.sealedItemForSync(id)
                let rev = String(FileHash.sha256(blob).prefix(16))
                let key = id.uuidString
                if remote.items[key] == rev { continue }
                // The name carries the bytes' hash; what a 412 finds there is checked.
                let proven = try await putBlob(VaultSyncEngine.blobPath(key, rev), blob, rev: rev)
                uploaded.insert(VaultSyncEngine.blobPath(key, rev))
                if !proven { sent[VaultSyncEngine.blobPath(key, rev)] = blob }
                if let old = remote.items[key] { superseded.append(VaultSyncEngine.blobPath(key, old)) }
                next.items[key] = rev
                pushed.append(id)
            }

            // Writes the server did not prove with a strong tag are read back before the
            // manifest names them (a server may drop or delay a write).
            try await confirmBlobs(sent)

            // 5. The manifest, version + 1, only over the version read in step 1.
            let wrote = next != remote || tag == nil || !remote.authenticated || repair
            if wrote {
                next.version = max(remote.version, state.version ?? 0) + 1
                next.authenticated = true
                do {
                    let bytes = try next.encoded(with: vault)
                    if try await !putManifest(bytes, over: tag) {
                        try await confirmManifest(bytes, version: next.version, over: tag, vault: vault)
                    }
                } catch let e as WebDAVError where e.httpStatus == 412 {
                    // Another device synced between our read and our write: their manifest
                    // stays; merge again from it.
                    continue
                }
            }
            // Old revisions, and blobs of earlier rounds that lost the race, go.
            let kept = Set(next.items.map { VaultSyncEngine.blobPath($0.key, $0.value) })
            for path in Set(superseded).union(uploaded).subtracting(kept).sorted() {
                _ = try? await client.delete(path)
            }
            if wrote && next.version % VaultSyncEngine.sweepEvery == 0 {
                report.orphansRemoved = await sweepOrphans(keeping: kept, now: now)
            }
            report.pushed = pushed

            // 6. What the server now holds, per item — for the caller to save after the
            //    vault. A blocked item keeps what was known before, so it is tried again.
            var newState = SyncState(url: here, user: state.user)
            newState.caFile = rememberedCAFile
            newState.version = max(next.version, state.version ?? 0)
            for (key, rev) in next.items {
                if blocked.contains(key) {
                    if let old = state.items[key] { newState.items[key] = old }
                    continue
                }
                guard let id = UUID(uuidString: key), let item = vault.item(id) else { continue }
                newState.items[key] = SyncState.Known(rev: rev, modified: SyncState.ms(item.modified))
            }
            report.state = newState
            report.requests = client.stats.summary
            return report
        }
        throw DossierError(
            "\(here): the server's vault kept changing during \(VaultSyncEngine.maxRounds) sync rounds (another device "
                + "syncing constantly?); nothing here was lost — try again"
        )
    }

    /// Reads the manifest and refuses one that is not authentic or older than what this
    /// device has already seen.
    func readManifest(_ data: Data, vault: Vault, state: SyncState) throws -> SyncManifest {
        let shown = client.url(VaultSyncEngine.manifestName).absoluteString
        let m: SyncManifest
        do { m = try SyncManifest.decode(data, vault: vault) } catch let e as SyncManifest.ReadError {
            switch e {
            case .notAManifest: throw DossierError("\(shown): not a Dossier vault sync manifest")
            case .otherVault:
                throw DossierError(
                    "\(client.baseURL.absoluteString): the server holds a different vault (ids differ); sync each "
                        + "vault to its own folder"
                )
            case .badMAC:
                throw ManifestMACError(
                    error: DossierError(
                        "\(shown): the manifest failed authentication with this vault's key (altered on the server?); "
                            + "nothing was changed"
                    ))
            case .unsupported(let f):
                throw DossierError("\(shown): manifest format \(f) is not supported by this version of dossier")
            }
        }
        if let seen = state.version {
            guard m.authenticated else {
                throw DossierError(
                    "\(shown): refusing an unauthenticated (format 1) manifest after this device synced version "
                        + "\(seen) here: the server's copy was replaced by an older one; nothing was changed"
                )
            }
            guard m.version >= seen else {
                throw DossierError(
                    "\(shown): the server's vault is version \(m.version), older than version \(seen) this device "
                        + "already synced: the server was rolled back (restored from a backup?), refusing to pull old "
                        + "items; nothing was changed"
                )
            }
        }
        return m
    }

    /// A manifest MAC that fails: the server's copy may be under another master password.
    struct ManifestMACError: Error { var error: DossierError }

    /// When the server's `vault.header` is not this file's (same vault id, since the
    /// manifest named it; another salt or KDF: `vault passwd` ran on one side), the
    /// error that says so and what to do; nil when the headers agree (then the manifest
    /// itself was altered).
    func keyMismatch(_ vault: Vault) async throws -> DossierError? {
        guard let header = try await client.getIfExists(VaultSyncEngine.headerName)?.data, header != vault.headerData
        else { return nil }
        return DossierError(
            "\(client.baseURL.absoluteString): the server's copy of this vault is under a different master password "
                + "(its vault.header is not this file's: `dossier vault passwd` was run here or on another device). "
                + "Nothing was changed here "
                + "or on the server. To go on, publish this copy to a new folder (`dossier vault sync FILE --to "
                + "NEW-URL`); on each other "
                + "device, sync once more with this folder, then move to the new one with `--to NEW-URL "
                + "--adopt-server-key` "
                + "(docs/vault-sync.md, \"After vault passwd\"). To keep this folder instead, run `--adopt-server-key` "
                + "here with the "
                + "server's password.")
    }

    /// The copy that keeps the losing side of a conflict: same fields, title
    /// `"<title> (conflict copy)"`, same `modified`, and an id derived from the item's id
    /// and the losing version under the vault's key (``Vault/conflictCopyID(of:)``), so a
    /// sync repeated after a crash makes the same copy.
    static func conflictCopy(of loser: VaultItem, in vault: Vault) throws -> VaultItem {
        var copy = loser
        copy.id = try vault.conflictCopyID(of: loser)
        copy.title = loser.title + " (conflict copy)"
        return copy
    }

    /// Deletes blobs in `items/` that `kept` does not name and that are older than
    /// ``orphanAge`` by the server's `getlastmodified` (younger ones may belong to a sync
    /// in progress on another device). Errors are ignored: it is housekeeping.
    func sweepOrphans(keeping kept: Set<String>, now: Date) async -> Int {
        guard let listed = try? await client.propfind("items", depth: 1) else { return 0 }
        var removed = 0
        for r in listed
        where !r.isCollection && r.path.hasPrefix("items/") && r.path.hasSuffix(".item") && !kept.contains(r.path) {
            guard let modified = r.lastModified, now.timeIntervalSince(modified) > VaultSyncEngine.orphanAge else {
                continue
            }
            if (try? await client.delete(r.path)) == true { removed += 1 }
        }
        return removed
    }

    static func blobPath(_ id: String, _ rev: String) -> String { "items/\(id)-\(rev).item" }

    /// Opens the vault header stored on the server (for a device that has no copy yet).
    public func fetchHeader() async throws -> Data? {
        try await client.getIfExists(VaultSyncEngine.headerName)?.data
    }
}

#endif
