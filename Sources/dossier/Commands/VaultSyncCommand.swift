import ArgumentParser
import DossierKit
import Foundation
import Vault
import WebDAV

/// `dossier vault sync`: item-by-item sync of a vault with a WebDAV folder.
struct VaultSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync a vault with a WebDAV folder, item by item, keeping every change.",
        discussion: """
        Each item is stored on the server as its own encrypted blob, with a manifest.
        Changes from both sides are merged by item id and modification time (deletions
        included); an item edited on both sides keeps the later version and saves the
        other as "<title> (conflict copy)", and you are told. Writes are conditional,
        so a change another device made in between is never overwritten.

        The server URL and user name are remembered in <vault>.sync.json after the
        first successful sync (so the server is checked before they are saved). The
        WebDAV password comes from DOSSIER_WEBDAV_PASSWORD (or _FD), a netrc file or
        the prompt; the master password from DOSSIER_VAULT_PASSWORD (or _FD) or the
        prompt. A vault file that does not exist yet is created from the server's copy.

        Examples:
          dossier vault sync my.dvault --to https://dav.example.org/v/ --user al
          dossier vault sync my.dvault
          dossier vault sync laptop.dvault --to https://dav.example.org/v/ --user al
        """
    )

    @Argument(help: "The vault file.") var file: String
    @Option(name: .customLong("to"), help: "The WebDAV folder (first sync, or to change it).") var target: String?
    @Option(help: "WebDAV user name (default: remembered, $DOSSIER_WEBDAV_USER, or the netrc entry).") var user: String?
    @Option(help: "A netrc-style file with the WebDAV password.") var netrc: String?
    @Flag(help: "Log every request (never credentials) on standard error.") var verbose = false

    func run() async throws {
        let vaultURL = URL(fileURLWithPath: file).standardizedFileURL
        let stateURL = SyncState.url(forVault: vaultURL)
        let remembered = SyncState.load(stateURL)
        guard let urlText = target ?? remembered?.url, let url = URL(string: urlText), url.scheme != nil else {
            throw ValidationError("no server yet for this vault: give --to https://host/folder/")
        }
        let givenUser = user ?? (ProcessInfo.processInfo.environment[WebDAVLogin.userVariable] == nil ? remembered?.user : nil)
        let credentials = try WebDAVLogin.credentials(for: url, user: givenUser, netrc: netrc)
        let log: (@Sendable (String) -> Void)? = verbose ? { @Sendable line in Console.note(line) } : nil
        let client: WebDAVClient
        do { client = try WebDAVClient(baseURL: url, credentials: credentials, log: log) } catch let e as WebDAVError {
            throw DossierError(e.description)
        }
        let engine = VaultSyncEngine(client: client, stateURL: stateURL)
        let password = try VaultCLI.masterPassword()
        var vault: Vault
        do {
            if FileManager.default.fileExists(atPath: vaultURL.path) {
                vault = try VaultCLI.wrap { try Vault.open(url: vaultURL, password: password) }
            } else {
                guard let header = try await engine.fetchHeader() else {
                    throw DossierError(file: file, "no such vault file, and the server has no vault to copy")
                }
                vault = try VaultCLI.wrap { try Vault.open(header: header, password: password) }
                vault.url = vaultURL
            }
            let report = try await engine.sync(&vault)
            try VaultCLI.wrap { try vault.save() }
            var state = SyncState.load(stateURL) ?? SyncState(url: client.baseURL.absoluteString)
            state.user = credentials.user
            try state.save(stateURL)
            var line = "synced \(file) with \(client.baseURL.absoluteString): \(report.pulled.count) pulled, \(report.pushed.count) pushed, \(report.conflicts.count) conflict(s)"
            if report.rounds > 1 { line += "; the server changed during the sync, merged again (\(report.rounds) rounds)" }
            line += " (requests: \(report.requests))"
            print(line)
            for c in report.conflicts {
                let short = c.id.uuidString.prefix(8).lowercased()
                if let copy = c.copy {
                    print("conflict: item \(short) was edited on both sides; kept the version from \(c.kept), the other is kept as its \"(conflict copy)\" \(copy.uuidString.prefix(8).lowercased())")
                } else {
                    print("conflict: item \(short) was changed on one side and deleted on the other; kept the version from \(c.kept)")
                }
            }
        } catch let e as WebDAVError {
            throw DossierError(e.description)
        }
    }
}
