import ArgumentParser
import DossierKit
import Vault
import WebDAV
import TextBasics

/// `dossier vault sync`: item-by-item sync of a vault with a WebDAV folder.
struct VaultSyncCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("vault sync")

    @Argument(help: "The vault file.") var file: String
    @Option(name: .customLong("to"), help: "The WebDAV folder (first sync, or to change it).") var target: String?
    @Option(help: "WebDAV user name (default: remembered, $DOSSIER_WEBDAV_USER, or the netrc entry).") var user: String?
    @Option(help: "A netrc-style file with the WebDAV password.") var netrc: String?
    @Option(help: "Check and store server settings (WebDAV folder URL) sealed in the vault, then sync.")
    var configure: String?
    @Flag(inversion: .prefixedNo,
          help: "With --configure: sync automatically whenever the vault is unlocked (UC7).") var auto: Bool?
    @Flag(help: "Log every request (never credentials) on standard error.") var verbose = false
    @Flag(help: """
        The server's copy is under another master password (vault passwd): merge this vault into it; \
        afterwards this file opens with the server's password \
        (DOSSIER_SERVER_VAULT_PASSWORD, _FD, or the prompt).
        """)
    var adoptServerKey = false
    @OptionGroup var trust: TrustOptions
    @OptionGroup var quiet: QuietFlag

    func validate() throws {
        if configure != nil && target != nil { throw ValidationError("give either --configure or --to, not both") }
        if configure == nil && auto != nil {
            throw ValidationError("--auto/--no-auto go with --configure URL --user NAME")
        }
        if configure != nil && netrc != nil {
            throw ValidationError("--configure reads the WebDAV password from DOSSIER_WEBDAV_PASSWORD or the prompt, "
                                  + "not a netrc file")
        }
    }

    func run() async throws {
        let vaultURL = URL(fileURLWithPath: file).standardizedFileURL
        let stateURL = SyncState.url(forVault: vaultURL)
        let log: (@Sendable (String) -> Void)? = verbose ? { @Sendable line in Console.note(line) } : nil
        let password = try VaultCLI.masterPassword()
        VaultCLI.holdLock(file)   // before the vault is read or made (VaultLock.swift)
        let exists = FileManager.default.fileExists(atPath: vaultURL.path)
        // A CA file an earlier `--ca-file` named is trusted when none is given now.
        let rememberedCA = try SyncState.rememberedCAFile(forVault: vaultURL)
        let vault: Vault?
        if exists {
            vault = try VaultCLI.wrap { try Vault.open(url: vaultURL, password: password) }
        } else {
            vault = nil
        }

        // Which server, which credentials.
        let client: WebDAVClient
        var syncUser: String?
        var newSettings: VaultSettings?
        do {
            if let configure {
                guard let url = URL(string: configure), let scheme = url.scheme, ["http",
                        "https"].contains(scheme.lowercased()), url.host != nil else {
                    throw ValidationError("--configure needs a WebDAV folder URL like https://host/folder/")
                }
                guard url.user == nil && url.password == nil else {
                    throw ValidationError("put no user name or password in the URL: "
                                          + "use --user and DOSSIER_WEBDAV_PASSWORD or the prompt")
                }
                let env = ProcessInfo.processInfo.environment
                guard let u = user ?? env[WebDAVLogin.userVariable].flatMap({ $0.isEmpty ? nil : $0 })
                    ?? vault?.settings?.webdavUser else {
                    throw ValidationError("--configure needs --user NAME")
                }
                let pw = try SecretInput.read(prompt: "WebDAV password for \(u) at \(url.host ?? configure): ",
                                              environment: WebDAVLogin.passwordVariable)
                let settings = VaultSettings(webdavURL: url.absoluteString, webdavUser: u, webdavPassword: Secret(pw),
                                             autoSync: auto ?? vault?.settings?.autoSync ?? false)
                client = try VaultServerSettings.client(for: settings, caFile: trust.caFile, remembered: rememberedCA,
                                                        log: log)
                // UC3: check the settings against the server before anything is saved.
                try await VaultServerSettings.validate(client)
                newSettings = settings
                syncUser = u
            } else if target == nil, let stored = vault?.settings {
                client = try VaultServerSettings.client(for: stored, caFile: trust.caFile, remembered: rememberedCA,
                                                        log: log)
                syncUser = stored.webdavUser
            } else {
                let remembered = try SyncState.load(stateURL)
                guard let urlText = target ?? remembered?.url, let url = URL(string: urlText), url.scheme != nil else {
                    throw ValidationError("no server yet for this vault: "
                                          + "give --configure URL --user NAME (stored in the vault) or --to URL")
                }
                let userFromEnvironment = ProcessInfo.processInfo.environment[WebDAVLogin.userVariable]
                let givenUser = user ?? (userFromEnvironment == nil ? remembered?.user : nil)
                let credentials = try WebDAVLogin.credentials(for: url, user: givenUser, netrc: netrc)
                var options = trust.clientOptions
                options.rememberedCAFile = rememberedCA
                client = try WebDAVClient(baseURL: url, credentials: credentials, options: options, log: log)
                syncUser = credentials.user
            }
        } catch let e as WebDAVError {
            throw DossierError(e.description)
        }
        let engine = VaultSyncEngine(client: client, stateURL: stateURL)
        do {
            var v: Vault
            if let vault {
                v = vault
            } else {
                guard let header = try await engine.fetchHeader() else {
                    throw DossierError(file: file, "no such vault file, and the server has no vault to copy")
                }
                v = try VaultCLI.wrap { try Vault.open(header: header, password: password) }
                v.url = vaultURL
            }
            if adoptServerKey {
                // every item (tombstones too) moves under the server's keys as this device's
                // version; the round below merges them with the server's like any sync
                guard let header = try await engine.fetchHeader() else {
                    throw DossierError(
                        "\(client.baseURL.absoluteString): the server has no vault whose key could be adopted")
                }
                if header != v.headerData {
                    let serverPassword = try SecretInput.read(prompt: "Master password of the server's copy: ",
                                                              environment: "DOSSIER_SERVER_VAULT_PASSWORD")
                    v = try VaultCLI.wrap { try v.adopting(header: header, password: Secret(serverPassword)) }
                    quiet.say("adopting the server's master password and key derivation for \(file)")
                }
            }
            if let newSettings {
                v.settings = newSettings
                try FaultPoint.hit("vault file")
                try VaultCLI.wrap { try v.save() }
                quiet.say("saved the server settings for \(file) in the vault (\(newSettings.webdavURL), "
                          + "user \(newSettings.webdavUser), auto-sync \(newSettings.autoSync ? "on" : "off"))")
            }
            let report = try await engine.sync(&v)
            // Commit order: the vault first, then the state that describes it (a crash
            // in between leaves an older state, which the next sync repairs).
            try FaultPoint.hit("vault file")
            try VaultCLI.wrap { try v.save() }
            var state = report.state
            state.user = syncUser
            // `--ca-file PATH` is remembered for later syncs and auto-sync; `--ca-file ''` forgets.
            if let given = trust.caFile {
                state.caFile = given.isEmpty ? nil : URL(fileURLWithPath: given).standardizedFileURL.path
            }
            try state.save(stateURL)
            var line = "synced \(file) with \(client.baseURL.absoluteString): \(report.pulled.count) pulled, "
                + "\(report.pushed.count) pushed, \(report.conflicts.count) conflict(s)"
            if report.rounds > 1 {
                line += "; the server changed during the sync, merged again (\(report.rounds) rounds)"
            }
            line += " (requests: \(report.requests))"
            quiet.say(line)
            for c in report.conflicts { quiet.keep(VaultServerSettings.conflictLine(c)) }
            for s in report.skipped {   // a warning: on standard error, as auto-sync writes it
                Stdio.writeError(Data(("warning: skipped \(s); its item was left as it is on both sides "
                                       + "and is tried again at the next sync\n").utf8))
            }
            if report.orphansRemoved > 0 {
                quiet.say("removed \(report.orphansRemoved) orphan blob(s) left by interrupted syncs")
            }
        } catch let e as WebDAVError {
            throw DossierError(e.description)
        }
    }
}
