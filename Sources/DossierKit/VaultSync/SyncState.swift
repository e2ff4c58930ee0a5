#if DOMAIN_VAULT
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Vault
import WebDAV

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
    /// The highest authenticated manifest version this device has read or written on
    /// this server (nil: none yet). A lower one on the server is a rollback.
    public var version: Int?
    public var items: [String: Known] = [:]
    /// The certificate-authority file `vault sync --ca-file PATH` last named for this
    /// vault (absolute), trusted by later syncs and auto-sync at unlock that give no
    /// `--ca-file`; nil when none was given or `--ca-file ''` forgot it. A path, not a
    /// secret (docs/vault-sync.md, "State file").
    public var caFile: String?

    public init(url: String, user: String? = nil) {
        self.url = url
        self.user = user
    }

    static func ms(_ d: Date) -> Int64 { Int64((d.timeIntervalSince1970 * 1000).rounded()) }

    public static func url(forVault vault: URL) -> URL {
        vault.deletingLastPathComponent().appendingPathComponent(vault.lastPathComponent + ".sync.json")
    }

    /// The remembered CA file of the vault at `vault`, named for messages.
    public static func rememberedCAFile(forVault vault: URL) throws -> TrustStore.Remembered? {
        let stateURL = url(forVault: vault)
        guard let path = try load(stateURL)?.caFile, !path.isEmpty else { return nil }
        return TrustStore.Remembered(path: path, origin: "--ca-file remembered in \(stateURL.lastPathComponent)")
    }

    /// The state at `url`; nil only when there is none (no such file). A state that exists
    /// but cannot be read or decoded is an error naming it, never "no state": it holds this
    /// device's rollback protection (`version`), and a sync without it would take a
    /// rolled-back server's old manifest as a first sync (docs/vault-sync.md, "State file").
    public static func load(_ url: URL) throws -> SyncState? {
        func damaged(_ why: String) -> DossierError {
            DossierError(file: url.path, "\(why): this file holds the device's rollback protection, so nothing was "
                         + "synced; restore it from a backup, or delete it to sync as a device that never synced "
                         + "with this server (docs/vault-sync.md, \"State file\")")
        }
        var st = stat()
        if stat(url.path, &st) != 0 {
            let e = errno
            if e == ENOENT || e == ENOTDIR { return nil }
            throw damaged("cannot read the sync state (\(String(cString: strerror(e))))")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw damaged("a folder where the sync state file belongs") }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw damaged("cannot read the sync state (\(String(cString: strerror(errno))))")
        }
        // (No decoder detail: only what is wrong, not what the file says.)
        guard let state = try? JSONDecoder().decode(SyncState.self, from: data) else {
            throw damaged("not a sync state (damaged, cut short or not JSON)")
        }
        return state
    }

    /// Writes the state atomically. Call it only after the vault file holding the
    /// items it describes is saved (see "Commit order" in docs/vault-sync.md).
    public func save(_ url: URL) throws {
        var copy = self
        // (A damaged old state is replaced: the sync that reached here read the server.)
        if let old = (try? SyncState.load(url)) ?? nil {
            copy.user = copy.user ?? old.user
            copy.autoSync = copy.autoSync ?? old.autoSync
        }
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted]
        try FaultPoint.hit("state file")
        try AtomicFile.write(try enc.encode(copy), to: url)
    }
}
#endif
