#if DOMAIN_VAULT
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
import Dispatch
#else
import Foundation
#endif
import Vault
import WebDAV
import TextBasics

/// Server settings kept sealed in the vault (``VaultSettings``): checking them against the
/// server before they are saved (UC3), and auto-sync when a command unlocks the vault (UC7).
/// See docs/vault-sync.md.
public enum VaultServerSettings {
    /// A client for the settings stored in a vault. `caFile` is the `--ca-file` option
    /// (nil: the file `remembered` in the sync state, else `SSL_CERT_FILE`, else the
    /// system's trust store).
    public static func client(
        for settings: VaultSettings, caFile: String? = nil, remembered: TrustStore.Remembered? = nil,
        log: (@Sendable (String) -> Void)? = nil
    ) throws -> WebDAVClient {
        guard let url = URL(string: settings.webdavURL), url.scheme != nil else {
            throw DossierError(
                "the vault's stored server URL is not a URL; run `dossier vault sync FILE --configure URL --user NAME`")
        }
        do {
            return try WebDAVClient(
                baseURL: url,
                credentials: Credentials(user: settings.webdavUser, password: settings.webdavPassword.reveal),
                options: WebDAVClient.Options(caFile: caFile, rememberedCAFile: remembered), log: log)
        } catch let e as WebDAVError {
            throw DossierError(e.description)
        }
    }

    /// Checks the server accepts the credentials and has (or lets us create) the folder:
    /// an authenticated `PROPFIND Depth: 0` of the folder; on 404, `MKCOL` of it. A 401
    /// is "bad credentials"; nothing is changed on the server except the folder's creation.
    public static func validate(_ client: WebDAVClient) async throws {
        do {
            let found = try await client.propfind("", depth: 0)
            if let me = found.first(where: { $0.path.isEmpty }) ?? found.first, !me.isCollection {
                throw DossierError(
                    "\(client.baseURL.absoluteString): is a file, not a WebDAV folder; nothing was saved")
            }
        } catch let e as WebDAVError where e.httpStatus == 404 {
            do { try await client.mkcol("") } catch let e as WebDAVError {
                throw DossierError("\(e.description); nothing was saved")
            }
        } catch let e as WebDAVError where e.httpStatus == 401 {
            throw DossierError("bad credentials: \(e.description); nothing was saved")
        } catch let e as WebDAVError {
            throw DossierError("\(e.description); nothing was saved")
        }
    }

    /// Runs one sync round with the vault's stored settings and saves the vault. Used at
    /// unlock when `autoSync` is on. Returns the lines to show (on standard error): all of
    /// them, or with `quiet` only conflicts and skipped items (no "synced" summary).
    public static func autoSync(_ vault: inout Vault, quiet: Bool = false) async throws -> [String] {
        guard let settings = vault.settings, settings.autoSync, let url = vault.url else { return [] }
        // No option here: the CA file `vault sync --ca-file` remembered, else SSL_CERT_FILE.
        let client = try client(for: settings, remembered: try SyncState.rememberedCAFile(forVault: url))
        let engine = VaultSyncEngine(client: client, stateURL: SyncState.url(forVault: url))
        let report: VaultSyncEngine.Report
        do { report = try await engine.sync(&vault) } catch let e as WebDAVError {
            throw DossierError(e.description)
        }
        // The vault first, then the state that describes it (docs/vault-sync.md).
        try FaultPoint.hit("vault file")
        do { try vault.save() } catch let e as VaultError { throw DossierError(e.message) }
        let state = report.state
        try state.save(SyncState.url(forVault: url))
        var lines =
            quiet
            ? []
            : [
                "auto-sync: synced with \(client.baseURL.absoluteString): \(report.pulled.count) pulled, "
                    + "\(report.pushed.count) pushed, \(report.conflicts.count) conflict(s)"
            ]
        lines += report.conflicts.map(conflictLine)
        lines += report.skipped.map { "warning: skipped \($0); tried again at the next sync" }
        return lines
    }

    /// Blocking form of ``autoSync(_:)`` for synchronous commands: a failure (server down,
    /// bad credentials, …) is a warning and the local vault is used as it is. With `quiet`
    /// (the command's -q) the progress and "synced" lines are not shown; conflicts, skipped
    /// items and a failure still are.
    public static func autoSyncAtUnlock(_ vault: inout Vault, quiet: Bool = false) {
        guard let s = vault.settings, s.autoSync, vault.url != nil else { return }
        if !quiet { Console.note("auto-sync: syncing with \(s.webdavURL) before use") }
        let box = ResultBox(vault)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            var copy = box.vault
            do {
                let lines = try await autoSync(&copy, quiet: quiet)
                box.set(copy, lines: lines, error: nil)
            } catch let e as DossierError {
                // (With its file: a damaged state file must be named.)
                box.set(nil, lines: [], error: e.diagnostics.map(\.description).joined(separator: "; "))
            } catch let e as VaultError {
                box.set(nil, lines: [], error: e.message)
            } catch {
                box.set(nil, lines: [], error: "sync failed")
            }
            done.signal()
        }
        done.wait()
        if let err = box.error {
            Console.note("warning: auto-sync failed: \(err); using the local copy")
            return
        }
        vault = box.vault
        for l in box.lines { Console.note(l) }
    }

    public static func conflictLine(_ c: VaultSyncEngine.Conflict) -> String {
        let short = c.id.uuidString.prefix(8).lowercased()
        if let copy = c.copy {
            return
                "conflict: item \(short) was edited on both sides; kept the version from \(c.kept), the other is kept "
                    + "as its \"(conflict copy)\" \(copy.uuidString.prefix(8).lowercased())"
        }
        return
            "conflict: item \(short) was changed on one side and deleted on the other; kept the version from \(c.kept)"
    }
}

private final class ResultBox: @unchecked Sendable {
    private let lock = PlainLock()
    private var _vault: Vault
    private(set) var lines: [String] = []
    private(set) var error: String?
    init(_ v: Vault) { _vault = v }
    var vault: Vault { lock.lock(); defer { lock.unlock() }; return _vault }
    func set(_ v: Vault?, lines: [String], error: String?) {
        lock.lock(); defer { lock.unlock() }
        if let v { _vault = v }
        self.lines = lines
        self.error = error
    }
}
#endif
