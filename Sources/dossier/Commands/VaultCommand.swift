import ArgumentParser
import DossierKit
#if canImport(Glibc)
import Glibc
#endif
import TextBasics
import Vault

/// `dossier vault …`: the Vault tools.
struct VaultCommand: AsyncParsableCommand {
    static let configuration = HelpText.command("vault", subcommands: [
        VaultGenerateCommand.self, VaultInitCommand.self, VaultPasswdCommand.self, VaultAddCommand.self,
        VaultEditCommand.self, VaultRemoveCommand.self, VaultListCommand.self, VaultShowCommand.self,
        VaultNoteCommand.self, VaultImportCommand.self, VaultExportCommand.self, VaultReportCommand.self,
        VaultScoreCommand.self, VaultBenchCommand.self, VaultSyncCommand.self
    ])
}

// MARK: - Shared

enum VaultCLI {
    static let passwordVariable = "DOSSIER_VAULT_PASSWORD"

    static func masterPassword(confirm: Bool = false) throws -> Secret {
        let env = ProcessInfo.processInfo.environment
        let first = try SecretInput.read(prompt: "Master password: ", environment: passwordVariable)
        if confirm && env[passwordVariable] == nil && env[passwordVariable + "_FD"] == nil {
            let again = try SecretInput.read(prompt: "Repeat master password: ", environment: passwordVariable)
            guard again == first else { throw DossierError("the two master passwords differ; nothing was created") }
        }
        return Secret(first)
    }

    /// Asks on the terminal (echo on) and returns the line; an error without a terminal.
    static func askTerminal(_ prompt: String) throws -> String {
        let tty = Glibc.open("/dev/tty", O_RDWR)
        guard tty >= 0 else { throw DossierError("no terminal to confirm on; pass --yes to confirm") }
        defer { close(tty) }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var c: UInt8 = 0
        while Glibc.read(tty, &c, 1) == 1 && c != 10 { bytes.append(c) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `--kdf` values: scrypt (N=2^17, r=8, p=1), argon2id (m=64 MiB, t=3, p=1), pbkdf2 (600,000).
    static func kdf(_ name: String) throws -> KDFParameters {
        switch name {
        case "scrypt": return .standard()
        case "argon2id": return .argon2id()
        case "pbkdf2": return .pbkdf2()
        default: throw ValidationError("--kdf must be scrypt, argon2id or pbkdf2")
        }
    }

    /// Refuses a master password scored below 3 (docs/vault-cli.md) unless `allowWeak`.
    static func checkStrength(_ pw: Secret, allowWeak: Bool) throws {
        let e = Strength.estimate(pw.reveal)
        guard e.score >= 3 || allowWeak else {
            throw DossierError(
                "the master password is too guessable (strength \(e.score)/4, at least 3 needed; about "
                    + "\(e.crackTimesDisplay.offlineSlowHashing1e4PerSecond) offline): choose a longer one, or pass "
                    + "--allow-weak")
        }
    }

    static func open(_ path: String, quiet: Bool = false) throws -> Vault {
        let password = try masterPassword()
        holdLock(path)   // from before the file is read until this command ends (VaultLock.swift)
        var v = try wrap { try Vault.open(url: URL(fileURLWithPath: path), password: password) }
        VaultServerSettings.autoSyncAtUnlock(&v, quiet: quiet)   // UC7: only when the vault's settings turn it on
        return v
    }

    /// Converts a core error into a located diagnostic (exit 1).
    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as VaultError {
            throw DossierError(file: e.file, line: e.line, column: e.column, e.message)
        }
    }

    static func printJSON<T: Encodable>(_ value: T) throws {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        print(String(decoding: try e.encode(value), as: UTF8.self))
    }

    static func describe(_ i: VaultItem, reveal: Bool) -> String {
        var lines = ["id:       \(i.id.uuidString.lowercased())", "kind:     \(i.kind.rawValue)",
                     "title:    \(reveal ? i.title : URLRedaction.text(i.title))"]
        if i.kind == .entry {
            lines += ["username: \(i.username)", "website:  \(reveal ? i.website : URLRedaction.website(i.website))",
                      "password: \(reveal ? i.password.reveal : "•••••• (use --reveal)")"]
            if !i.details.isEmpty { lines.append("details:  \(reveal ? i.details.reveal : "•••••• (use --reveal)")") }
        } else {
            lines.append("text:     \(reveal ? i.text.reveal : "•••••• (use --reveal)")")
        }
        if !i.folder.isEmpty { lines.append("folder:   \(i.folder)") }
        let hidden = "•••••• (use --reveal)"
        if !i.totp.isEmpty { lines.append("totp:     \(reveal ? i.totp.reveal : hidden)") }
        for u in i.uris { lines.append("uri:      \(reveal ? u : URLRedaction.website(u))") }
        // a field's value, hidden or not, is shown only with --reveal (it may be a secret)
        for fl in i.fields {
            lines.append("field:    \(fl.name)\(fl.hidden ? " (hidden)" : ""): \(reveal ? fl.value.reveal : hidden)")
        }
        if !i.tags.isEmpty { lines.append("tags:     \(i.tags.joined(separator: ", "))") }
        if let e = i.expires { lines.append("expires:  \(ISODateText.format(e))") }
        let flags = [("favourite", i.favorite), ("re-prompt", i.reprompt),
                     ("excluded from reports", i.excludeFromReports)].filter(\.1).map(\.0)
        if !flags.isEmpty { lines.append("flags:    \(flags.joined(separator: ", "))") }
        for h in i.history {
            lines.append("history:  \(ISODateText.format(h.changed)) \(reveal ? h.password.reveal : hidden)")
        }
        lines += ["created:  \(ISODateText.format(i.created))", "modified: \(ISODateText.format(i.modified))"]
        return lines.joined(separator: "\n")
    }
}

/// Generator options shared by `generate`, `add --generate` and `edit --generate`.
// MARK: - generate

struct VaultGenerateCommand: ParsableCommand {
    static let configuration = HelpText.command("vault generate")
    @OptionGroup var options: GeneratorOptions
    @Option(help: "How many passwords.") var count = 1
    @Flag(help: "JSON lines with score, guesses and crack times.") var json = false
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        guard (1...100_000).contains(count) else { throw ValidationError("--count must be 1…100000") }
        let next = try options.make()
        for _ in 0..<count {
            let pw = next()
            let e = Strength.estimate(pw.reveal)
            if json {
                struct Line: Encodable {
                    let password: String, score: Int, guessesLog10: Double, crackTimeOfflineSlow: String
                }
                let l = Line(password: pw.reveal, score: e.score, guessesLog10: (e.guessesLog10 * 100).rounded() / 100,
                             crackTimeOfflineSlow: e.crackTimesDisplay.offlineSlowHashing1e4PerSecond)
                let enc = JSONEncoder()
                enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try enc.encode(l), as: UTF8.self))
            } else {
                let time = e.crackTimesDisplay.offlineSlowHashing1e4PerSecond
                print("\(pw.reveal)\tscore \(e.score)/4\t\(time) (offline, slow hash)")
            }
        }
    }
}

// MARK: - init / add / edit / rm

/// The choices `init` and `passwd` share for a new master password.
struct NewMasterPasswordOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Key derivation: scrypt (N=2^17, r=8, p=1), argon2id (64 MiB, t=3, p=1) or pbkdf2 "
                                + "(SHA-256, 600,000 rounds)."))
    var kdf = "scrypt"
    @Flag(help: "Accept a master password the estimator scores below 3 of 4.") var allowWeak = false

    /// The key derivation asked for; an unknown name is a command-line error.
    func parameters() throws -> KDFParameters { try VaultCLI.kdf(kdf) }

    /// Refuses a password the estimator scores below 3 of 4, unless --allow-weak.
    func checkStrength(_ pw: Secret) throws { try VaultCLI.checkStrength(pw, allowWeak: allowWeak) }
}

struct VaultInitCommand: ParsableCommand {
    static let configuration = HelpText.command("vault init")
    @Argument(help: "The vault file to create.") var file: String
    @OptionGroup var newPassword: NewMasterPasswordOptions
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        let url = URL(fileURLWithPath: file)
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw DossierError(file: file, "already exists; not overwritten")
        }
        let params = try newPassword.parameters()
        let pw = try VaultCLI.masterPassword(confirm: true)
        try newPassword.checkStrength(pw)
        VaultCLI.holdLock(file)
        guard !FileManager.default.fileExists(atPath: url.path) else {   // made by another command meanwhile
            throw DossierError(file: file, "already exists; not overwritten")
        }
        try VaultCLI.wrap { try Vault.create(url: url, password: pw, kdf: params).save() }
        quiet.say("created \(file)")
    }
}

// `init` and `passwd` declare the same file, new-password and quiet options
// (`duplicates` pairs them); the password rules they share are NewMasterPasswordOptions.
struct VaultPasswdCommand: ParsableCommand {
    static let configuration = HelpText.command("vault passwd")
    @Argument(help: "The vault file.") var file: String
    @OptionGroup var newPassword: NewMasterPasswordOptions
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        let v = try VaultCLI.open(file, quiet: quiet.quiet)
        let variable = "DOSSIER_NEW_VAULT_PASSWORD"
        let env = ProcessInfo.processInfo.environment
        let new = try SecretInput.read(prompt: "New master password: ", environment: variable)
        if env[variable] == nil && env[variable + "_FD"] == nil {
            let again = try SecretInput.read(prompt: "Repeat new master password: ", environment: variable)
            guard again == new else { throw DossierError("the two new master passwords differ; nothing was changed") }
        }
        let pw = Secret(new)
        try newPassword.checkStrength(pw)
        let params = try newPassword.parameters()
        try VaultCLI.wrap { try v.rekeyed(password: pw, kdf: params).save() }
        quiet.say("changed the master password of \(file) (\(params.algorithm.rawValue))")
        // (Only for a note: a damaged state file is reported by the next sync.)
        let stateURL = SyncState.url(forVault: URL(fileURLWithPath: file).standardizedFileURL)
        let synced = v.settings?.webdavURL ?? ((try? SyncState.load(stateURL)) ?? nil)?.url
        if let synced {
            quiet.keep("note: this vault syncs with \(URLRedaction.website(synced)); the copy there stays under the "
                  + "old password: publish this one to a new folder (`dossier vault sync \(file) --to NEW-URL`) "
                  + "and move the other devices there with `--adopt-server-key` (docs/vault-sync.md, "
                  + "\"After vault passwd\")")
        }
    }
}

struct VaultAddCommand: ParsableCommand {
    static let configuration = HelpText.command("vault add")
    @Argument(help: "The vault file.") var file: String
    @Option(help: "The entry's title.") var title: String
    @Option(help: "The user name.") var username = ""
    @Option(help: "The website (URL).") var website = ""
    @Flag(help: "Generate the password (see generator options).") var generate = false
    @OptionGroup var generator: GeneratorOptions
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        var v = try VaultCLI.open(file, quiet: quiet.quiet)
        let pw = generate ? try generator.make()() : Secret(try SecretInput.read(prompt: "Entry password: ",
                environment: "DOSSIER_ENTRY_PASSWORD"))
        let item = VaultItem.entry(title: title, username: username, password: pw, website: website)
        v.upsert(item)
        try VaultCLI.wrap { try v.save() }
        let e = Strength.estimate(pw.reveal, userInputs: HealthCheck.userInputs(for: item))
        quiet.say("added \(item.id.uuidString.lowercased()) (strength \(e.score)/4)")
    }
}

/// The vault file and the item in it that `edit`, `rm` and `show` act on.
struct VaultItemChoice: ParsableArguments {
    @Argument(help: "The vault file.") var file: String
    @Argument(help: "Id, id prefix or title.") var item: String

    /// The vault, unlocked, and its live item named by id, id prefix or title.
    func open(quiet: QuietFlag) throws -> (Vault, VaultItem) {
        let v = try VaultCLI.open(file, quiet: quiet.quiet)
        return (v, try VaultCLI.wrap { try v.find(item) })
    }
}

struct VaultEditCommand: ParsableCommand {
    static let configuration = HelpText.command("vault edit")
    @OptionGroup var choice: VaultItemChoice
    @Option(help: "A new title.") var title: String?
    @Option(help: "A new user name.") var username: String?
    @Option(help: "A new website (URL).") var website: String?
    @Flag(help: "Read a new password (DOSSIER_ENTRY_PASSWORD, _FD, or terminal).") var newPassword = false
    @Flag(help: "Generate a new password.") var generate = false
    @Option(help: "Expiry date YYYY-MM-DD (00:00 UTC), or 'never'.") var expires: String?
    @Option(help: "Tags, comma-separated ('' for none).") var tags: String?
    @Option(help: "true: leave the item out of every health report figure and list.") var excludeFromReports: Bool?
    @Option(help: "true or false.") var favorite: Bool?
    @OptionGroup var generator: GeneratorOptions
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        var expiry: Date?? = nil
        if let expires {
            if expires == "never" { expiry = .some(nil) } else {
                guard let d = CalendarDay.parse(expires) else {
                    throw DossierError("--expires must be a real day YYYY-MM-DD or never, got '\(expires)'")
                }
                expiry = .some(d)
            }
        }
        var (v, found) = try choice.open(quiet: quiet)
        var pw: Secret? = nil
        if generate {
            pw = try generator.make()()
        } else if newPassword {
            pw = Secret(try SecretInput.read(prompt: "New password: ", environment: "DOSSIER_ENTRY_PASSWORD"))
        }
        try VaultCLI.wrap {
            try v.update(found.id) { i in
                if let title { i.title = title }
                if let username { i.username = username }
                if let website { i.website = website }
                if let pw { i.password = pw }
                if let expiry { i.expires = expiry }
                if let tags { i.tags = Importer.tags(tags) }
                if let excludeFromReports { i.excludeFromReports = excludeFromReports }
                if let favorite { i.favorite = favorite }
            }
            try v.save()
        }
        quiet.say("changed \(found.id.uuidString.lowercased())")
    }
}

struct VaultRemoveCommand: ParsableCommand {
    static let configuration = HelpText.command("vault rm")
    @OptionGroup var choice: VaultItemChoice
    @OptionGroup var quiet: QuietFlag

    func run() throws {
        var (v, found) = try choice.open(quiet: quiet)
        try VaultCLI.wrap {
            try v.delete(found.id)
            try v.save()
        }
        quiet.say("deleted \(found.id.uuidString.lowercased())")
    }
}
