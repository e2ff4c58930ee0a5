#if DOMAIN_VAULT
import Foundation
import Vault
import WebDAV

/// Item-by-item sync of a vault with a WebDAV folder (see docs/vault-sync.md).
///
/// Server layout (everything but the manifest is immutable once written):
/// ```
/// <folder>/vault.header                 the vault's headerData (KDF salt, header MAC) — lets a new device derive the keys
/// <folder>/items/<UUID>-<rev>.item      one sealed item (Vault.sealedItem); rev = first 16 hex digits of SHA-256(blob)
/// <folder>/manifest.json                {"format":1,"items":{"<UUID>":"<rev>",…},"vaultID":"<UUID>"}
/// ```
/// A round: GET the manifest; GET the blobs whose revision differs from the one this
/// device last saw; merge (per item, by modification time, tombstones included); PUT
/// blobs for items changed here (`If-None-Match: *`, new names, never overwriting);
/// PUT the manifest with `If-Match` on the version read (`If-None-Match: *` the first
/// time). A 412 means another device synced in between: nothing of theirs was
/// overwritten, and the round starts again from their manifest (at most 4 rounds).
/// Then the superseded blobs are deleted. One changed item costs 4 requests (GET
/// manifest, PUT blob, PUT manifest, DELETE old blob) whatever the vault's size.
public struct VaultSyncEngine: Sendable {
    public static let manifestName = "manifest.json"
    public static let headerName = "vault.header"
    public static let maxRounds = 4

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
        /// Rounds run (more than 1 when another device synced at the same time).
        public var rounds = 0
        public var requests = ""
    }

    struct RemoteManifest: Codable, Equatable {
        var format = 1
        var vaultID: UUID
        var items: [String: String]
    }

    /// Syncs `vault` with the server; the caller saves the vault afterwards (the state file
    /// is written here only once the server holds the result).
    public func sync(_ vault: inout Vault, now: Date = Date()) async throws -> Report {
        var report = Report()
        var state = SyncState.load(stateURL) ?? SyncState(url: client.baseURL.absoluteString)
        if state.url != client.baseURL.absoluteString {
            // Another server: start from nothing known.
            state = SyncState(url: client.baseURL.absoluteString)
        }
        var uploaded: Set<String> = []
        for round in 1...VaultSyncEngine.maxRounds {
            report.rounds = round
            // 1. Read the server's manifest.
            var remote: RemoteManifest
            var tag: String?
            if let (data, etag) = try await client.getIfExists(VaultSyncEngine.manifestName) {
                guard let m = try? JSONDecoder().decode(RemoteManifest.self, from: data) else {
                    throw DossierError("\(client.url(VaultSyncEngine.manifestName).absoluteString): not a Dossier vault sync manifest")
                }
                guard m.vaultID == vault.header.vaultID else {
                    throw DossierError("\(client.baseURL.absoluteString): the server holds a different vault (ids differ); sync each vault to its own folder")
                }
                remote = m
                tag = etag
            } else {
                remote = RemoteManifest(vaultID: vault.header.vaultID, items: [:])
                tag = nil
                try await client.mkcol("")
                try await client.mkcol("items")
                do {
                    try await client.put(VaultSyncEngine.headerName, data: vault.headerData, precondition: .ifNoneMatchAny)
                } catch let e as WebDAVError where e.httpStatus == 412 {}
            }

            // 2. Pull what changed there since this device last saw it.
            let localChanged = Set(vault.allItems.filter { item in
                state.items[item.id.uuidString]?.modified != SyncState.ms(item.modified)
            }.map(\.id))
            var remoteVersions: [UUID: VaultItem] = [:]
            for (key, rev) in remote.items.sorted(by: { $0.key < $1.key }) where state.items[key]?.rev != rev {
                guard let id = UUID(uuidString: key) else { continue }
                let (blob, _) = try await client.get(VaultSyncEngine.blobPath(key, rev))
                let item: VaultItem
                do { item = try vault.open(sealed: blob) } catch let e as VaultError {
                    throw DossierError("\(client.url(VaultSyncEngine.blobPath(key, rev)).absoluteString): \(e.message)")
                }
                remoteVersions[id] = item
            }

            // 3. Merge: last modification wins; an item edited on both sides keeps the
            //    losing version as a copy, so no edit is lost.
            var pushIDs = localChanged
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
                    var copy = loser
                    copy.id = UUID()
                    copy.title = loser.title + " (conflict copy)"
                    copy.modified = now.wholeMilliseconds
                    vault.upsert(copy)
                    pushIDs.insert(copy.id)
                    copyID = copy.id
                }
                if !handled {
                    report.conflicts.append(Conflict(id: id, kept: winner == theirs ? "server" : "this device", copy: copyID))
                }
            }

            // 4. Push: new blob names, never overwriting.
            var next = remote
            var superseded: [String] = []
            var pushed: [UUID] = []
            for id in pushIDs.sorted(by: { $0.uuidString < $1.uuidString }) {
                let blob = try vault.sealedItem(id)
                let rev = String(FileHash.sha256(blob).prefix(16))
                let key = id.uuidString
                if remote.items[key] == rev { continue }
                do {
                    try await client.put(VaultSyncEngine.blobPath(key, rev), data: blob, precondition: .ifNoneMatchAny)
                } catch let e as WebDAVError where e.httpStatus == 412 {
                    // Same name = same bytes (the name carries their hash): already there.
                }
                uploaded.insert(VaultSyncEngine.blobPath(key, rev))
                if let old = remote.items[key] { superseded.append(VaultSyncEngine.blobPath(key, old)) }
                next.items[key] = rev
                pushed.append(id)
            }

            // 5. The manifest, only over the version read in step 1.
            if next != remote || tag == nil {
                let enc = JSONEncoder()
                enc.outputFormatting = [.sortedKeys]
                do {
                    try await client.put(VaultSyncEngine.manifestName, data: try enc.encode(next),
                                         precondition: tag.map { .ifMatch($0) } ?? .ifNoneMatchAny,
                                         contentType: "application/json")
                } catch let e as WebDAVError where e.httpStatus == 412 {
                    // Another device synced between our read and our write: their manifest
                    // stays; merge again from it.
                    continue
                }
            }
            // Old revisions, and blobs of earlier rounds that lost the race, go.
            let kept = Set(next.items.map { VaultSyncEngine.blobPath($0.key, $0.value) })
            for path in Set(superseded).union(uploaded).subtracting(kept).sorted() { _ = try? await client.delete(path) }
            report.pushed = pushed

            // 6. Remember what the server now holds, per item.
            var newState = SyncState(url: client.baseURL.absoluteString)
            for (key, rev) in next.items {
                guard let id = UUID(uuidString: key), let item = vault.item(id) else { continue }
                newState.items[key] = SyncState.Known(rev: rev, modified: SyncState.ms(item.modified))
            }
            try newState.save(stateURL)
            report.requests = client.stats.summary
            return report
        }
        throw DossierError("\(client.baseURL.absoluteString): the vault on the server kept changing during \(VaultSyncEngine.maxRounds) sync rounds; try again")
    }

    static func blobPath(_ id: String, _ rev: String) -> String { "items/\(id)-\(rev).item" }

    /// Opens the vault header stored on the server (for a device that has no copy yet).
    public func fetchHeader() async throws -> Data? {
        try await client.getIfExists(VaultSyncEngine.headerName)?.data
    }
}

/// What this device last knew the server to hold, per item: the blob revision and the
/// item's `modified` (ms) at that time. Beside the vault as `<vault>.sync.json`; holds
/// no secret (ids, revisions, times, the server URL and user name).
public struct SyncState: Codable, Sendable {
    public struct Known: Codable, Sendable, Equatable {
        public var rev: String
        public var modified: Int64
    }
    public var url: String
    public var user: String?
    public var autoSync: Bool?
    public var items: [String: Known] = [:]

    public init(url: String, user: String? = nil) {
        self.url = url
        self.user = user
    }

    static func ms(_ d: Date) -> Int64 { Int64((d.timeIntervalSince1970 * 1000).rounded()) }

    public static func url(forVault vault: URL) -> URL {
        vault.deletingLastPathComponent().appendingPathComponent(vault.lastPathComponent + ".sync.json")
    }

    public static func load(_ url: URL) -> SyncState? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return try? JSONDecoder().decode(SyncState.self, from: data)
    }

    public func save(_ url: URL) throws {
        var copy = self
        if let old = SyncState.load(url) {
            copy.user = copy.user ?? old.user
            copy.autoSync = copy.autoSync ?? old.autoSync
        }
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicFile.write(try enc.encode(copy), to: url)
    }
}
#endif
